// What `kiln build` shows between Ninja's status lines (issue 21 item 7): something from the first
// second, a clock that keeps moving, an estimate that counts down to "finishing", and logs that
// are never cut to 80 columns.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "cli/build_progress.hpp"
#include "io/process.hpp"
#include "test_support.hpp"

using namespace kiln;
using std::chrono::seconds;

TEST(BuildProgress, TheFirstStepShowsSomethingWithElapsedTime) {
  EXPECT_EQ(cli::starting_line(seconds(4), 80), "building 4s  (first steps running)");
  EXPECT_LT(cli::starting_line(seconds(4), 12).size(), 12u);
}

TEST(BuildProgress, TheEstimateCountsDownBetweenStatusLinesAndStopsAtZero) {
  EXPECT_EQ(cli::eta_after(seconds(30), seconds(12)), seconds(18));
  EXPECT_EQ(cli::eta_after(seconds(3), seconds(8)), seconds(0));
  EXPECT_EQ(cli::eta_after(std::nullopt, seconds(8)), std::nullopt);
}

TEST(BuildProgress, LogsGetWholeLinesTerminalsTheirWidth) {
  io::Terminal pipe;
  pipe.tty = false;
  pipe.columns = 80;
  io::Terminal tty;
  tty.tty = true;
  tty.columns = 100;
  EXPECT_EQ(cli::line_width(pipe), 0u);
  EXPECT_EQ(cli::line_width(tty), 100u);
  const std::string cmake(120, 'c');
  EXPECT_NE(cli::configure_line(seconds(7), cmake, cli::line_width(pipe)).find(cmake), std::string::npos);
  EXPECT_LT(cli::configure_line(seconds(7), cmake, cli::line_width(tty)).size(), 100u);
}

// The line names the compile that runs longest now with its time, not the last step Ninja finished.
TEST(BuildProgress, TheRunningUnitIsShownWithItsTime) {
  const std::vector<launch::RunningUnit> units{{11, 1, 40'000, "CMakeFiles/k.dir/late.cu.o"},
                                               {10, 1, 5'000, "CMakeFiles/k.dir/softmax.cu.o"}};
  const auto r = cli::longest_running(units, 70'500);
  ASSERT_TRUE(r);
  EXPECT_EQ(cli::running_text(*r), "CMakeFiles/k.dir/softmax.cu.o running 1m05s (+1 more)");
  EXPECT_FALSE(cli::longest_running({}, 70'500));
  EXPECT_EQ(cli::longest_running(units, 0)->elapsed, seconds(0));  // a clock set back
  // Cut to a terminal's width, the file name and the time stay.
  const auto line = cli::starting_line(seconds(4), 60, r);
  EXPECT_LT(line.size(), 60u);
  EXPECT_NE(line.find("softmax.cu.o running 1m05s (+1 more)"), std::string::npos) << line;
  EXPECT_EQ(line.rfind("building 4s  ", 0), 0u);
}

// kiln build --slurm on the GPU host (issue 35): 15 of 16 units waited in srun for CPUs while the
// line said "(+15 more)" running. A step not begun on a node is counted apart, and neither named
// as the longest running nor given to the ETA as running.
TEST(BuildProgress, StepsQueuedInSlurmAreNotShownAsRunning) {
  std::vector<launch::RunningUnit> units{{10, 1, 5'000, "/w/a.o"}, {11, 1, 1'000, "/w/b.o"}, {12, 1, 2'000, "/w/c.o"}};
  units[1].queued = units[2].queued = true;
  const auto r = cli::longest_running(units, 70'500);
  ASSERT_TRUE(r);
  EXPECT_EQ(cli::running_text(*r), "/w/a.o running 1m05s (2 queued in Slurm)");
  EXPECT_EQ(cli::running_at(*r, std::chrono::milliseconds(0), {}).size(), 1u);
  units.push_back({13, 1, 9'000, "/w/d.o"});
  EXPECT_EQ(cli::running_text(*cli::longest_running(units, 70'500)),
            "/w/a.o running 1m05s (+1 more, 2 queued in Slurm)");
  units[0].queued = units[3].queued = true;
  EXPECT_EQ(cli::running_text(*cli::longest_running(units, 70'500)), "4 compiles queued in Slurm");
}

// The launcher's files are read once a second: at a status line the list may still hold the
// compile the line reports ended, and each time in it is up to a second old.
TEST(BuildProgress, TheEtaIsToldWhatRunsAtTheStatusLine) {
  const std::vector<launch::RunningUnit> units{{10, 1, 5'000, "/w/build/temp/a.o"},
                                               {11, 1, 40'000, "/w/build/temp/b.o"}};
  const auto read = cli::longest_running(units, 70'500);
  ASSERT_TRUE(read);
  using std::chrono::milliseconds;
  using Running = std::vector<drive::RunningCompile>;
  EXPECT_EQ(cli::running_at(*read, milliseconds(400), {}),
            (Running{{"/w/build/temp/a.o", milliseconds(65'900)}, {"/w/build/temp/b.o", milliseconds(30'900)}}));
  // a.o ended (a cpp_extension's line names the -o as given; a CMake one relative to the build folder).
  EXPECT_EQ(cli::running_at(*read, milliseconds(400), {"starting", "/w/build/temp/a.o"}),
            (Running{{"/w/build/temp/b.o", milliseconds(30'900)}}));
  EXPECT_EQ(cli::running_at(*read, milliseconds(400), {"temp/b.o"}),
            (Running{{"/w/build/temp/a.o", milliseconds(65'900)}}));
  EXPECT_EQ(cli::running_at(*read, milliseconds(400), {"p/b.o"}).size(), 2u);  // not at a folder boundary
}

TEST(BuildProgress, TheTickerAsksWhatRunsAndDrawsIt) {
  kiln::testing::FakeSeams rig;
  io::Seams& s = rig.seams;
  std::atomic<int> asked{0};
  {
    cli::BuildProgress p(
        s,
        [] {
          io::Terminal t;
          t.tty = true;
          t.columns = 200;
          return t;
        },
        drive::EtaModel({}, 2),
        [&] {
          ++asked;
          return cli::RunningNow{"CMakeFiles/k.dir/softmax.cu.o", seconds(65), 3};
        });
    auto sink = p.sink();
    sink.on_step("build", true);
    sink.on_status({1, 10, "Building CUDA object CMakeFiles/k.dir/done.cu.o", "pkg.b (1/3 extensions)"},
                   std::chrono::milliseconds(1000));
    // The second question comes after the first answer was drawn.
    for (int i = 0; i < 100 && asked < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    p.finish();
  }
  ASSERT_GE(asked.load(), 2);
  const std::string text = rig.err.str();
  // The project's scope stays; the step is the running one.
  const auto drawn = text.rfind("pkg.b (1/3 extensions): CMakeFiles/k.dir/softmax.cu.o running 1m05s (+2 more)");
  ASSERT_NE(drawn, std::string::npos) << text;
  EXPECT_NE(text.substr(drawn - 40, 40).find("1/10"), std::string::npos) << text;
}

// A log on the GPU host (issue 21): after the wheel's build step, the install step said "building 0s
// (first steps running)" before "built ...". A step that runs no Ninja names itself; and a
// cpp_extension status line, whose description is the nvcc command, shows the output it compiles.
TEST(BuildProgress, ALogNamesStepsWithoutNinjaAndCompilesByTheirOutput) {
  kiln::testing::FakeSeams rig;
  io::Seams& s = rig.seams;
  // cpp_extension's cuda_compile rule as its build.ninja writes it (torch/utils/cpp_extension.py):
  // no description, so Ninja prints the command.
  const std::string obj = "/w/ext/build/temp.linux-x86_64-cpython-311/csrc/softmax.o";
  const std::string command =
      "/usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output " + obj +
      ".d -I/w/ext/csrc -I/venv/lib/python3.11/site-packages/torch/include " + std::string(300, 'I') +
      " -c -c /w/ext/csrc/softmax.cu -o " + obj +
      " -D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 "
      "-DTORCH_EXTENSION_NAME=_C -std=c++17";
  {
    cli::BuildProgress p(
        s, [] { return io::Terminal{}; }, drive::EtaModel({}, 2));
    auto sink = p.sink();
    sink.on_step("build", true);
    sink.on_status({2, 2, command, ""}, std::chrono::milliseconds(1000));
    sink.on_step("build", false);
    sink.on_step("install", true);
    sink.on_step("install", false);
    p.finish();
  }
  const std::string text = rig.err.str();
  std::istringstream lines(text);
  std::vector<std::string> seen;
  for (std::string line; std::getline(lines, line);) seen.push_back(line);
  ASSERT_EQ(seen.size(), 3u) << text;
  EXPECT_EQ(seen[0], "building 0s  (first steps running)");
  EXPECT_NE(seen[1].find("] 2/2  0s  "), std::string::npos) << seen[1];
  EXPECT_TRUE(seen[1].ends_with("  compiling " + obj)) << seen[1];
  EXPECT_LT(seen[1].size(), 120u);
  EXPECT_EQ(seen[2], "install 0s");
}
