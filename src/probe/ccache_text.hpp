#pragma once
// ccache's own reports, read in one place for the doctor and `kiln cache`: `ccache --print-stats`
// (ccache 4: one "counter<TAB>number" a line) and `ccache -p` / `--show-config` (one
// "(origin) key = value" a line; the origin is "default", "environment" or a config file).
#include <map>
#include <string>

#include <tl/expected.hpp>

namespace kiln::probe {

struct CcacheConfigValue {
  std::string value, origin;
};

using CcacheCounters = std::map<std::string, long long>;

// Fails, naming the line, on a line that is not a counter, and on empty output (ccache 3 has no
// --print-stats: it prints usage to stderr and nothing here).
tl::expected<CcacheCounters, std::string> parse_print_stats(const std::string& text);
std::map<std::string, CcacheConfigValue> parse_show_config(const std::string& text);

// Hits are direct and preprocessed together (ccache 4's own "Hits" line sums them the same way).
long long ccache_hits(const CcacheCounters& c);
long long ccache_misses(const CcacheCounters& c);
long long ccache_counter(const CcacheCounters& c, const std::string& name);  // 0 when absent

}  // namespace kiln::probe
