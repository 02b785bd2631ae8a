// The launcher contract (core/launcher_env): every variable written by to_env() is read back by
// from_env() as it was, unset stays unset, values are read as the launchers always read them, and
// docs/architecture.md's table lists exactly the contract's variables.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/launcher_env.hpp"
#include "io/environment.hpp"
#include "test_support.hpp"

using kiln::core::LauncherEnv;

namespace {

LauncherEnv every_field_set() {
  LauncherEnv e;
  e.wrap_cxx = "/usr/bin/ccache\x1f/usr/bin/c++";
  e.wrap_nvcc = "/usr/local/cuda/bin/nvcc";
  e.exec_log = "/b/kiln-exec.jsonl";
  e.exe = "/usr/bin/kiln";
  e.running = "/b/.kiln/running";
  e.ledger = "/b/.kiln/ledger";
  e.mem_budget_kib = 67108864;
  e.mem_history = "/b/.kiln/mem";
  e.unit_history = "/home/u/.cache/kiln/units";
  e.project_dir = "/p";
  e.cores = 16;
  e.split = true;
  e.unit_plan = "/b/.kiln/units.plan";
  e.cpu_share = false;
  e.pool_jobs = 2;
  e.nvcc_time = "/b/.kiln/time";
  e.prune_archs = "90-real";
  e.extra_archs = "120f-real";
  e.slurm_units = true;
  e.slurm_self = "/usr/bin/kiln";
  e.slurm_reports = "/b/.kiln/steps";
  e.slurm_tag = "kiln-42";
  e.slurm_node_cpus = 8;
  e.slurm_node_mem_kib = 1u << 30;
  e.slurm_retries = 3;
  e.slurm_step_wait = 7200;
  e.slurm_srun = "/opt/fake/srun";
  e.slurm_squeue = "/opt/fake/squeue";
  e.slurm_sinfo = "/opt/fake/sinfo";
  e.slurm_nodes = "n1,n2";
  e.step_report = "/b/.kiln/steps/0123-7-1";
  e.step_running = "/b/.kiln/running/7";
  return e;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(LauncherEnv, WhatThePlanWritesTheLaunchersReadBack) {
  const auto all = every_field_set();
  const auto env = all.to_env();
  std::set<std::string> names;
  for (auto n : kiln::core::kLauncherVariables) names.insert(std::string(n));
  std::set<std::string> written;
  for (const auto& [k, v] : env) written.insert(k);
  EXPECT_EQ(written, names) << "each field is one variable of kLauncherVariables";
  EXPECT_EQ(names.size(), std::size(kiln::core::kLauncherVariables)) << "no name twice";
  EXPECT_EQ(env.at("KILN_CPU_SHARE"), "0") << "said even when off";
  EXPECT_EQ(env.at("KILN_SPLIT"), "1");
  EXPECT_EQ(env.at("KILN_MEM_BUDGET_KIB"), "67108864");

  for (const auto& [k, v] : env) EXPECT_TRUE(kiln::core::is_launcher_variable(k)) << k;
  EXPECT_FALSE(kiln::core::is_launcher_variable("KILN_JOBS")) << "a user's option, not the contract";

  EXPECT_EQ(LauncherEnv::from_env(env).to_env(), env);
  kiln::io::FakeEnvironment fake;
  for (const auto& [k, v] : env) fake.set(k, v);
  EXPECT_EQ(LauncherEnv::from_env(fake).to_env(), env);
}

TEST(LauncherEnv, UnsetStaysUnsetAndValuesAreReadAsTheLaunchersReadThem) {
  EXPECT_TRUE(LauncherEnv{}.to_env().empty());
  const auto none = LauncherEnv::from_env(std::map<std::string, std::string>{});
  EXPECT_TRUE(none.to_env().empty());
  EXPECT_FALSE(none.cpu_share);

  const auto odd = LauncherEnv::from_env(std::map<std::string, std::string>{{"KILN_CORES", "many"},
                                                                            {"KILN_SPLIT", "yes"},
                                                                            {"KILN_CPU_SHARE", "true"},
                                                                            {"KILN_SLURM_UNITS", "1"},
                                                                            {"KILN_SLURM_RETRIES", "-4"},
                                                                            {"KILN_MEM_BUDGET_KIB", "-1"},
                                                                            {"KILN_LEDGER", ""}});
  EXPECT_FALSE(odd.cores) << "not a number: not set";
  EXPECT_FALSE(odd.split) << "only 1 turns a switch on";
  ASSERT_TRUE(odd.cpu_share);
  EXPECT_FALSE(*odd.cpu_share);
  EXPECT_TRUE(odd.slurm_units);
  EXPECT_EQ(odd.slurm_retries, -4) << "signed: the step launcher clamps it";
  EXPECT_FALSE(odd.mem_budget_kib) << "a budget takes no sign";
  EXPECT_TRUE(odd.ledger.empty());
}

// The table of docs/architecture.md ("What `kiln build` tells its launcher") names the same
// variables as the contract.
TEST(LauncherEnv, TheArchitectureTableListsExactlyTheContract) {
  const std::string doc = read_text(kiln::testing::source_dir() + "/docs/architecture.md");
  const auto head = doc.find("| variable | what the launcher does with it |");
  ASSERT_NE(head, std::string::npos);
  const auto end = doc.find("\n\n", head);
  const std::string table = doc.substr(head, end - head);
  std::set<std::string> documented;
  std::istringstream lines(table);
  const std::regex var(R"(`(KILN_[A-Z0-9_]+)`)");
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.substr(0, line.find(" | "));  // the variable column only
    for (std::sregex_iterator it(first.begin(), first.end(), var), e; it != e; ++it) documented.insert((*it)[1]);
  }
  std::set<std::string> contract;
  for (auto n : kiln::core::kLauncherVariables) contract.insert(std::string(n));
  EXPECT_EQ(documented, contract);
}
