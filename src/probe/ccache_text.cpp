#include "probe/ccache_text.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

namespace kiln::probe {

tl::expected<CcacheCounters, std::string> parse_print_stats(const std::string& text) {
  CcacheCounters out;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    auto tab = line.find('\t');
    long long v = 0;
    if (tab == std::string::npos || tab == 0 ||
        std::from_chars(line.data() + tab + 1, line.data() + line.size(), v).ec != std::errc())
      return tl::unexpected(fmt::format("ccache --print-stats line {}: expected 'counter<TAB>number', got '{}'", lineno,
                                        line.substr(0, 80)));
    out[line.substr(0, tab)] = v;
  }
  if (out.empty()) return tl::unexpected(std::string("ccache --print-stats printed nothing"));
  return out;
}

std::map<std::string, CcacheConfigValue> parse_show_config(const std::string& text) {
  std::map<std::string, CcacheConfigValue> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '(') continue;
    auto close = line.find(") ");
    auto eq = line.find(" = ", close == std::string::npos ? 0 : close);
    if (close == std::string::npos || eq == std::string::npos) continue;
    out[line.substr(close + 2, eq - close - 2)] = CcacheConfigValue{line.substr(eq + 3), line.substr(1, close - 1)};
  }
  return out;
}

long long ccache_counter(const CcacheCounters& c, const std::string& name) {
  auto it = c.find(name);
  return it == c.end() ? 0 : it->second;
}

long long ccache_hits(const CcacheCounters& c) {
  return ccache_counter(c, "direct_cache_hit") + ccache_counter(c, "preprocessed_cache_hit");
}

long long ccache_misses(const CcacheCounters& c) { return ccache_counter(c, "cache_miss"); }

}  // namespace kiln::probe
