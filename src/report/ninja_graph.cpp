#include "report/ninja_graph.hpp"

#include <sstream>

namespace kiln::report {
namespace {

// The next double-quoted token from `pos`; ninja does not escape quotes inside paths.
bool quoted(const std::string& line, size_t& pos, std::string& out) {
  size_t a = line.find('"', pos);
  if (a == std::string::npos) return false;
  size_t b = line.find('"', a + 1);
  if (b == std::string::npos) return false;
  out = line.substr(a + 1, b - a - 1);
  pos = b + 1;
  return true;
}

// The label attribute: text between `label="` and the closing `"` before `]` or `, shape`.
std::string label_of(const std::string& attrs) {
  size_t a = attrs.find("label=\"");
  if (a == std::string::npos) return {};
  a += 7;
  size_t b = attrs.find("\", shape", a);
  if (b == std::string::npos) b = attrs.rfind("\"]");
  if (b == std::string::npos || b < a) return {};
  return attrs.substr(a, b - a);
}

}  // namespace

tl::expected<BuildGraph, std::string> parse_ninja_graph(const std::string& dot) {
  if (dot.find("digraph ninja") == std::string::npos)
    return tl::unexpected(std::string("ninja -t graph: output does not start a 'digraph ninja'"));
  std::map<std::string, std::string> path;  // node id -> path
  std::map<std::string, size_t> edge_node;  // ellipse id -> edge index
  BuildGraph g;
  struct Arrow {
    std::string from, to, attrs;
  };
  std::vector<Arrow> arrows;
  std::istringstream in(dot);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;
    size_t pos = 0;
    std::string id;
    if (!quoted(line, pos, id)) continue;
    const size_t arrow = line.find("->", pos);
    if (arrow != std::string::npos && line.find_first_not_of(' ', pos) == arrow) {
      Arrow a;
      a.from = id;
      pos = arrow + 2;
      if (!quoted(line, pos, a.to)) continue;
      a.attrs = line.substr(pos);
      arrows.push_back(std::move(a));
      continue;
    }
    const std::string attrs = line.substr(pos);
    const std::string label = label_of(attrs);
    if (attrs.find("shape=ellipse") != std::string::npos) {
      edge_node[id] = g.edges.size();
      g.edges.push_back(GraphEdge{label, {}, {}});
    } else {
      path[id] = label;
    }
  }
  for (const auto& a : arrows) {
    auto from_edge = edge_node.find(a.from);
    auto to_edge = edge_node.find(a.to);
    if (to_edge != edge_node.end()) {
      if (auto p = path.find(a.from); p != path.end()) g.edges[to_edge->second].inputs.push_back(p->second);
    } else if (from_edge != edge_node.end()) {
      if (auto p = path.find(a.to); p != path.end()) g.edges[from_edge->second].outputs.push_back(p->second);
    } else {
      // One input, one output: the arrow is the edge, its label the rule.
      auto f = path.find(a.from), t = path.find(a.to);
      if (f == path.end() || t == path.end()) continue;
      std::string rule = label_of(a.attrs);
      if (!rule.empty() && rule[0] == ' ') rule.erase(0, 1);
      g.edges.push_back(GraphEdge{rule, {f->second}, {t->second}});
    }
  }
  for (size_t i = 0; i < g.edges.size(); ++i)
    for (const auto& o : g.edges[i].outputs) g.producer[o] = i;
  return g;
}

}  // namespace kiln::report
