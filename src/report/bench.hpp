#pragma once
// kiln bench's arithmetic: the --matrix axes, the configurations they expand to, medians over
// repeated runs, cost, and the comparison table (the seeds' "multi-arch + Make + no cache versus
// single-arch + Ninja + warm ccache" table, measured instead of quoted).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "launch/ccache_stats.hpp"

namespace kiln::report {

struct MatrixAxis {
  std::string key;  // archs, cache, generator, jobs
  std::vector<std::string> values;
};

// "KEY=V1,V2": keys archs (an arch list per value, `+` joining its entries), cache (cold, warm,
// off), generator (Ninja, Make), jobs (positive integers), build (kiln, default: the project's own
// build). A key given twice is an error.
tl::expected<std::vector<MatrixAxis>, std::string> parse_matrix(const std::vector<std::string>& args);

// The compiler cache a configuration runs with. Serialised only through to_string (its label, id
// and the bench JSON "cache"); bench_cache_from reads --matrix's spelling.
enum class BenchCache {
  cold,  // an empty cache
  warm,  // one filled by a warm-up build
  off,   // no ccache
};
std::string_view to_string(BenchCache c);                        // "cold", "warm", "off"
std::optional<BenchCache> bench_cache_from(std::string_view s);  // to_string's inverse
inline constexpr BenchCache kBenchCaches[] = {BenchCache::cold, BenchCache::warm, BenchCache::off};

struct BenchConfig {
  std::string archs;  // as the user wrote it (with `+`); empty: kiln's usual choice
  BenchCache cache = BenchCache::cold;
  std::string generator = "Ninja";
  int jobs = 0;  // 0: kiln's plan
  // "kiln", or "default": the project built as its README says, without kiln (a torch extension's
  // `pip install --no-build-isolation .` with its own archs and job count; a CMake project's
  // `cmake -S -B` + `cmake --build` with CMake's defaults). The other keys do not apply to it.
  std::string build = "kiln";
  bool is_default() const { return build == "default"; }
  std::string label() const;  // "archs=80-real cache=cold"
  std::string id() const;     // a folder name
  std::string cmake_generator() const { return generator == "Make" ? "Unix Makefiles" : "Ninja"; }
  std::string arch_spec() const;  // `+` turned into `;`, except in "+PTX"
};

// Every combination, the first axis varying slowest; the project's default build appears once.
std::vector<BenchConfig> expand(const std::vector<MatrixAxis>& axes);

struct RunResult {
  bool ok = false;
  std::string error;  // the failing step when !ok
  double configure_s = 0, build_s = 0;
  long peak_rss_kib = 0;                              // largest single process
  std::optional<long> peak_concurrent_kib;            // from kiln-exec.jsonl, when the launcher recorded it
  std::optional<double> critical_path_s, efficiency;  // Ninja builds
  std::optional<launch::CacheStats> cache;
  std::map<std::string, std::uint64_t> libraries;  // file name -> bytes
  std::string build_dir;
  double total_s() const { return configure_s + build_s; }
};

struct ConfigSummary {
  BenchConfig config;
  std::vector<RunResult> runs;
  int ok_runs = 0;
  double median_total_s = 0, median_build_s = 0;
  std::optional<double> median_hit_rate, median_efficiency, median_critical_path_s;
  long peak_rss_kib = 0;
  std::optional<long> peak_concurrent_kib;
  std::map<std::string, std::uint64_t> libraries;  // from the last successful run
  std::optional<double> cost_usd;                  // median total time x cost per hour
  std::optional<double> vs_default;                // the default build's median time / this one's
};

// Fills vs_default when a default configuration succeeded.
void compare_with_default(std::vector<ConfigSummary>& rows);

double median(std::vector<double> v);
ConfigSummary summarize(const BenchConfig& c, std::vector<RunResult> runs, std::optional<double> cost_per_hour);

std::string bench_table(const std::vector<ConfigSummary>& s, bool markdown);
nlohmann::ordered_json bench_json(const std::vector<ConfigSummary>& s);

}  // namespace kiln::report
