#include "report/critical_path.hpp"

#include <algorithm>

namespace kiln::report {

// Longest weighted path through the graph, ending anywhere: cp(edge) = weight + max cp(producers
// of its inputs). Iterative so deep graphs do not exhaust the stack.
std::vector<size_t> graph_critical_path(const BuildGraph& g, const std::vector<Unit>& units,
                                        const std::map<std::string, size_t>& unit_of, long& length) {
  const size_t n = g.edges.size();
  std::vector<long> weight(n, 0), best(n, -1);
  std::vector<long> pred(n, -1);
  std::vector<long> unit(n, -1);
  for (size_t e = 0; e < n; ++e)
    for (const auto& o : g.edges[e].outputs)
      if (auto it = unit_of.find(o); it != unit_of.end()) {
        unit[e] = static_cast<long>(it->second);
        const Unit& u = units[it->second];
        weight[e] = std::max(0L, u.duration_ms() - u.waited_ms);
        break;
      }
  std::vector<char> state(n, 0);  // 0 new, 1 open, 2 done
  for (size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack = {{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [e, next] = stack.back();
      const auto& ins = g.edges[e].inputs;
      if (next < ins.size()) {
        auto it = g.producer.find(ins[next++]);
        if (it != g.producer.end() && state[it->second] == 0) {
          state[it->second] = 1;
          stack.emplace_back(it->second, 0);
        }
        continue;
      }
      long b = 0, p = -1;
      for (const auto& in : ins)
        if (auto it = g.producer.find(in); it != g.producer.end() && state[it->second] == 2 && best[it->second] > b) {
          b = best[it->second];
          p = static_cast<long>(it->second);
        }
      best[e] = weight[e] + b;
      pred[e] = p;
      state[e] = 2;
      stack.pop_back();
    }
  }
  long end = -1;
  length = 0;
  for (size_t e = 0; e < n; ++e)
    if (best[e] > length) {
      length = best[e];
      end = static_cast<long>(e);
    }
  std::vector<size_t> chain;
  for (long e = end; e >= 0; e = pred[e])
    if (unit[e] >= 0 && weight[e] > 0) chain.push_back(static_cast<size_t>(unit[e]));
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Without the graph: the longest chain of jobs that ran one after another. It bounds the true
// critical path from above (every dependency chain is such a chain), so it is marked as such.
std::vector<size_t> chain_critical_path(const std::vector<Unit>& units, long& length) {
  std::vector<size_t> order(units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return units[a].end_ms < units[b].end_ms; });
  std::vector<long> ends, dp(order.size()), best_upto(order.size());
  std::vector<long> pred(order.size(), -1), best_idx(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const Unit& u = units[order[k]];
    // The last job (by end) that ended at or before this one started.
    long j = static_cast<long>(std::upper_bound(ends.begin(), ends.end(), u.start_ms) - ends.begin()) - 1;
    const long before = j >= 0 ? best_upto[j] : 0;
    dp[k] = u.duration_ms() - u.waited_ms + before;
    pred[k] = j >= 0 ? best_idx[j] : -1;
    ends.push_back(u.end_ms);
    if (k == 0 || dp[k] > best_upto[k - 1]) {
      best_upto[k] = dp[k];
      best_idx[k] = static_cast<long>(k);
    } else {
      best_upto[k] = best_upto[k - 1];
      best_idx[k] = best_idx[k - 1];
    }
  }
  length = order.empty() ? 0 : best_upto.back();
  std::vector<size_t> chain;
  for (long k = order.empty() ? -1 : best_idx.back(); k >= 0; k = pred[k]) chain.push_back(order[k]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace kiln::report
