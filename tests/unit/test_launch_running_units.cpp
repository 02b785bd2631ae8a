// What runs now, as the launcher tells kiln build's progress line (issue 21 item 7): one file per
// compile while it runs, read in bounded steps, dead launchers' files cleaned up.
#include <gtest/gtest.h>

#include <sstream>

#include "fakes/process_table.hpp"
#include "fakes/fs.hpp"
#include "fakes/environment.hpp"
#include "binary_fixtures.hpp"
#include "io/process.hpp"
#include "launch/exec_launcher.hpp"
#include "launch/running_units.hpp"

using namespace kiln;
using launch::RunningUnit;

TEST(RunningUnits, OneLineReadBackWhateverTheOutputHolds) {
  const RunningUnit u{4242, 987, 1790000000123, "CMakeFiles/my proj.dir/a b.cu.o"};
  const auto back = launch::parse_running(launch::format_running(u));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->proc_start, 987u);
  EXPECT_EQ(back->start_ms, 1790000000123);
  EXPECT_EQ(back->output, u.output);
  // A line still being written (no newline yet), garbage, a missing field: not a unit.
  const std::string line = launch::format_running(u);
  EXPECT_FALSE(launch::parse_running(line.substr(0, line.size() - 1)));
  EXPECT_FALSE(launch::parse_running("hello\n"));
  EXPECT_FALSE(launch::parse_running("pid=1 start_ms=5 output=x\n"));
  EXPECT_FALSE(launch::parse_running("pid=0 proc_start=1 start_ms=5 output=x\n"));
  EXPECT_FALSE(launch::parse_running("pid=1 proc_start=1 start_ms=5 output=\n"));
}

// kiln build --slurm: a unit's file says it is queued until the step begins on a node, which then
// says so itself (the file is on the shared build folder), with the time it began.
TEST(RunningUnits, AStepIsQueuedUntilItsNodeSaysItBegan) {
  RunningUnit u{4242, 987, 1000, "obj/a b.o"};
  u.queued = true;
  const auto line = launch::format_running(u);
  EXPECT_EQ(line, "pid=4242 proc_start=987 start_ms=1000 queued=1 output=obj/a b.o\n");
  auto back = launch::parse_running(line);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->queued);
  EXPECT_EQ(back->output, "obj/a b.o");
  io::FakeFilesystem fs;
  fs.add_file("/b/.kiln/running/4242", line);
  ASSERT_TRUE(launch::mark_step_started(fs, "/b/.kiln/running/4242", "n2", 61'000));
  back = launch::parse_running(fs.read("/b/.kiln/running/4242").value_or(""));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->queued);
  EXPECT_EQ(back->node, "n2");
  EXPECT_EQ(back->start_ms, 61'000);
  EXPECT_EQ(back->pid, 4242);  // still the launcher's: its liveness decides whether the file stays
  EXPECT_EQ(back->output, "obj/a b.o");
  // No file (the launcher had none), or not one: nothing written.
  EXPECT_FALSE(launch::mark_step_started(fs, "/b/.kiln/running/7", "n2", 61'000));
  EXPECT_FALSE(fs.exists("/b/.kiln/running/7"));
  EXPECT_FALSE(launch::mark_step_started(fs, "", "n2", 61'000));
  // A word the reader does not know is not a unit (a newer writer's line is refused, not misread).
  EXPECT_FALSE(launch::parse_running("pid=1 proc_start=1 start_ms=5 later=3 output=x\n"));
  EXPECT_FALSE(launch::parse_running("pid=1 proc_start=1 start_ms=5x output=x\n"));
}

TEST(RunningUnits, LiveOnesOldestFirstDeadOnesRemovedHalfWrittenOnesKept) {
  io::FakeFilesystem fs;
  io::FakeProcessTable procs;
  procs.started = {{10, 100}, {11, 110}, {13, 130}};
  const std::string dir = "/b/.kiln/running";
  EXPECT_EQ(launch::mark_running(fs, dir, {10, 100, 5000, "late.o"}), dir + "/10");
  launch::mark_running(fs, dir, {11, 110, 2000, "early.o"});
  launch::mark_running(fs, dir, {12, 120, 1000, "dead.o"});    // its launcher was SIGKILLed
  launch::mark_running(fs, dir, {13, 999, 1500, "reused.o"});  // pid 13 is another process now
  fs.add_file(dir + "/14", "pid=14 proc_start=1 start_ms");    // being written
  const auto now = launch::running_units(fs, dir, procs);
  ASSERT_EQ(now.size(), 2u);
  EXPECT_EQ(now[0].output, "early.o");
  EXPECT_EQ(now[1].output, "late.o");
  EXPECT_FALSE(fs.exists(dir + "/12"));
  EXPECT_FALSE(fs.exists(dir + "/13"));
  EXPECT_TRUE(fs.exists(dir + "/14"));
  // Bounded: at most max_files files are read.
  EXPECT_EQ(launch::running_units(fs, dir, procs, 1).size(), 1u);
  EXPECT_TRUE(launch::running_units(fs, "/nowhere", procs).empty());
  EXPECT_TRUE(launch::running_units(fs, "", procs).empty());
}

TEST(RunningUnits, TheLauncherMarksItsCompileWhileItRunsOnly) {
  kiln::testing::TempDir tmp;
  const std::string dir = tmp / "running", seen = tmp / "seen";
  io::RealFilesystem fs;
  io::RealProcessRunner proc;
  io::RealClock clock;
  io::FakeEnvironment env(std::map<std::string, std::string>{{"KILN_RUNNING", dir}});
  std::ostringstream out, err;
  io::Seams s{fs, proc, clock, env, out, err};
  // The "compiler" copies what the running folder holds while it runs.
  const int rc =
      launch::exec_compiler({"sh", "-c", "cat '" + dir + "'/* > '" + seen + "'", "sh", "-o", "kern.cu.o"}, s);
  ASSERT_EQ(rc, 0) << err.str();
  const auto unit = launch::parse_running(kiln::testing::slurp(seen));
  ASSERT_TRUE(unit) << kiln::testing::slurp(seen);
  EXPECT_EQ(unit->output, "kern.cu.o");
  EXPECT_GT(unit->pid, 0);
  EXPECT_TRUE(fs.list(dir).empty()) << "the file stays after the compile";
  // A folder it cannot write does not stop the compile.
  io::FakeEnvironment bad(std::map<std::string, std::string>{{"KILN_RUNNING", "/proc/no/such/folder"}});
  io::Seams s2{fs, proc, clock, bad, out, err};
  EXPECT_EQ(launch::exec_compiler({"sh", "-c", "exit 3", "sh", "-o", "x.o"}, s2), 3);
}
