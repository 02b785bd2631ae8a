// kiln build --slurm: the CPUs a unit's step asks (launch/step_cpus).
#include <gtest/gtest.h>

#include "launch/step_cpus.hpp"

namespace kiln::launch {
namespace {

// flash-attention's 16 head-dim-64 units on 2 nodes of 8 CPUs (GPU host, issue 35): Ninja starts
// them at once; each grant had 4-5 threads. Asked as granted, the steps wanted 64 CPUs of 16 and
// about four ran at a time. Each must ask one while the others still need theirs.
TEST(StepCpus, AWaveAsLargeAsTheAllocationAsksOneCpuEach) {
  int asked = 0;
  for (int started = 0; started < 16; ++started) {
    const int c = step_cpus(5, StepRoom{.alloc_cpus = 16,
                                        .asked_by_running = asked,
                                        .running_steps = started,
                                        .beside = 15 - started,
                                        .node_cpus = 8});
    EXPECT_EQ(c, 1) << "unit " << started;
    asked += c;
  }
  EXPECT_LE(asked, 16);
}

// The tail: fewer units than CPUs, so a unit may take the CPUs nobody will ask.
TEST(StepCpus, TheLastUnitsTakeTheCpusNoUnitWillAsk) {
  // 3 units left of 16 CPUs, two running with 1 each: this one may have its whole grant.
  EXPECT_EQ(
      step_cpus(5, StepRoom{.alloc_cpus = 16, .asked_by_running = 2, .running_steps = 2, .beside = 0, .node_cpus = 8}),
      5);
  // Never more than a node has.
  EXPECT_EQ(
      step_cpus(12, StepRoom{.alloc_cpus = 16, .asked_by_running = 2, .running_steps = 2, .beside = 0, .node_cpus = 8}),
      8);
  // Two more to come: 16 - 10 asked - 2 kept for them = 4.
  EXPECT_EQ(
      step_cpus(6, StepRoom{.alloc_cpus = 16, .asked_by_running = 10, .running_steps = 3, .beside = 2, .node_cpus = 8}),
      4);
}

// A user's -j 4 on 16 CPUs: only three units may start beside this one, so the other CPUs are
// nobody's and a unit may take its grant.
TEST(StepCpus, ALowerJobsLeavesTheOtherCpusToTheUnitsRunning) {
  EXPECT_EQ(
      step_cpus(5, StepRoom{.alloc_cpus = 16, .asked_by_running = 0, .running_steps = 0, .beside = 3, .node_cpus = 8}),
      5);
  EXPECT_EQ(
      step_cpus(5, StepRoom{.alloc_cpus = 16, .asked_by_running = 10, .running_steps = 2, .beside = 1, .node_cpus = 8}),
      5);
  // Beside 12 of 16 asked and one more to come: 3.
  EXPECT_EQ(
      step_cpus(5, StepRoom{.alloc_cpus = 16, .asked_by_running = 12, .running_steps = 3, .beside = 1, .node_cpus = 8}),
      3);
}

// Without the unit plan the units to come are unknown: every slot Ninja may fill keeps its CPU.
TEST(StepCpus, UnknownWaitingKeepsACpuForEverySlot) {
  EXPECT_EQ(
      step_cpus(
          4,
          StepRoom{
              .alloc_cpus = 16, .asked_by_running = 3, .running_steps = 3, .beside = std::nullopt, .node_cpus = 8}),
      1);
  // An unknown allocation: the grant as it is (capped by the node).
  EXPECT_EQ(step_cpus(4, StepRoom{}), 4);
  EXPECT_EQ(step_cpus(0, StepRoom{}), 1);
}

// A full allocation (other steps asked more than their share) still asks one: the step waits in
// Slurm for a CPU, as a unit waits for a core.
TEST(StepCpus, AFullAllocationStillAsksOne) {
  EXPECT_EQ(step_cpus(4, StepRoom{.alloc_cpus = 4, .asked_by_running = 9, .running_steps = 3, .beside = 5}), 1);
}

}  // namespace
}  // namespace kiln::launch
