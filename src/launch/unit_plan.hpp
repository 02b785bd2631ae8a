#pragma once
// The compile units a build is about to run, so that a thread grant knows who else is coming: the
// units that Ninja starts in the same millisecond arrive at the ledger one after another, and the
// first must not take the cores that the later, longer ones need (mamba's selective-scan build: the
// first five took 16/15/6/13/14 threads, the four longest one each).
//
// A driver that knows the build graph writes the plan (data/parallel_extensions.py, one group per
// extension's Ninja; a CMake project's Ninja dry run, drive/ninja_dry_run), KILN_UNIT_PLAN names it, and `kiln exec`
// appends a `done` line when a unit ends. Tab-separated lines, unknown ones skipped:
//   unit <group> <jobs> <cuda|cxx> <device targets> <output> <source>
//   done <output>
// <jobs> is that Ninja's -j (0: Ninja's default, treated as no limit).
#include <set>
#include <string>
#include <vector>

namespace kiln::launch {

struct PlannedUnit {
  std::string group;
  int jobs = 0;
  bool cuda = false;
  int targets = 0;
  std::string output, source;
};

struct UnitPlan {
  std::vector<PlannedUnit> units;  // in the order Ninja starts them (its file order)
  std::set<std::string> done;      // outputs whose compile ended
};

UnitPlan parse_unit_plan(const std::string& text);
std::string plan_done_line(const std::string& output);

// The units expected to start soon beside `me`: in each group, the first units neither done nor
// running, as many as that Ninja's -j leaves room for (me and its running units take their slots).
std::vector<PlannedUnit> starting_soon(const UnitPlan& plan, const std::set<std::string>& running_outputs,
                                       const std::string& me);

// Under the build's pool of compile slots (launch/compile_pool), of the units `soon` (starting_soon),
// those that `room` free slots take: the heaviest by `weights` (one per unit, on one scale), the
// earlier in the plan between equals, kept in the plan's order. The others wait for a slot.
std::vector<PlannedUnit> pool_takes(const std::vector<PlannedUnit>& soon, const std::vector<double>& weights, int room);

// The units of the plan that wait for a slot: neither done, running nor `me`, and beyond what their
// Ninja's -j lets start now (starting_soon). A unit about to start beside this one is not waiting.
int units_waiting(const UnitPlan& plan, const std::set<std::string>& running_outputs, const std::string& me);

}  // namespace kiln::launch
