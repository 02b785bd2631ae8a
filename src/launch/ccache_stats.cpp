#include "launch/ccache_stats.hpp"

#include <set>
#include <sstream>

namespace kiln::launch {

// ccache 4.x appends one record per invocation: "# <source>" then one counter name per line
// (a miss also logs direct_cache_miss, local_storage_miss ...; a remote hit logs both
// direct_cache_hit and remote_storage_hit), so each record is classified once, as a whole.
CacheStats parse_ccache_stats_log(const std::string& text) {
  CacheStats s;
  std::set<std::string> record;
  bool open = false;
  auto close = [&] {
    if (!open) return;
    if (record.count("direct_cache_hit") || record.count("preprocessed_cache_hit")) {
      ++s.hits;
      if (record.count("remote_storage_hit")) ++s.remote_hits;
    } else if (record.count("cache_miss")) {
      ++s.misses;
    } else {
      ++s.uncacheable;
    }
    record.clear();
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      close();
      open = true;
    } else if (!line.empty()) {
      open = true;
      record.insert(line);
    }
  }
  close();
  return s;
}

}  // namespace kiln::launch
