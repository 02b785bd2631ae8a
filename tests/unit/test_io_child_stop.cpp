#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "io/child_stop.hpp"
#include "io/process.hpp"

using namespace kiln;

// A stop while planning (issue 23): no probe starts after it, the one running gets the signal.
TEST(ChildStop, NoChildStartsAfterAStopAndOneStartsAgainWhenAllowed) {
  io::RealProcessRunner proc;
  io::stop_children(SIGTERM);
  EXPECT_EQ(io::children_stopped(), SIGTERM);
  auto r = proc.run({.argv = {"true"}});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.spawn_error.find("not started: kiln is stopping"), std::string::npos) << r.spawn_error;
  io::allow_children();
  EXPECT_EQ(io::children_stopped(), 0);
  EXPECT_TRUE(proc.run({.argv = {"true"}}).ok());
}

TEST(ChildStop, TheChildRunningGetsTheSignal) {
  io::RealProcessRunner proc;
  const auto t0 = std::chrono::steady_clock::now();
  io::ProcessSpec spec{.argv = {"sh", "-c", "echo started; exec sleep 30"}};
  spec.on_line = [](std::string_view line) {  // the child runs: stop now, as the handler would
    if (line == "started") io::stop_children(SIGTERM);
  };
  auto r = proc.run(spec);
  io::allow_children();
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}
