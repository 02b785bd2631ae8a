// The build progress text (cli/progress_text): bars, times and lines cut to a terminal's width.
#include <gtest/gtest.h>

#include "cli/progress_text.hpp"

using namespace kiln::cli;
using kiln::drive::NinjaStatus;

TEST(NinjaProgress, LineFitsWidth) {
  NinjaStatus s{20, 40, std::string(200, 'x')};
  auto line = progress_line(s, std::chrono::seconds(75), 80);
  EXPECT_EQ(line.size(), 79u);  // the last column stays free: a full row wraps
  EXPECT_EQ(line.substr(0, 23), "[==========>         ] ");
  EXPECT_NE(line.find("20/40  1m15s left"), std::string::npos) << line;
}

TEST(NinjaProgress, NarrowTerminalsDropTheBarAndNeverWrap) {
  NinjaStatus s{3, 340, "Building CUDA object CMakeFiles/minitorch_kernels.dir/kernels/softmax.cu.o"};
  for (size_t width : {20u, 40u, 60u, 80u, 132u}) {
    auto line = progress_line(s, std::chrono::seconds(117), width);
    EXPECT_LT(line.size(), width) << line;
    EXPECT_NE(line.find("3/340"), std::string::npos) << line;
  }
  EXPECT_EQ(progress_line(s, std::nullopt, 40).front(), '3');  // no room for the bar
  EXPECT_EQ(progress_line(s, std::nullopt, 132).front(), '[');
}

TEST(NinjaProgress, CutsNeverSplitACharacter) {
  EXPECT_EQ(fit_columns("caf\xc3\xa9s", 4), "caf\xc3\xa9");
  EXPECT_EQ(fit_columns("\xe2\x82\xac\xe2\x82\xac", 1), "\xe2\x82\xac");
  EXPECT_EQ(fit_columns("abc", 10), "abc");
}

// Issue 21 item 7: what the line says while a build runs.
TEST(NinjaProgress, NamesAreCutKeepingTheFileName) {
  const std::string d = "Building CUDA object CMakeFiles/minitorch_kernels.dir/kernels/very/deep/folder/softmax.cu.o";
  for (size_t cols : {30u, 45u, 60u}) {
    const auto cut = fit_keeping_end(d, cols);
    EXPECT_LE(cut.size(), cols) << cut;
    EXPECT_NE(cut.find("softmax.cu.o"), std::string::npos) << cut;
  }
  EXPECT_EQ(fit_keeping_end(d, 60).rfind("Building CUDA object ...", 0), 0u) << fit_keeping_end(d, 60);
  EXPECT_EQ(fit_keeping_end("short", 60), "short");
  NinjaStatus s{3, 340, d};
  const auto line = progress_line(s, std::chrono::seconds(117), 80);
  EXPECT_LT(line.size(), 80u);
  EXPECT_NE(line.find("softmax.cu.o"), std::string::npos) << line;
}

TEST(NinjaProgress, LogsAreNotCutAndNoZeroSecondsLeft) {
  NinjaStatus s{339, 340, std::string(150, 'x') + "/end.o"};
  const auto log = progress_line(s, std::chrono::seconds(0), 0, std::chrono::seconds(95));
  EXPECT_NE(log.find(std::string(150, 'x') + "/end.o"), std::string::npos) << log;
  EXPECT_NE(log.find("1m35s"), std::string::npos) << log;
  EXPECT_NE(log.find("finishing"), std::string::npos) << log;
  EXPECT_EQ(log.find("0s left"), std::string::npos) << log;
  EXPECT_EQ(eta_text(std::chrono::seconds(80)), "1m20s left");
  EXPECT_EQ(eta_text(std::nullopt), "");
}

TEST(ProgressText, AProjectsScopeComesBeforeTheStep) {
  kiln::drive::NinjaStatus s{1, 7, "c++ -c b1.cpp", "pkg.b (0/3 extensions)"};
  EXPECT_NE(progress_line(s, std::nullopt, 0).find("pkg.b (0/3 extensions): c++ -c b1.cpp"), std::string::npos);
}

// A Ninja rule with no description shows its command: the step is named by its output instead.
TEST(ProgressText, ACommandIsNamedByItsOutput) {
  EXPECT_EQ(step_text("/usr/bin/c++ -MMD -MF x.o.d -I/a -c /w/x.cpp -o /w/b/x.o -O3"), "compiling /w/b/x.o");
  EXPECT_EQ(step_text("c++ /w/b/x.o /w/b/y.o -shared -o '/w/b/_C.so'"), "linking /w/b/_C.so");
  EXPECT_EQ(step_text("nvcc --compile k.cu -o k.o"), "compiling k.o");
  // Descriptions that are words stay as they are; a lone -o at the end names nothing.
  EXPECT_EQ(step_text("Building CUDA object CMakeFiles/k.dir/a.cu.o"), "Building CUDA object CMakeFiles/k.dir/a.cu.o");
  EXPECT_EQ(step_text("cc -c a.c -o"), "cc -c a.c -o");
  const NinjaStatus st{3, 9, "/usr/bin/c++ " + std::string(400, 'f') + " -c a.cpp -o /b/a.o", ""};
  EXPECT_TRUE(progress_line(st, std::nullopt, 0).ends_with("] 3/9  compiling /b/a.o")) << progress_line(st, {}, 0);
}
