// CPU priority among the compiles running at once (launch/unit_priority.hpp): the longest keeps
// nice 0, the others are raised by how much sooner they should end, never beyond max_nice.
#include <gtest/gtest.h>

#include "launch/unit_priority.hpp"

using namespace kiln;

namespace {

launch::PriorityPolicy policy() {
  return {.step = 1.25, .max_nice = 8, .max_nice_estimated = 4, .serial_fraction = 0.3};
}

launch::PeerUnit peer(double estimate, int threads = 1) { return {{estimate, std::nullopt}, threads}; }

}  // namespace

TEST(UnitPriority, DurationIsAmdahlsLaw) {
  EXPECT_DOUBLE_EQ(launch::unit_duration(100, 1, policy()), 100);
  EXPECT_DOUBLE_EQ(launch::unit_duration(100, 4, policy()), 100 * (0.3 + 0.7 / 4));
  EXPECT_DOUBLE_EQ(launch::unit_duration(100, 0, policy()), 100);  // no threads counts as one
}

TEST(UnitPriority, TheLongestKeepsNiceZeroTheOthersYield) {
  // apex's shape (estimates of data/unit_cost.toml): a megatron softmax .cu on 8 threads beside C++
  // units with <torch/extension.h> and multi-tensor .cu files on one thread each.
  const std::vector<launch::PeerUnit> peers = {peer(48), peer(48), peer(40), peer(40), peer(235, 8)};
  // The C++ unit: 48 s against the softmax unit's 235 x (0.3 + 0.7 / 8) = 91 s: log(91/48)/log(1.25).
  auto cpp = launch::decide_priority({48, std::nullopt}, 1, peers, policy());
  EXPECT_EQ(cpp.nice, 3);
  EXPECT_NE(cpp.why.find("nice 3: expected 53% of the longest"), std::string::npos) << cpp.why;
  // The longest itself, and a unit as long as it.
  EXPECT_EQ(launch::decide_priority({235, std::nullopt}, 8, peers, policy()).nice, 0);
  EXPECT_EQ(launch::decide_priority({91, std::nullopt}, 1, peers, policy()).nice, 0);
  // A tiny unit known only by its estimate is raised at most max_nice_estimated, so that a wrong
  // estimate still progresses; one learned to be that short, as far as max_nice.
  EXPECT_EQ(launch::decide_priority({1, std::nullopt}, 1, peers, policy()).nice, 4);
  const std::vector<launch::PeerUnit> learned_peers = {{{235, 235'000L}, 8}};
  EXPECT_EQ(launch::decide_priority({1, 1'000L}, 1, learned_peers, policy()).nice, 8);
}

TEST(UnitPriority, LearnedAndEstimatedWorkShareOneScale) {
  // The running unit was learned at 120 s of CPU with an estimate of 60: estimates count double.
  const std::vector<launch::PeerUnit> peers = {{{60, 120'000L}, 1}};
  // This one's estimate, 30, is 60 s on that scale: half of the longest, nice 3.
  EXPECT_EQ(launch::decide_priority({30, std::nullopt}, 1, peers, policy()).nice, 3);
}

TEST(UnitPriority, NothingKnownFavoursNone) {
  auto p = launch::decide_priority({0, std::nullopt}, 1, {peer(0), peer(0, 4)}, policy());
  EXPECT_EQ(p.nice, 0);
  EXPECT_TRUE(p.why.empty());
  // This unit unknown beside known ones: it weighs their mean, but is not raised on a guess.
  EXPECT_EQ(launch::decide_priority({0, std::nullopt}, 1, {peer(500)}, policy()).nice, 0);
  // Alone: nothing to yield to.
  p = launch::decide_priority({10, std::nullopt}, 1, {}, policy());
  EXPECT_EQ(p.nice, 0);
  EXPECT_TRUE(p.why.empty());
}

TEST(UnitPriority, ThePolicyIsTheEmbeddedData) {
  const auto p = launch::PriorityPolicy::from_data();
  EXPECT_DOUBLE_EQ(p.step, 1.25);
  EXPECT_GT(p.max_nice, 0);
  EXPECT_GT(p.max_nice_estimated, 0);
  EXPECT_LE(p.max_nice_estimated, p.max_nice);
  EXPECT_GT(p.serial_fraction, 0);
  EXPECT_LT(p.serial_fraction, 1);
}

TEST(UnitPriority, ACompilesShareWeighsItsThreadsAtItsNice) {
  // Every core at nice 0 is the scale's top: nice 0.
  EXPECT_EQ(launch::share_nice(16, 0, 16, policy()), 0);
  // mamba's backward units on the GPU host's 16 cores: 5 threads at nice 0 weigh 5/16 of the top,
  // log(16/5)/log(1.25) = 5.2 levels; a forward unit on 3 threads at nice 3: 7.5 + 3.
  EXPECT_EQ(launch::share_nice(5, 0, 16, policy()), 5);
  EXPECT_EQ(launch::share_nice(3, 3, 16, policy()), 11);
  // Two compiles' weights keep the ratio their threads had at their nice: 8 threads at nice 0
  // against 1 thread at nice 4 is 8 x 1.25^4 = 19.5 = 1.25^13.3 apart.
  EXPECT_EQ(launch::share_nice(1, 4, 16, policy()) - launch::share_nice(8, 0, 16, policy()), 13);
  // Within 0..19: more threads than cores is still the top, a tiny weight the bottom.
  EXPECT_EQ(launch::share_nice(32, 0, 16, policy()), 0);
  EXPECT_EQ(launch::share_nice(1, 8, 16, policy()), 19);
  EXPECT_EQ(launch::share_nice(0, -3, 0, policy()), 0);
}
