// Issue 35: once a node of a kiln build --slurm died, Ninja's -j still counted its cores, so the
// units past the nodes left's CPUs waited in srun and then ran beside the others (or, on Slurm
// 22.05, never started). The watchdog notes a dead node for every launcher; a launcher then
// waits here, under the governor, for a CPU of the nodes left.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fakes/clock.hpp"
#include "fakes/environment.hpp"
#include "fakes/fs.hpp"
#include "fakes/process.hpp"
#include "io/process_table.hpp"
#include "launch/exec_launcher.hpp"
#include "launch/exec_record.hpp"
#include "launch/slurm_nodes.hpp"
#include "launch/slurm_step.hpp"
#include "temp_dir.hpp"

using namespace kiln;

TEST(SlurmRoom, NodesCarryTheirCpusAndDeadOnesAreNotedForEveryLauncher) {
  EXPECT_EQ(launch::parse_slurm_nodes("n1:32,n2:16,n3"),
            (std::vector<std::pair<std::string, int>>{{"n1", 32}, {"n2", 16}, {"n3", 0}}));
  EXPECT_EQ(launch::parse_slurm_nodes("n1,n2:x"), (std::vector<std::pair<std::string, int>>{{"n1", 0}, {"n2", 0}}));
  io::FakeFilesystem fs;
  io::FakeEnvironment env{{{"KILN_SLURM_UNITS", "1"},
                           {"SLURM_JOB_ID", "7"},
                           {"KILN_SLURM_SELF", "/opt/kiln"},
                           {"KILN_SLURM_REPORTS", "/b/.kiln/steps"},
                           {"KILN_SLURM_NODES", "n1:2,n2:2,n3:4,n4"}}};
  auto c = launch::slurm_config(env);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->nodes, (std::vector<std::string>{"n1", "n2", "n3", "n4"}));
  EXPECT_FALSE(launch::room_left(*c, fs)) << "no node noted dead: nothing to hold back";
  launch::NodeHealth h;
  h.dead = {{"n3", "down*"}};
  launch::note_dead_nodes(fs, c->reports, h);
  fs.add_file("/b/.kiln/steps/0123-42-1", "node=n1\n");  // a step's report beside it
  auto left = launch::room_left(*c, fs);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->dead, std::vector<std::string>{"n3"});
  EXPECT_EQ(left->cpus, 4);  // n1 and n2; n4 was lost before the build (no CPUs)
  EXPECT_EQ(left->nodes, 2);
}

namespace {

// srun answers as a node would: the step ran on n1 and the compiler ended with 0.
class NodeOne final : public io::ProcessRunner {
public:
  explicit NodeOne(io::FakeFilesystem& fs) : fs_(fs) {}
  std::vector<io::ProcessSpec> calls;
  std::string running_file;  // the launcher's running file as srun began, when it passed one
  io::ProcessResult run(const io::ProcessSpec& spec) override {
    calls.push_back(spec);
    if (spec.argv[0] != "srun") return io::ran("", 0);  // run here, not as a step
    if (auto it = spec.env->find("KILN_STEP_RUNNING"); it != spec.env->end())
      running_file = fs_.read(it->second).value_or("(missing)");
    fs_.write(spec.env->at("KILN_STEP_REPORT"),
              launch::format_step_report({.node = "n1", .step = "7.5", .finished = true, .wall_ms = 10}));
    return io::ran("", 0);
  }

private:
  io::FakeFilesystem& fs_;
};

}  // namespace

TEST(SlurmRoom, AUnitWaitsHereForTheCpusOfTheNodesLeftOnceANodeIsDead) {
  kiln::testing::TempDir tmp;
  // Another launcher's step holds both CPUs n1 has: a live process (ctest, our parent) that wrote it.
  const long other = static_cast<long>(::getppid());
  const auto start = io::system_processes().start_time(other);
  ASSERT_TRUE(start);
  const std::string ledger =
      tmp.write("ledger", fmt::format("pid={} kib=1048576 start={} threads=2 until=0 step=1\n", other, *start));
  io::FakeFilesystem fs;
  NodeOne slurm(fs);
  io::FakeClock clock;
  io::FakeEnvironment env{{{"KILN_SLURM_UNITS", "1"},
                           {"SLURM_JOB_ID", "7"},
                           {"KILN_SLURM_SELF", "/opt/kiln"},
                           {"KILN_SLURM_REPORTS", "/b/.kiln/steps"},
                           {"KILN_SLURM_NODES", "n1:2,n2:2"},
                           {"KILN_SLURM_NODE_CPUS", "2"},
                           {"KILN_LEDGER", ledger},
                           {"KILN_MEM_BUDGET_KIB", std::to_string(64ULL << 20)},
                           {"KILN_CORES", "4"}}};
  std::ostringstream out, err;
  io::Seams s{fs, slurm, clock, env, out, err};
  const std::vector<std::string> compile = {"c++", "-c", "a.cpp", "-o", "/b/a.o"};
  // Every node alive: two of the four CPUs are free, the unit is a step at once.
  ASSERT_EQ(launch::exec_compiler(compile, s), 0) << err.str();
  EXPECT_EQ(clock.now().time_since_epoch().count(), 0);
  EXPECT_EQ(err.str().find("waits here"), std::string::npos) << err.str();
  // n2 dead: n1's two CPUs are held, so the unit waits here (bounded: the governor's wait), not in srun.
  fs.add_file("/b/.kiln/steps/dead-n2", "down*\n");
  ASSERT_EQ(launch::exec_compiler(compile, s), 0) << err.str();
  EXPECT_NE(err.str().find("kiln exec: node n2 of Slurm allocation 7 is dead: /b/a.o waits here for one of the 2 "
                           "CPUs left (2 in use by this build's steps)"),
            std::string::npos)
      << err.str();
  EXPECT_GE(clock.now().time_since_epoch(), std::chrono::minutes(30));
  // A link is no step: it never waits for the nodes' CPUs.
  const auto before = clock.now();
  ASSERT_EQ(launch::exec_compiler({"true", "/b/a.o", "-o", "/b/m.so"}, s), 0) << err.str();
  EXPECT_EQ(clock.now(), before);
  // With one CPU of n1 free, it goes at once.
  tmp.write("ledger", fmt::format("pid={} kib=1048576 start={} threads=1 until=0 step=1\n", other, *start));
  const auto t1 = clock.now();
  ASSERT_EQ(launch::exec_compiler(compile, s), 0) << err.str();
  EXPECT_EQ(clock.now(), t1);
}

// Issue 35, on the GPU host: flash-attention's 16 units on 2 nodes of 8 CPUs each asked their
// grant's threads (4-5) as the step's CPUs, 64 of 16, and about four ran at a time (929 s against
// 407 s on the host alone). While the plan's other units still need a CPU each, a granted unit's
// step asks one; its threads share the node's CPUs as they share a machine's cores.
TEST(SlurmRoom, AGrantedUnitAsksOneCpuWhileOtherUnitsNeedTheirs) {
  kiln::testing::TempDir tmp;
  io::FakeFilesystem fs;
  std::string plan;
  for (int i = 0; i < 16; ++i) plan += fmt::format("unit\tfa\t16\tcuda\t1\t/b/u{}.o\t/p/u{}.cu\n", i, i);
  fs.add_file("/b/.kiln/unit-plan", plan);
  // u0 is the heaviest by far, so its grant is a share of the cores by weight (rule 5), not rule
  // 6b's threads at the weight of one: it weighs several CPUs, and must still ask one.
  auto source = [](int launches) {
    std::string body = "__global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n";
    for (int i = 0; i < launches; ++i) body += fmt::format("void launch{}(float* x) {{ k<<<1, 32>>>(x); }}\n", i);
    return body;
  };
  for (int i = 0; i < 16; ++i) fs.add_file(fmt::format("/p/u{}.cu", i), source(i == 0 ? 2000 : 20));
  NodeOne slurm(fs);
  io::FakeClock clock;
  const std::string ledger = tmp.write("ledger", "");
  const std::string exec_log = tmp.write("kiln-exec.jsonl", "");  // appended to on the real file system
  io::FakeEnvironment env{{{"KILN_SLURM_UNITS", "1"},
                           {"SLURM_JOB_ID", "7"},
                           {"KILN_SLURM_SELF", "/opt/kiln"},
                           {"KILN_SLURM_REPORTS", "/b/.kiln/steps"},
                           {"KILN_SLURM_NODES", "n1:8,n2:8"},
                           {"KILN_SLURM_NODE_CPUS", "8"},
                           {"KILN_LEDGER", ledger},
                           {"KILN_MEM_BUDGET_KIB", std::to_string(256ULL << 20)},
                           {"KILN_CORES", "16"},
                           {"KILN_SPLIT", "1"},
                           {"KILN_UNIT_PLAN", "/b/.kiln/unit-plan"},
                           {"KILN_RUNNING", "/b/.kiln/running"},
                           {"KILN_EXEC_LOG", exec_log}}};
  std::ostringstream out, err;
  io::Seams s{fs, slurm, clock, env, out, err};
  const std::vector<std::string> compile = {"nvcc", "-gencode", "arch=compute_90,code=sm_90", "-c", "/p/u0.cu",
                                            "-o",   "/b/u0.o"};
  ASSERT_EQ(launch::exec_compiler(compile, s), 0) << err.str();
  const auto step = std::find_if(slurm.calls.begin(), slurm.calls.end(),
                                 [](const io::ProcessSpec& p) { return p.argv[0] == "srun"; });
  ASSERT_NE(step, slurm.calls.end());
  const auto log =
      launch::parse_exec_log(std::string(std::istreambuf_iterator<char>(std::ifstream(exec_log).rdbuf()), {}));
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_GT(log.records[0].cores, 1) << "the unit was granted threads: " << log.records[0].grant;
  EXPECT_EQ(log.records[0].grant.find("CPU weight of 1"), std::string::npos) << log.records[0].grant;
  EXPECT_EQ(log.records[0].step_cpus, 1) << log.records[0].grant;
  // Queued until the node says the step began (kiln build's progress line, launch/running_units).
  EXPECT_NE(slurm.running_file.find(" queued=1 output=/b/u0.o"), std::string::npos) << slurm.running_file;
  EXPECT_NE(std::find(step->argv.begin(), step->argv.end(), "-c1"), step->argv.end())
      << fmt::format("{}", fmt::join(step->argv, " "));
}
