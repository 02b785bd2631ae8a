#pragma once
// The build's dependency graph as `ninja -t graph` prints it (Graphviz dot), reduced to edges:
// what each edge reads and writes. The critical path is computed on it.
#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::report {

struct GraphEdge {
  std::string rule;
  std::vector<std::string> inputs;  // explicit, implicit and order-only
  std::vector<std::string> outputs;
};

struct BuildGraph {
  std::vector<GraphEdge> edges;
  std::map<std::string, size_t> producer;  // output path -> index in edges
};

// `ninja -t graph` output: node lines `"0x.." [label="path"]`, edge nodes drawn as ellipses with
// arrows in (`arrowhead=none`) and out, and single-input single-output edges as one arrow
// labelled with the rule.
tl::expected<BuildGraph, std::string> parse_ninja_graph(const std::string& dot);

}  // namespace kiln::report
