#pragma once
// The order in which a Ninja should start its compile units: heaviest first, weighed exactly as
// kiln exec's thread grants weigh them (launch/unit_weight: learned CPU time, else the estimate from
// what the source and its project headers include and instantiate), so the unit the grants expect to be the longest is
// also the one that starts first. data/parallel_extensions.py asks for it before each extension's Ninja runs:
//   kiln exec --weigh PLAN_FILE   ->   "basis\t<basis>" then "<weight>\t<output>" per unit, heaviest
// first (equal weights keep the plan's order).
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "launch/learned_cost.hpp"
#include "launch/unit_plan.hpp"

namespace kiln::launch {

struct WeighedUnit {
  std::string output;
  double weight = 0;
};

struct PlanWeights {
  std::vector<WeighedUnit> units;  // heaviest first
  std::string basis;               // as unit_weights says
};

PlanWeights weigh_plan(const io::Filesystem& fs, const HistoryPlaces& at, const UnitPlan& plan);
std::string format_plan_weights(const PlanWeights& w);

// `kiln exec --weigh PLAN_FILE`: prints format_plan_weights; 1 with a one-line error when the file
// cannot be read.
int weigh_plan_command(const std::string& plan_file, io::Seams& s);

}  // namespace kiln::launch
