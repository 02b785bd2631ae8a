#pragma once
// Hits and misses of one build, from a ccache stats log (CCACHE_STATSLOG) that kiln points at the
// build folder, so the figures are this build's and not the whole cache's history.
#include <string>

namespace kiln::launch {

struct CacheStats {
  int hits = 0;                                          // compiles served from the cache (direct or preprocessed mode)
  int remote_hits = 0;                                   // of those, served by remote storage (a shared team cache)
  int local_hits() const { return hits - remote_hits; }  // served by this machine's own cache
  int misses = 0;
  int uncacheable = 0;  // everything else ccache counted (links, unsupported options, ...)
  double hit_rate() const { return hits + misses ? static_cast<double>(hits) / (hits + misses) : 0.0; }
};

CacheStats parse_ccache_stats_log(const std::string& text);

}  // namespace kiln::launch
