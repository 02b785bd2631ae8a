#include "launch/slurm_nodes.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "core/text.hpp"

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

void note_dead_nodes(io::Filesystem& fs, const std::string& reports, const NodeHealth& h) {
  if (reports.empty() || h.dead.empty()) return;
  fs.make_dirs(reports);
  for (const auto& [node, state] : h.dead)
    if (node.find('/') == std::string::npos && !fs.exists(reports + "/dead-" + node))
      fs.write(reports + "/dead-" + node, state + "\n");
}

std::vector<std::string> noted_dead_nodes(const io::Filesystem& fs, const std::string& reports) {
  std::vector<std::string> out;
  if (reports.empty()) return out;
  for (const auto& entry : fs.list(reports)) {
    const auto name = entry.substr(entry.find_last_of('/') + 1);
    if (name.rfind("dead-", 0) == 0 && name.size() > 5) out.push_back(name.substr(5));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, int>> parse_slurm_nodes(const std::string& text) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& item : core::split(text, ',')) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    const auto cpus = colon == std::string::npos ? std::nullopt : core::parse_int(item.substr(colon + 1));
    out.emplace_back(item.substr(0, colon),
                     cpus && *cpus > 0 ? static_cast<int>(std::min<long long>(*cpus, 1 << 20)) : 0);
  }
  return out;
}

}  // namespace kiln::launch
