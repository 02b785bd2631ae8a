// kiln completion: the scripts are generated from the registered commands, and bash really loads
// and completes with them.
#include <gtest/gtest.h>

#include <sstream>

#include "binary_fixtures.hpp"
#include "cli/command.hpp"
#include "io/process.hpp"
#include "core/arch_spec.hpp"
#include "core/gpu_table.hpp"
#include "plan/emit.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

std::string kiln_out(std::vector<std::string> args, int* rc = nullptr) {
  kiln::testing::RealSeams t;
  int r = kiln::testing::run_kiln(t.seams, std::move(args));
  if (rc) *rc = r;
  return t.out.str();
}

// Runs `script` in bash; stdout.
std::string bash(const std::string& script) {
  io::RealProcessRunner proc;
  auto r = proc.run({.argv = {"bash", "--norc", "-c", script}});
  EXPECT_TRUE(r.ok()) << r.err;
  return r.out;
}

}  // namespace

TEST(Completion, BashLoadsItAndCompletesCommandsAndOptions) {
  kiln::testing::TempDir dir;
  auto script = dir.write("kiln.bash", kiln_out({"completion", "bash"}));
  auto complete = [&](const std::string& words) {
    return bash(". " + script + "; COMP_WORDS=(" + words +
                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kiln; echo \"${COMPREPLY[*]}\"");
  };
  EXPECT_EQ(complete("kiln bui"), "build\n");
  EXPECT_EQ(complete("kiln d"), "doctor diagnose\n");
  EXPECT_EQ(complete("kiln build --jo"), "--jobs\n");
  EXPECT_EQ(complete("kiln --config x.toml inspect --ker"), "--kernels\n");
  EXPECT_EQ(complete("kiln completion z"), "zsh\n");
  // Every registered command is offered.
  const auto all = complete("kiln ''");
  for (const char* c : {"doctor", "archs", "gpus", "plan", "build", "inspect", "verify", "diagnose", "report", "cache",
                        "bench", "completion"})
    EXPECT_NE(all.find(c), std::string::npos) << c;
  EXPECT_NE(bash(". " + script + "; complete -p kiln").find("-F _kiln kiln"), std::string::npos);
}

// Values after options that take one of a few, and cache's actions (issue 21 item 9).
TEST(Completion, BashOffersValuesForGpusSpellingsFormatsAndCacheActions) {
  kiln::testing::TempDir dir;
  auto script = dir.write("kiln.bash", kiln_out({"completion", "bash"}));
  auto complete = [&](const std::string& words) {
    return bash(". " + script + "; COMP_WORDS=(" + words +
                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kiln; echo \"${COMPREPLY[*]}\"");
  };
  EXPECT_EQ(complete("kiln archs 9.0 --to ''"), "torch cmake nvcc\n");
  EXPECT_EQ(complete("kiln archs --from a"), "auto\n");
  EXPECT_EQ(complete("kiln plan . --emit d"), "dockerfile\n");
  EXPECT_EQ(complete("kiln cache c"), "clear config\n");
  EXPECT_EQ(complete("kiln cache --jso"), "--json\n");
  EXPECT_EQ(complete("kiln completion z"), "zsh\n");
  EXPECT_EQ(complete("kiln build --build-type R"), "Release RelWithDebInfo\n");
  for (const char* cmd : {"plan", "build", "archs", "verify"}) {
    const auto gpus = complete(std::string("kiln ") + cmd + " --gpu h1");
    EXPECT_NE(gpus.find("h100"), std::string::npos) << cmd << ": " << gpus;
  }
}

// What completion offers, the commands take: each GPU word looks up to its model, each value runs.
TEST(Completion, EveryOfferedValueIsAccepted) {
  const auto text = kiln_out({"completion", "bash"});
  auto offered = [&](const std::string& key) {
    const auto at = text.find("\"" + key + "\") vals=\"");
    EXPECT_NE(at, std::string::npos) << key;
    const auto from = text.find("vals=\"", at) + 6;
    std::vector<std::string> v;
    std::istringstream in(text.substr(from, text.find('"', from) - from));
    for (std::string w; in >> w;) v.push_back(w);
    return v;
  };
  const auto gpus = offered("plan --gpu");
  EXPECT_GT(gpus.size(), 50u);
  for (const auto& w : gpus) {
    auto g = core::GpuTable::get().lookup(w);
    ASSERT_TRUE(g) << w;
    EXPECT_EQ(w.find(' '), std::string::npos);
  }
  EXPECT_EQ(offered("archs --gpu"), gpus);
  for (const auto& to : offered("archs --to")) {
    int rc = -1;
    kiln_out({"archs", "9.0", "--to", to}, &rc);
    EXPECT_EQ(rc, 0) << to;
  }
  for (const auto& from : offered("archs --from")) EXPECT_TRUE(core::parse_syntax(from)) << from;
  const std::string example = kiln::testing::source_dir() + "/examples/minitorch";
  for (const auto& [opt, key] : std::vector<std::pair<std::string, std::string>>{
           {"--emit", "plan --emit"}, {"--build-type", "plan --build-type"}, {"--profile", "plan --profile"}})
    for (const auto& v : offered(key)) {
      int rc = -1;
      kiln_out({"plan", example, "--archs", "9.0", opt, v}, &rc);
      EXPECT_EQ(rc, 0) << opt << " " << v;
    }
}

TEST(Completion, ZshScriptIsValidAndNamesEveryCommand) {
  const auto text = kiln_out({"completion", "zsh"});
  EXPECT_EQ(text.rfind("#compdef kiln\n", 0), 0u);
  EXPECT_NE(text.find("'--jobs["), std::string::npos);
  EXPECT_NE(text.find("'verify:"), std::string::npos);
  EXPECT_NE(
      text.find("'--to[Print the set in one spelling on one line  torch, cmake or nvcc]:value:(torch cmake nvcc)'"),
      std::string::npos);
  EXPECT_NE(text.find("'1:argument:(show clear config)'"), std::string::npos);
  EXPECT_NE(text.find("'--build-dir["), std::string::npos);
  io::RealProcessRunner proc;
  kiln::testing::TempDir dir;
  auto script = dir.write("_kiln", text);
  auto r = proc.run({.argv = {"zsh", "-n", script}});
  if (!r.started) GTEST_SKIP() << "zsh is not installed; its syntax check needs it";
  EXPECT_TRUE(r.ok()) << r.err;
}

TEST(Completion, UnknownShellIsAUsageError) {
  int rc = 0;
  kiln_out({"completion", "fish"}, &rc);
  EXPECT_EQ(rc, 2);
}

TEST(EmitEnv, QuotedValuesSurviveSourcingInBash) {
  kiln::testing::TempDir dir;
  std::string file;
  const std::map<std::string, std::string> tricky = {
      {"CUDAARCHS", "80-real;90-real"}, {"SPACED", "a b  c"}, {"QUOTE", "it's \"x\" $HOME `id` \\n"}, {"EMPTY", ""}};
  for (const auto& [k, v] : tricky) file += k + "=" + plan::shell_quote(v) + "\n";
  auto path = dir.write("plan.env", file);
  for (const auto& [k, v] : tricky) EXPECT_EQ(bash("set -a; . " + path + "; printf %s \"$" + k + "\""), v) << k;
  // `set -a` exports them: a child sees the same.
  EXPECT_EQ(bash("set -a; . " + path + "; bash -c 'printf %s \"$CUDAARCHS\"'"), "80-real;90-real");
}
