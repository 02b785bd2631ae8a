// What `kiln build` shows between Ninja's status lines (issue 21 item 7): something from the first
// second, a clock that keeps moving, an estimate that counts down to "finishing", and logs that
// are never cut to 80 columns.
#include <gtest/gtest.h>

#include "cli/build_progress.hpp"

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
