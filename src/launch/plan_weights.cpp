#include "launch/plan_weights.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "launch/unit_weight.hpp"

namespace kiln::launch {

PlanWeights weigh_plan(const io::Filesystem& fs, const HistoryPlaces& at, const UnitPlan& plan) {
  std::vector<UnitWork> work;
  for (const auto& u : plan.units)
    work.push_back({estimate_work(fs, u.source, u.cuda ? std::max(1, u.targets) : 0),
                    learned_cpu(learned_cost(fs, at, u.output, u.source).history)});
  auto w = unit_weights(work);
  PlanWeights out;
  out.basis = w.basis;
  for (size_t i = 0; i < plan.units.size(); ++i)
    out.units.push_back({plan.units[i].output, i < w.w.size() ? w.w[i] : 0});
  std::stable_sort(out.units.begin(), out.units.end(),
                   [](const WeighedUnit& a, const WeighedUnit& b) { return a.weight > b.weight; });
  return out;
}

std::string format_plan_weights(const PlanWeights& w) {
  std::string out = "basis\t" + w.basis + "\n";
  for (const auto& u : w.units) out += fmt::format("{:.0f}\t{}\n", u.weight, u.output);
  return out;
}

int weigh_plan_command(const std::string& plan_file, io::Seams& s) {
  auto text = s.fs.read(plan_file);
  if (!text) {
    s.err << "kiln exec --weigh: cannot read the unit plan " << plan_file << "\n";
    return 1;
  }
  s.out << format_plan_weights(weigh_plan(s.fs, HistoryPlaces::from_env(s.env), parse_unit_plan(*text)));
  return 0;
}

}  // namespace kiln::launch
