// The plan of units a build is about to run (launch/unit_plan.hpp): what starts soon beside a unit.
#include <gtest/gtest.h>

#include "drive/ninja_dry_run.hpp"
#include "launch/unit_plan.hpp"

using namespace kiln;

namespace {

std::vector<std::string> outputs(const std::vector<launch::PlannedUnit>& units) {
  std::vector<std::string> out;
  for (const auto& u : units) out.push_back(u.output);
  return out;
}

std::string unit_line(const std::string& group, int i) {
  return "unit\t" + group + "\t2\tcuda\t1\t" + group + std::to_string(i) + ".o\t" + group + ".cu\n";
}

}  // namespace

TEST(UnitPlan, ParsesUnitsAndDoneLinesSkippingTheRest) {
  auto plan = launch::parse_unit_plan(
      "unit\talpha\t2\tcuda\t1\t/b/a 1.o\t/p/a 1.cu\n"
      "unit\talpha\tx\tcuda\t1\t/b/bad.o\t/p/bad.cu\n"  // jobs not a number
      "garbage\n"
      "unit\tbeta\t0\tcxx\t0\t/b/b.o\t/p/b.cpp\n"
      "unit\talpha\t2\tcuda\t1\t/b/a 1.o\t/p/a 1.cu\n"  // listed twice (a rerun): once
      "done\t/b/b.o\n");
  ASSERT_EQ(plan.units.size(), 2u);
  EXPECT_EQ(plan.units[0].output, "/b/a 1.o");
  EXPECT_EQ(plan.units[0].source, "/p/a 1.cu");
  EXPECT_TRUE(plan.units[0].cuda);
  EXPECT_FALSE(plan.units[1].cuda);
  EXPECT_EQ(plan.done.count("/b/b.o"), 1u);
  EXPECT_EQ(launch::plan_done_line("/b/a.o"), "done\t/b/a.o\n");
}

TEST(UnitPlan, StartingSoonHonoursEachNinjasJobs) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += "unit\tA\t3\tcuda\t1\ta" + std::to_string(i) + ".o\ta.cu\n";
  for (int i = 0; i < 2; ++i) text += "unit\tB\t0\tcxx\t0\tb" + std::to_string(i) + ".o\tb.cpp\n";
  auto plan = launch::parse_unit_plan(text);
  // a0 arrives first: Ninja A (-j 3) starts two more beside it; Ninja B (no -j) both of its own.
  EXPECT_EQ(outputs(launch::starting_soon(plan, {}, "a0.o")),
            (std::vector<std::string>{"a1.o", "a2.o", "b0.o", "b1.o"}));
  // a1 and a2 running, a0 done, b0 done: a3 arriving leaves room for nothing more in A.
  plan.done = {"a0.o", "b0.o"};
  EXPECT_EQ(outputs(launch::starting_soon(plan, {"a1.o", "a2.o"}, "a3.o")), (std::vector<std::string>{"b1.o"}));
  // A unit not in the plan (a link, another build) takes no slot.
  EXPECT_EQ(outputs(launch::starting_soon(plan, {}, "other.o")).size(), 4u);
}

TEST(UnitPlan, WaitingAreTheUnitsNoSlotLetsStart) {
  std::string text;
  for (int i = 0; i < 6; ++i) text += "unit\tA\t2\tcuda\t1\ta" + std::to_string(i) + ".o\ta.cu\n";
  for (int i = 0; i < 3; ++i) text += "unit\tB\t16\tcuda\t1\tb" + std::to_string(i) + ".o\tb.cu\n";
  auto plan = launch::parse_unit_plan(text);
  // a0 arrives: A (-j 2) starts a1 beside it and a2..a5 wait; B's three all start (-j 16).
  EXPECT_EQ(launch::units_waiting(plan, {}, "a0.o"), 4);
  // A Ninja with more slots than units (grant_share's -j 16 for 10 units) has nobody waiting.
  EXPECT_EQ(launch::units_waiting(plan, {"a0.o", "a1.o"}, "b0.o"), 4);
  plan.done = {"a0.o", "a1.o", "a2.o", "a3.o"};
  EXPECT_EQ(launch::units_waiting(plan, {"a4.o"}, "b0.o"), 0);
}

// Three extensions' Ninjas at -j 2 under the build's pool of 2 slots (launch/compile_pool): of the
// five units their Ninjas let start beside a0, the one slot left goes to the heaviest, and the
// other four wait (apex: each unit's grant had shared the cores with 36 others "starting soon").
TEST(UnitPlan, ThePoolsFreeSlotsTakeTheHeaviestOfTheUnitsStartingSoon) {
  std::string text;
  for (const char* g : {"A", "B", "C"})
    for (int i = 0; i < 2; ++i) text += unit_line(g, i);
  auto plan = launch::parse_unit_plan(text);
  const auto soon = launch::starting_soon(plan, {}, "A0.o");
  ASSERT_EQ(outputs(soon), (std::vector<std::string>{"A1.o", "B0.o", "B1.o", "C0.o", "C1.o"}));
  const std::vector<double> weights{10, 20, 5, 40, 40};
  EXPECT_EQ(outputs(launch::pool_takes(soon, weights, 1)), (std::vector<std::string>{"C0.o"}));
  EXPECT_EQ(outputs(launch::pool_takes(soon, weights, 3)), (std::vector<std::string>{"B0.o", "C0.o", "C1.o"}));
  EXPECT_EQ(outputs(launch::pool_takes(soon, weights, 9)).size(), 5u);
  EXPECT_TRUE(launch::pool_takes(soon, weights, 0).empty());
  EXPECT_TRUE(launch::pool_takes(soon, weights, -1).empty());
}

TEST(UnitPlan, FromACMakeNinjaDryRun) {
  // `ninja -n -v` of a CMake CUDA project after configure: what it would run, in its order.
  const std::string dry =
      "ninja: Entering directory `build'\n"
      "[1/4] /k/kiln exec -- /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -O3 "
      "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -x cu -c /p/src/scan.cu "
      "-o CMakeFiles/k.dir/src/scan.cu.o\n"
      "[2/4] /k/kiln exec -- /usr/bin/c++ -O3 -o CMakeFiles/k.dir/src/host.cpp.o -c /p/src/host.cpp\n"
      "[3/4] : && /usr/bin/c++ -shared -o libk.so CMakeFiles/k.dir/src/scan.cu.o && :\n"
      "[4/4] cd /p/build && /usr/bin/cmake -E echo done\n";
  auto plan = launch::parse_unit_plan(drive::unit_plan_from_dry_run(dry, "build", 16));
  ASSERT_EQ(plan.units.size(), 2u);  // the link and the custom command are not compiles
  EXPECT_EQ(plan.units[0].output, "CMakeFiles/k.dir/src/scan.cu.o");
  EXPECT_EQ(plan.units[0].source, "/p/src/scan.cu");
  EXPECT_TRUE(plan.units[0].cuda);
  EXPECT_EQ(plan.units[0].targets, 2);
  EXPECT_EQ(plan.units[0].jobs, 16);
  EXPECT_FALSE(plan.units[1].cuda);
  EXPECT_EQ(plan.units[1].source, "/p/src/host.cpp");
  EXPECT_TRUE(
      launch::parse_unit_plan(drive::unit_plan_from_dry_run("ninja: no work to do.\n", "build", 16)).units.empty());
}
