// A launcher killed with SIGKILL takes its child and the child's children with it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "io/process.hpp"
#include "io/process_table.hpp"
#include "io/tree_guard.hpp"

using namespace kiln;
using namespace std::chrono_literals;

namespace {

// The pids whose parent is this process, zombies included, from /proc.
std::set<pid_t> children_of_this_process() {
  std::set<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    if (std::getline(in, stat) && io::parse_stat_ppid(stat.data(), stat.size()) == ::getpid())
      out.insert(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

}  // namespace

TEST(TreeGuard, ParentPidFromStatAndDescendants) {
  const char stat[] = "77 (cc1plus (x) y) R 76 77 1 0 -1";
  EXPECT_EQ(io::parse_stat_ppid(stat, sizeof stat - 1), 76);
  EXPECT_EQ(io::parse_stat_ppid("garbage", 7), 0);
  // 10 -> 11 -> 12, 10 -> 13; 20 is unrelated.
  const pid_t pids[] = {11, 12, 13, 20, 10};
  const pid_t ppids[] = {10, 11, 10, 1, 5};
  pid_t out[8];
  const size_t n = io::descendants(10, pids, ppids, 5, out, 8);
  std::vector<pid_t> got(out, out + n);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<pid_t>{11, 12, 13}));
}

// The issue: `kill -9` of `kiln exec` left its compiler running. Here a forked "launcher" runs a
// shell whose grandchild records its pid; the launcher is SIGKILLed; both must be gone.
TEST(TreeGuard, SigkillOfTheLauncherKillsTheWholeTree) {
  const auto dir = std::filesystem::temp_directory_path() / ("kiln-guard-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string pidfile = (dir / "grandchild").string();
  pid_t launcher = ::fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    io::RealProcessRunner proc;
    io::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "sleep 300 & echo $! > " + pidfile + ".tmp; mv " + pidfile + ".tmp " + pidfile + "; wait"};
    spec.die_with_caller = true;
    proc.run(spec);
    ::_exit(0);
  }
  pid_t grandchild = 0;
  for (int i = 0; i < 200 && !grandchild; ++i) {
    std::ifstream in(pidfile);
    if (!(in >> grandchild)) grandchild = 0, std::this_thread::sleep_for(25ms);
  }
  ASSERT_GT(grandchild, 0) << "the shell never started";
  ASSERT_TRUE(io::system_processes().start_time(grandchild));
  ::kill(launcher, SIGKILL);
  ::waitpid(launcher, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = !io::system_processes().start_time(grandchild);  // a zombie counts as gone
    if (!gone) std::this_thread::sleep_for(25ms);
  }
  if (!gone) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone) << "the compile outlived its launcher";
  std::filesystem::remove_all(dir);
}

TEST(TreeGuard, ANormalFinishLeavesNothingBehind) {
  io::RealProcessRunner proc;
  io::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo hi"};
  spec.die_with_caller = true;
  const auto before = children_of_this_process();
  auto r = proc.run(spec);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "hi\n");
  // The guard was reaped: no child of ours (a zombie included) is left that was not there before.
  // Only the new ones: in the one-process unit run, other tests' children are not this test's.
  EXPECT_EQ(children_of_this_process(), before);
}

// Issue 34, case 5: Ninja killed by SIGKILL (or the OOM killer) left its compiles running; kiln
// exited and freed the build lock while they wrote into the folder. A step's orphans are now
// killed and reaped before the step returns, while the caller (the build lock's holder) waits.
TEST(TreeGuard, AStepKilledOutrightLeavesNoJobBehind) {
  int was = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &was);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // as kiln is during a build (io/interrupt)
  char tmpl[] = "/tmp/kiln-orphans-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string pids = dir + "/pids";
  io::RealProcessRunner runner;
  io::ProcessSpec spec;
  // Like Ninja: jobs in groups of their own, their output not on the step's pipes; then the tool dies.
  spec.argv = {"/bin/sh", "-c",
               "setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $! >> " + pids +
                   "; sh -c 'sleep 300' >/dev/null 2>&1 </dev/null & echo $! >> " + pids + "; sleep 0.2; kill -9 $$"};
  spec.new_process_group = true;
  const auto r = runner.run(spec);
  ::prctl(PR_SET_CHILD_SUBREAPER, was);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_GE(r.orphans_killed, 2);
  std::ifstream in(pids);
  int n = 0;
  for (long pid; in >> pid; ++n)
    EXPECT_NE(::kill(static_cast<pid_t>(pid), 0), 0) << "pid " << pid << " outlived its step";
  EXPECT_EQ(n, 2);
  std::filesystem::remove_all(dir);
}
