#include "launch/unit_plan.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/text.hpp"

namespace kiln::launch {
UnitPlan parse_unit_plan(const std::string& text) {
  UnitPlan plan;
  std::set<std::string> listed;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto f = core::split(line, '\t');
    if (f.size() == 2 && f[0] == "done") {
      plan.done.insert(f[1]);
      continue;
    }
    PlannedUnit u;
    const auto jobs = f.size() == 7 ? core::parse_count(f[2]) : std::nullopt;
    const auto targets = f.size() == 7 ? core::parse_count(f[4]) : std::nullopt;
    if (f.size() != 7 || f[0] != "unit" || !jobs || !targets || f[5].empty()) continue;
    u.jobs = *jobs;
    u.targets = *targets;
    u.group = f[1];
    u.cuda = f[3] == "cuda";
    u.output = f[5];
    u.source = f[6];
    if (listed.insert(u.output).second) plan.units.push_back(std::move(u));
  }
  return plan;
}

std::string plan_done_line(const std::string& output) { return "done\t" + output + "\n"; }

std::vector<PlannedUnit> starting_soon(const UnitPlan& plan, const std::set<std::string>& running_outputs,
                                       const std::string& me) {
  std::map<std::string, int> room;  // group -> slots its Ninja has left
  for (const auto& u : plan.units)
    if (!room.count(u.group)) room[u.group] = u.jobs > 0 ? u.jobs : 1 << 20;
  for (const auto& u : plan.units)
    if ((running_outputs.count(u.output) || u.output == me) && !plan.done.count(u.output)) --room[u.group];
  std::vector<PlannedUnit> out;
  for (const auto& u : plan.units) {
    if (u.output == me || running_outputs.count(u.output) || plan.done.count(u.output)) continue;
    if (room[u.group] <= 0) continue;
    --room[u.group];
    out.push_back(u);
  }
  return out;
}

std::vector<PlannedUnit> pool_takes(const std::vector<PlannedUnit>& soon, const std::vector<double>& weights,
                                    int room) {
  const size_t keep = static_cast<size_t>(std::max(0, room));
  if (soon.size() <= keep) return soon;
  std::vector<size_t> order(soon.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto weight = [&](size_t i) { return i < weights.size() ? weights[i] : 0.0; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
  order.resize(keep);
  std::sort(order.begin(), order.end());
  std::vector<PlannedUnit> out;
  for (size_t i : order) out.push_back(soon[i]);
  return out;
}

namespace {

// The units of the plan neither done, running nor `me`: those still to start, slot or not.
int units_not_started(const UnitPlan& plan, const std::set<std::string>& running_outputs, const std::string& me) {
  std::set<std::string> seen;
  for (const auto& u : plan.units)
    if (u.output != me && !running_outputs.count(u.output) && !plan.done.count(u.output)) seen.insert(u.output);
  return static_cast<int>(seen.size());
}

}  // namespace

int units_waiting(const UnitPlan& plan, const std::set<std::string>& running_outputs, const std::string& me) {
  const auto left = static_cast<size_t>(units_not_started(plan, running_outputs, me));
  return static_cast<int>(left - std::min(left, starting_soon(plan, running_outputs, me).size()));
}

}  // namespace kiln::launch
