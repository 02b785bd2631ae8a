#include "report/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <charconv>
#include <set>

#include "core/name_table.hpp"
#include "core/text.hpp"
#include "report/render.hpp"

namespace kiln::report {
namespace {

constexpr core::NameTable<BenchCache, 3> kCacheNames{
    {{{BenchCache::cold, "cold"}, {BenchCache::warm, "warm"}, {BenchCache::off, "off"}}}};

}  // namespace

std::string_view to_string(BenchCache c) { return kCacheNames.name(c, "cold"); }

std::optional<BenchCache> bench_cache_from(std::string_view s) { return kCacheNames.find(s); }

tl::expected<std::vector<MatrixAxis>, std::string> parse_matrix(const std::vector<std::string>& args) {
  std::vector<MatrixAxis> axes;
  std::set<std::string> seen;
  for (const auto& a : args) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == a.size())
      return tl::unexpected(
          fmt::format("--matrix '{}': expected KEY=V1,V2 (keys: archs, cache, generator, jobs, build)", a));
    MatrixAxis axis{core::to_lower(a.substr(0, eq)), {}};
    if (!seen.insert(axis.key).second) return tl::unexpected(fmt::format("--matrix: key '{}' given twice", axis.key));
    for (auto v : core::split(a.substr(eq + 1), ',')) {
      if (v.empty()) return tl::unexpected(fmt::format("--matrix '{}': empty value", a));
      if (axis.key == "cache") {
        v = core::to_lower(v);
        if (!bench_cache_from(v))
          return tl::unexpected(fmt::format("--matrix cache: '{}' is not cold, warm or off", v));
      } else if (axis.key == "generator") {
        const std::string l = core::to_lower(v);
        if (l == "ninja")
          v = "Ninja";
        else if (l == "make" || l == "unix makefiles")
          v = "Make";
        else
          return tl::unexpected(fmt::format("--matrix generator: '{}' is not Ninja or Make", v));
      } else if (axis.key == "jobs") {
        const auto n = core::parse_int(v);
        if (!n || *n < 1 || *n > INT_MAX)
          return tl::unexpected(fmt::format("--matrix jobs: '{}' is not a positive integer", v));
      } else if (axis.key == "build") {
        v = core::to_lower(v);
        if (v != "kiln" && v != "default")
          return tl::unexpected(fmt::format("--matrix build: '{}' is not kiln or default", v));
      } else if (axis.key == "archs") {
        if (v.find(';') != std::string::npos)
          return tl::unexpected(
              fmt::format("--matrix archs: '{}': join entries with '+' (80-real+90-real), not ';'", v));
      } else {
        return tl::unexpected(
            fmt::format("--matrix: unknown key '{}' (keys: archs, cache, generator, jobs, build)", axis.key));
      }
      axis.values.push_back(v);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::string BenchConfig::label() const {
  if (is_default()) return "project default";
  std::string s = fmt::format("archs={} cache={}", archs.empty() ? "plan" : archs, to_string(cache));
  if (generator != "Ninja") s += " generator=" + generator;
  if (jobs) s += fmt::format(" jobs={}", jobs);
  return s;
}

std::string BenchConfig::id() const {
  if (is_default()) return "project-default";
  std::string s = fmt::format("{}-{}-{}-j{}", archs.empty() ? "plan" : archs, to_string(cache), generator, jobs);
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return s;
}

std::string BenchConfig::arch_spec() const {
  std::string out;
  for (size_t i = 0; i < archs.size(); ++i) {
    if (archs[i] == '+' && core::to_lower(archs.substr(i + 1, 3)) != "ptx")
      out += ';';
    else
      out += archs[i];
  }
  return out;
}

std::vector<BenchConfig> expand(const std::vector<MatrixAxis>& axes) {
  std::vector<BenchConfig> out = {BenchConfig{}};
  for (const auto& axis : axes) {
    std::vector<BenchConfig> next;
    for (const auto& base : out)
      for (const auto& v : axis.values) {
        BenchConfig c = base;
        if (axis.key == "archs")
          c.archs = v;
        else if (axis.key == "cache")
          c.cache = *bench_cache_from(v);  // parse_matrix checked it
        else if (axis.key == "generator")
          c.generator = v;
        else if (axis.key == "jobs")
          c.jobs = static_cast<int>(*core::parse_int(v));  // parse_matrix checked it
        else if (axis.key == "build")
          c.build = v;
        next.push_back(c);
      }
    out = std::move(next);
  }
  // The default build ignores the other keys: keep one, where it first appears.
  std::vector<BenchConfig> unique;
  bool have_default = false;
  for (auto& c : out) {
    if (c.is_default()) {
      if (have_default) continue;
      have_default = true;
      c = BenchConfig{.build = "default"};
    }
    unique.push_back(c);
  }
  return unique;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ConfigSummary summarize(const BenchConfig& c, std::vector<RunResult> runs, std::optional<double> cost_per_hour) {
  ConfigSummary s;
  s.config = c;
  std::vector<double> total, build, hit, eff, cp;
  for (const auto& r : runs) {
    if (!r.ok) continue;
    ++s.ok_runs;
    total.push_back(r.total_s());
    build.push_back(r.build_s);
    if (r.cache && r.cache->hits + r.cache->misses > 0) hit.push_back(r.cache->hit_rate());
    if (r.efficiency) eff.push_back(*r.efficiency);
    if (r.critical_path_s) cp.push_back(*r.critical_path_s);
    s.peak_rss_kib = std::max(s.peak_rss_kib, r.peak_rss_kib);
    if (r.peak_concurrent_kib)
      s.peak_concurrent_kib = std::max(s.peak_concurrent_kib.value_or(0), *r.peak_concurrent_kib);
    s.libraries = r.libraries;
  }
  s.median_total_s = median(total);
  s.median_build_s = median(build);
  if (!hit.empty()) s.median_hit_rate = median(hit);
  if (!eff.empty()) s.median_efficiency = median(eff);
  if (!cp.empty()) s.median_critical_path_s = median(cp);
  if (cost_per_hour && s.ok_runs) s.cost_usd = s.median_total_s / 3600.0 * *cost_per_hour;
  s.runs = std::move(runs);
  return s;
}

namespace {

std::string bytes_text(std::uint64_t b) {
  if (b < 1024 * 1024) return fmt::format("{:.0f} KiB", b / 1024.0);
  return human_kib(b / 1024.0);
}

// Shared and static libraries only: executables are the project's tests and tools.
std::string libs_text(const std::map<std::string, std::uint64_t>& libs) {
  std::string s;
  for (const auto& [name, bytes] : libs)
    if (name.find(".so") != std::string::npos || (name.size() > 2 && name.compare(name.size() - 2, 2, ".a") == 0))
      s += fmt::format("{}{} {}", s.empty() ? "" : ", ", name, bytes_text(bytes));
  return s.empty() ? "-" : s;
}

}  // namespace

void compare_with_default(std::vector<ConfigSummary>& rows) {
  const ConfigSummary* def = nullptr;
  for (const auto& r : rows)
    if (r.config.is_default() && r.ok_runs > 0) def = &r;
  if (!def || def->median_total_s <= 0) return;
  const double base = def->median_total_s;
  for (auto& r : rows)
    if (r.ok_runs > 0 && r.median_total_s > 0) r.vs_default = base / r.median_total_s;
}

std::string bench_table(const std::vector<ConfigSummary>& rows, bool markdown) {
  const bool cost = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.cost_usd.has_value(); });
  const bool vs = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.vs_default.has_value(); });
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head = {"configuration", "time",     "build",   "crit. path",
                                   "efficiency",    "peak RSS", "hit rate"};
  if (vs) head.push_back("vs default");
  if (cost) head.push_back("cost");
  head.push_back("libraries");
  cells.push_back(head);
  for (const auto& r : rows) {
    std::vector<std::string> row = {r.config.label()};
    if (!r.ok_runs) {
      row.push_back(fmt::format("failed ({})", r.runs.empty() ? "not run" : r.runs.front().error));
      while (row.size() < head.size()) row.push_back("-");
      cells.push_back(row);
      continue;
    }
    const std::string runs = r.runs.size() > 1 ? fmt::format(" (median of {})", r.ok_runs) : "";
    row.push_back(human_ms(r.median_total_s * 1000) + runs);
    row.push_back(human_ms(r.median_build_s * 1000));
    row.push_back(r.median_critical_path_s ? human_ms(*r.median_critical_path_s * 1000) : "-");
    row.push_back(r.median_efficiency ? fmt::format("{:.2f}x", *r.median_efficiency) : "-");
    row.push_back(human_kib(r.peak_rss_kib) +
                  (r.peak_concurrent_kib ? fmt::format(" ({} total)", human_kib(*r.peak_concurrent_kib)) : ""));
    row.push_back(r.median_hit_rate ? fmt::format("{:.0f}%", 100 * *r.median_hit_rate) : "-");
    if (vs)
      row.push_back(r.config.is_default() ? "baseline"
                    : r.vs_default        ? fmt::format("{:.2f}x faster", *r.vs_default)
                                          : "-");
    if (cost) row.push_back(r.cost_usd ? fmt::format("${:.4f}", *r.cost_usd) : "-");
    row.push_back(libs_text(r.libraries));
    cells.push_back(row);
  }
  std::vector<size_t> width(head.size(), 0);
  for (const auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (size_t r = 0; r < cells.size(); ++r) {
    const auto& row = cells[r];
    if (markdown) {
      out += "|";
      for (const auto& c : row) out += " " + c + " |";
      out += "\n";
      if (r == 0) {
        out += "|";
        for (size_t i = 0; i < row.size(); ++i) out += i == 0 || i + 1 == row.size() ? "---|" : "---:|";
        out += "\n";
      }
      continue;
    }
    for (size_t i = 0; i < row.size(); ++i)
      out += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], width[i]);
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json bench_json(const std::vector<ConfigSummary>& rows) {
  using json = nlohmann::ordered_json;
  auto opt = [](const auto& o) { return o ? json(*o) : json(nullptr); };
  json configs = json::array();
  for (const auto& r : rows) {
    json runs = json::array();
    for (const auto& run : r.runs)
      runs.push_back(
          {{"ok", run.ok},
           {"error", run.ok ? json(nullptr) : json(run.error)},
           {"build_dir", run.build_dir},
           {"configure_s", run.configure_s},
           {"build_s", run.build_s},
           {"peak_rss_bytes", run.peak_rss_kib * 1024},
           {"peak_concurrent_bytes", run.peak_concurrent_kib ? json(*run.peak_concurrent_kib * 1024) : json(nullptr)},
           {"critical_path_s", opt(run.critical_path_s)},
           {"efficiency", opt(run.efficiency)},
           {"cache", run.cache ? json{{"hits", run.cache->hits},
                                      {"misses", run.cache->misses},
                                      {"remote_hits", run.cache->remote_hits},
                                      {"hit_rate", run.cache->hit_rate()}}
                               : json(nullptr)},
           {"libraries", run.libraries}});
    configs.push_back(
        {{"config",
          {{"archs", r.config.archs.empty() ? json(nullptr) : json(r.config.archs)},
           {"cache", to_string(r.config.cache)},
           {"generator", r.config.generator},
           {"jobs", r.config.jobs ? json(r.config.jobs) : json(nullptr)},
           {"build", r.config.build}}},
         {"label", r.config.label()},
         {"ok_runs", r.ok_runs},
         {"median_s", r.median_total_s},
         {"median_build_s", r.median_build_s},
         {"median_hit_rate", opt(r.median_hit_rate)},
         {"median_critical_path_s", opt(r.median_critical_path_s)},
         {"median_efficiency", opt(r.median_efficiency)},
         {"peak_rss_bytes", r.peak_rss_kib * 1024},
         {"peak_concurrent_bytes", r.peak_concurrent_kib ? json(*r.peak_concurrent_kib * 1024) : json(nullptr)},
         {"libraries", r.libraries},
         {"cost_usd", opt(r.cost_usd)},
         {"speedup_vs_default", opt(r.vs_default)},
         {"runs", runs}});
  }
  return configs;
}

}  // namespace kiln::report
