#include "launch/slurm_nodes.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <sstream>

namespace kiln::launch {

bool node_state_dead(const std::string& t) {
  if (t.empty()) return false;
  if (t.find_first_of("*~") != std::string::npos) return true;
  std::string base = t;
  while (!base.empty() && !std::isalpha(static_cast<unsigned char>(base.back()))) base.pop_back();
  return base == "down" || base == "fail" || base == "failg" || base == "unk";
}

std::vector<std::string> NodeHealth::dead_names() const {
  std::vector<std::string> out;
  for (const auto& [node, state] : dead) out.push_back(node);
  return out;
}

std::string NodeHealth::dead_text() const {
  std::string out;
  for (const auto& [node, state] : dead) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", node, state);
  return out;
}

NodeHealth allocation_health(const std::string& sinfo, const std::vector<std::string>& nodes, io::Seams& s) {
  NodeHealth h;
  if (nodes.empty()) return h;
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  auto r = s.proc.run({.argv = {sinfo, "-h", "-N", "-n", list, "-o", "%N %t"}});
  if (!r.ok()) {
    h.left = nodes;
    return h;
  }
  h.known = true;
  // A node in two partitions is listed twice: the worse state wins.
  std::map<std::string, std::string> state;
  std::istringstream in(r.out);
  for (std::string node, st; in >> node >> st;)
    if (!state.count(node) || node_state_dead(st)) state[node] = st;
  for (const auto& n : nodes) {
    const auto it = state.find(n);
    if (it != state.end() && node_state_dead(it->second))
      h.dead.emplace_back(n, it->second);
    else
      h.left.push_back(n);
  }
  return h;
}

}  // namespace kiln::launch
