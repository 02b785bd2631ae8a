#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process.hpp"
#include "fakes/environment.hpp"
#include "probe/slurm.hpp"
#include "test_support.hpp"

using namespace kiln;

namespace {

struct Rig : kiln::testing::FakeSeams {
  probe::SlurmTools t;
  Rig() {
    for (const auto& [k, v] : std::map<std::string, std::string>{{"SLURM_JOB_ID", "12"},
                                                                 {"SLURM_JOB_PARTITION", "gpu"},
                                                                 {"SLURM_JOB_NODELIST", "n[1-2]"},
                                                                 {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
                                                                 {"SLURM_MEM_PER_NODE", "16000"}})
      env.set(k, v);
    proc.on("squeue -h -j 12 -o %T %P", io::ran("RUNNING gpu\n"));
    proc.on("sinfo -h -p gpu -o %P", io::ran("gpu\n"));
    proc.on("scontrol show hostnames n[1-2]", io::ran("n1\nn2\n"));
  }
};

std::string line_of(const std::vector<std::string>& argv) {
  std::string k;
  for (const auto& a : argv) k += (k.empty() ? "" : " ") + a;
  return k;
}

}  // namespace

TEST(ProbeSlurm, CpusPerNode) {
  EXPECT_EQ(probe::parse_cpus_per_node("4(x2),2"), (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(probe::parse_cpus_per_node("16"), (std::vector<int>{16}));
  EXPECT_TRUE(probe::parse_cpus_per_node("").empty());
  EXPECT_TRUE(probe::parse_cpus_per_node("4(x").empty());
  EXPECT_TRUE(probe::parse_cpus_per_node("4(y2)").empty());
  EXPECT_TRUE(probe::parse_cpus_per_node("0").empty());
}

TEST(ProbeSlurm, AllocationFromEnvironmentAndSlurm) {
  Rig r;
  auto a = probe::detect_allocation(r.seams, r.t);
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(a->total_cpus(), 16);
  EXPECT_EQ(a->node_mem_kib, 16000ULL * 1024);
  EXPECT_EQ(a->partition, "gpu");
}

// A job that lost a node under `salloc --no-kill` runs on without it (seen with Slurm 22.05 on the
// e2e cluster: squeue -o %N says n1 while SLURM_JOB_NODELIST still says n[1-2]): the build uses the
// nodes the job has now, and says which it lost.
TEST(ProbeSlurm, ANodeTheJobLostIsDropped) {
  Rig r;
  r.proc.on("squeue -h -j 12 -o %N", io::ran("n2\n"));
  r.proc.on("scontrol show hostnames n2", io::ran("n2\n"));
  r.env.set("SLURM_JOB_CPUS_PER_NODE", "8,4");
  auto a = probe::detect_allocation(r.seams, r.t);
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->nodes, (std::vector<std::string>{"n2"}));
  EXPECT_EQ(a->cpus, (std::vector<int>{4}));
  EXPECT_EQ(a->lost, (std::vector<std::string>{"n1"}));
  r.proc.on("squeue -h -j 12 -o %N", io::ran("", 1));  // squeue silent: the variables are taken as they are
  a = probe::detect_allocation(r.seams, r.t);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->nodes.size(), 2u);
  EXPECT_TRUE(a->lost.empty());
}

TEST(ProbeSlurm, EachPreconditionHasItsOwnError) {
  {
    Rig r;
    io::FakeEnvironment none;
    io::Seams s{r.fs, r.proc, r.clock, none, r.out, r.err};
    auto a = probe::detect_allocation(s, r.t);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().find("not inside a Slurm allocation"), std::string::npos);
  }
  {
    Rig r;
    r.proc.on("squeue -h -j 12 -o %T %P", io::ran("", 1));
    auto a = probe::detect_allocation(r.seams, r.t);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().find("Slurm does not answer"), std::string::npos) << a.error();
  }
  {
    Rig r;
    r.proc.on("sinfo -h -p gpu -o %P", io::ran(""));
    auto a = probe::detect_allocation(r.seams, r.t);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().find("partition 'gpu' is not known"), std::string::npos) << a.error();
  }
}

TEST(ProbeSlurm, MemoryFromSinfoWhenTheJobAskedNone) {
  Rig r;
  r.env = io::FakeEnvironment{{{"SLURM_JOB_ID", "12"},
                               {"SLURM_JOB_PARTITION", "gpu"},
                               {"SLURM_JOB_NODELIST", "n[1-2]"},
                               {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"}}};
  r.proc.on("sinfo -h -N -n n1,n2 -o %m", io::ran("64000\n32000\n"));
  auto a = probe::detect_allocation(r.seams, r.t);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->node_mem_kib, 32000ULL * 1024);  // the smallest node bounds every step
}

TEST(ProbeSlurm, ProbeLinesGroupByNode) {
  auto by = probe::probe_lines_by_node("0: node n1\n1: node n2\n0: path 5 /b\n 1: missing /b\n");
  ASSERT_EQ(by.size(), 2u);
  EXPECT_EQ(by["n1"], (std::vector<std::string>{"path 5 /b"}));
  EXPECT_EQ(by["n2"], (std::vector<std::string>{"missing /b"}));
}

TEST(ProbeSlurm, NodeThatDoesNotSeeTheBuildFolderIsNamed) {
  Rig r;
  probe::Allocation a{.job_id = "12", .partition = "gpu", .nodes = {"n1", "n2"}, .cpus = {2, 2}};
  probe::NodeProbe p{.paths = {{"build folder", "/b"}}, .tools = {"/usr/bin/c++"}};
  const auto script = probe::probe_script_argv(p);
  EXPECT_EQ(script.back(), "/usr/bin/c++");  // paths and tools are arguments, never part of the script
  EXPECT_EQ(script[2].find("/b"), std::string::npos);
  r.proc.on(line_of(script), io::ran("node here\npath 5 /b\ntool /usr/bin/c++: c++ 12\n"));
  std::vector<std::string> step = {"srun",
                                   "--jobid=12",
                                   "--job-name=kiln-probe",
                                   "--overlap",
                                   "-N2",
                                   "-n2",
                                   "--ntasks-per-node=1",
                                   "--mem=0",
                                   "-l",
                                   "--quiet",
                                   "--"};
  step.insert(step.end(), script.begin(), script.end());
  r.proc.on(line_of(step), io::ran("0: node n1\n0: path 5 /b\n0: tool /usr/bin/c++: c++ 12\n1: node n2\n1: missing /b\n"
                                   "1: tool /usr/bin/c++: c++ 12\n"));
  auto ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 does not see the build folder /b"), std::string::npos) << ok.error();

  r.proc.on(line_of(step), io::ran("0: node n1\n0: path 5 /b\n0: tool /usr/bin/c++: c++ 12\n1: node n2\n1: path 5 /b\n"
                                   "1: tool /usr/bin/c++: c++ 11\n"));
  ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 runs another compiler"), std::string::npos) << ok.error();

  r.proc.on(line_of(step), io::ran("0: node n1\n0: path 5 /b\n0: tool /usr/bin/c++: c++ 12\n"));
  ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 did not answer"), std::string::npos) << ok.error();

  r.proc.on(line_of(step), io::ran("1: node n2\n1: path 5 /b\n1: tool /usr/bin/c++: c++ 12\n0: node n1\n0: path 5 /b\n"
                                   "0: tool /usr/bin/c++: c++ 12\n"));
  EXPECT_TRUE(probe::check_nodes(a, p, r.seams, r.t));
}

// Issue 34's pass over --slurm: a node that sees the build folder's path (same inode) but not this
// machine's folder, read-only or overlaid, answered the probe and then failed or lost its objects.
// A file exchanged both ways proves the folder is shared.
TEST(ProbeSlurm, ANodeWhoseFilesDoNotComeBackIsNamed) {
  Rig r;
  probe::Allocation a{.job_id = "12", .partition = "gpu", .nodes = {"n1", "n2"}, .cpus = {2, 2}};
  probe::NodeProbe p{.paths = {{"build folder", "/b"}}, .tools = {}, .exchange_dir = "/b/.kiln", .nonce = "77"};
  const auto script = probe::probe_script_argv(p);
  EXPECT_EQ(std::vector<std::string>(script.begin() + 4, script.begin() + 7),
            (std::vector<std::string>{"--exchange", "/b/.kiln", "77"}));
  r.proc.on(line_of(script), io::ran("node here\npath 5 /b\nexchange ok\n"));
  std::vector<std::string> step = {"srun",
                                   "--jobid=12",
                                   "--job-name=kiln-probe",
                                   "--overlap",
                                   "-N2",
                                   "-n2",
                                   "--ntasks-per-node=1",
                                   "--mem=0",
                                   "-l",
                                   "--quiet",
                                   "--"};
  step.insert(step.end(), script.begin(), script.end());
  // n2 cannot write there (or read this machine's file): named from its own answer.
  r.proc.on(line_of(step), io::ran("0: node n1\n0: path 5 /b\n0: exchange ok\n1: node n2\n1: path 5 /b\n"
                                   "1: exchange failed\n"));
  auto ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 does not share the build folder with this machine: it cannot read"),
            std::string::npos)
      << ok.error();
  EXPECT_TRUE(r.fs.exists("/b/.kiln/probe-77") == false);  // nothing is left (it was written, then removed)
  // Both say they wrote it, but only n1's file is here: n2 wrote into another folder.
  r.proc.on(line_of(step), io::ran("0: node n1\n0: path 5 /b\n0: exchange ok\n1: node n2\n1: path 5 /b\n"
                                   "1: exchange ok\n"));
  r.fs.add_file("/b/.kiln/probe-77-n1", "77\n");
  ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 does not share the build folder with this machine: it answered the probe, but "
                            "the file it wrote in /b/.kiln is not here (missing)"),
            std::string::npos)
      << ok.error();
  EXPECT_FALSE(r.fs.exists("/b/.kiln/probe-77-n1"));
  r.fs.add_file("/b/.kiln/probe-77-n1", "77\n");
  r.fs.add_file("/b/.kiln/probe-77-n2", "77\n");
  const auto last = probe::check_nodes(a, p, r.seams, r.t);
  EXPECT_TRUE(last) << last.error();
}

TEST(ProbeSlurm, CancelStepsOnlyThisBuildsAndWaitsTillGone) {
  Rig r;
  r.proc.on("squeue -h -s -j 12 -o %i %j %N", io::ran("12.4 kiln-9 n1\n12.5 other n1\n12.6 kiln-9 n2\n"));
  r.proc.on("scancel 12.4 12.6", io::ran(""));
  const auto t0 = r.clock.now();
  auto left = probe::cancel_steps("12", "kiln-9", r.seams, r.t);
  ASSERT_FALSE(left);  // the fake squeue keeps listing them
  EXPECT_NE(left.error().find("2 Slurm step(s) still listed 20 s after scancel"), std::string::npos) << left.error();
  // A loaded head node takes seconds to end a cancelled step: kiln waits for it, but not without bound.
  const auto waited = r.clock.now() - t0;
  EXPECT_GE(waited, std::chrono::seconds(20));
  EXPECT_LE(waited, std::chrono::seconds(22));
  int scancels = 0;
  for (const auto& c : r.proc.calls()) scancels += c.argv.front() == "scancel";
  EXPECT_GE(scancels, 10);  // asked again, not once
  r.proc.on("squeue -h -s -j 12 -o %i %j %N", io::ran("12.5 other n1\n"));
  auto none = probe::cancel_steps("12", "kiln-9", r.seams, r.t);
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0);
}

// Issue 35: when a node of a --no-kill job died, its step stayed listed as running there for good
// (Slurm 22.05.8 on the e2e cluster), and kiln waited the whole 20 s for it after every such build.
TEST(ProbeSlurm, AStepOnANodeTheJobLostIsCancelledButNotWaitedFor) {
  Rig r;
  r.proc.on("squeue -h -j 12 -o %N", io::ran("n1\n"));
  r.proc.on("scontrol show hostnames n1", io::ran("n1\n"));
  r.proc.on("squeue -h -s -j 12 -o %i %j %N", io::ran("12.6 kiln-9 n2\n"));
  r.proc.on("scancel 12.6", io::ran(""));
  const auto t0 = r.clock.now();
  auto done = probe::cancel_steps("12", "kiln-9", r.seams, r.t);
  ASSERT_TRUE(done) << done.error();
  EXPECT_EQ(*done, 1);
  EXPECT_LT(r.clock.now() - t0, std::chrono::seconds(1));
  int scancels = 0;
  for (const auto& c : r.proc.calls()) scancels += c.argv.front() == "scancel";
  EXPECT_EQ(scancels, 1);
}

// Issue 35: the pre-flight compared compilers and folders but not what a torch build reads on each
// node: the interpreter, and torch (its version.py says its version, CUDA and commit), compared by
// content so a copy installed on each node passes.
TEST(ProbeSlurm, ANodeWithAnotherTorchOrPythonIsNamed) {
  Rig r;
  probe::Allocation a{.job_id = "12", .partition = "gpu", .nodes = {"n1", "n2"}, .cpus = {2, 2}};
  probe::NodeProbe p{.paths = {{"build folder", "/b"}},
                     .tools = {"/v/bin/python"},
                     .tool_kinds = {{"/v/bin/python", "Python interpreter"}},
                     .files = {{"torch 2.4.0 (its version.py)", "/v/torch/version.py"}}};
  const auto script = probe::probe_script_argv(p);
  EXPECT_EQ(std::vector<std::string>(script.end() - 4, script.end()),
            (std::vector<std::string>{"--", "/v/bin/python", "--", "/v/torch/version.py"}));
  r.proc.on(line_of(script),
            io::ran("node here\npath 5 /b\ntool /v/bin/python: Python 3.11.2\nsum /v/torch/version.py: 123 400\n"));
  std::vector<std::string> step = {"srun",
                                   "--jobid=12",
                                   "--job-name=kiln-probe",
                                   "--overlap",
                                   "-N2",
                                   "-n2",
                                   "--ntasks-per-node=1",
                                   "--mem=0",
                                   "-l",
                                   "--quiet",
                                   "--"};
  step.insert(step.end(), script.begin(), script.end());
  const std::string n1 =
      "0: node n1\n0: path 5 /b\n0: tool /v/bin/python: Python 3.11.2\n0: sum /v/torch/version.py: 123 400\n";
  r.proc.on(line_of(step), io::ran(n1 + "1: node n2\n1: path 5 /b\n1: tool /v/bin/python: Python 3.11.2\n"
                                        "1: sum /v/torch/version.py: 999 401\n"));
  auto ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 has another torch 2.4.0 (its version.py) than this machine "
                            "(/v/torch/version.py: other content there)"),
            std::string::npos)
      << ok.error();
  r.proc.on(line_of(step), io::ran(n1 + "1: node n2\n1: path 5 /b\n1: tool /v/bin/python: Python 3.11.2\n"
                                        "1: sum /v/torch/version.py: missing\n"));
  ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("(/v/torch/version.py: missing there)"), std::string::npos) << ok.error();
  r.proc.on(line_of(step), io::ran(n1 + "1: node n2\n1: path 5 /b\n1: tool /v/bin/python: Python 3.9.2\n"
                                        "1: sum /v/torch/version.py: 123 400\n"));
  ok = probe::check_nodes(a, p, r.seams, r.t);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().find("node n2 runs another Python interpreter: here '/v/bin/python: Python 3.11.2'"),
            std::string::npos)
      << ok.error();
  r.proc.on(line_of(step), io::ran(n1 + "1: node n2\n1: path 5 /b\n1: tool /v/bin/python: Python 3.11.2\n"
                                        "1: sum /v/torch/version.py: 123 400\n"));
  EXPECT_TRUE(probe::check_nodes(a, p, r.seams, r.t));
}
