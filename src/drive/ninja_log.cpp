#include "drive/ninja_log.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

namespace kiln::drive {
namespace {

// A number field of a log line (a time in ms, the version), read whole.
bool number_field(std::string_view s, long& out) {
  const auto n = core::parse_int(s);
  if (n) out = static_cast<long>(*n);  // long is long long's width on the 64-bit hosts kiln runs on
  return n.has_value();
}

struct Line {
  long start, end;
  long long mtime;
  std::string output, hash;
};

// The record's mtime in nanoseconds when it is a real timestamp (ninja >= 1.10 writes nanoseconds,
// older ones seconds); nullopt for 0 (output missing) or test-sized values.
std::optional<long long> mtime_ns(long long m) {
  if (m >= 1'000'000'000'000'000'000LL / 1000) return m;                          // >= 1e15: nanoseconds
  if (m >= 1'000'000'000LL && m < 100'000'000'000LL) return m * 1'000'000'000LL;  // seconds since 2001
  return std::nullopt;
}

}  // namespace

tl::expected<NinjaLog, std::string> parse_ninja_log(const std::string& text) {
  NinjaLog log;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("# ninja log v", 0) != 0)
    return tl::unexpected(std::string(".ninja_log: first line is not '# ninja log vN'; is this a Ninja build folder?"));
  long version = 0;
  if (!number_field(std::string_view(line).substr(13), version) || version < 5 || version > 7)
    return tl::unexpected(fmt::format(".ninja_log: format '{}' is not supported (kiln reads v5 to v7)", line));
  log.version = static_cast<int>(version);

  // Runs are split where a record ends before the previous one did: ninja restarts its clock.
  std::vector<std::vector<Line>> runs(1);
  long last_end = -1;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    const auto f = core::split(line, '\t');
    Line l;
    if (f.size() != 5 || !number_field(f[0], l.start) || !number_field(f[1], l.end) || l.end < l.start || f[3].empty())
      return tl::unexpected(fmt::format(".ninja_log line {}: expected start, end, mtime, output, hash; got '{}'",
                                        lineno, line.substr(0, 120)));
    l.mtime = core::parse_int(f[2]).value_or(0);
    l.output = f[3];
    l.hash = f[4];
    if (l.end < last_end && !runs.back().empty()) runs.emplace_back();
    last_end = l.end;
    runs.back().push_back(std::move(l));
  }
  log.builds = runs.back().empty() ? 0 : static_cast<int>(runs.size());

  // The latest build. Ninja appends each run to the log, but CMake's re-configure runs
  // `ninja -t recompact` / `-t restat`, which rewrite the whole log in hash-table order, so file
  // order alone mixes builds (and after a no-op build its tail is an arbitrary old record). The
  // mtime field is a real timestamp: the output's mtime after the command (ninja 1.11) or the
  // command's start (1.12+), so for every record of a run that started at R,
  // mtime - end <= R <= mtime - start. The record with the newest mtime belongs to the latest run
  // that did work; R is at least its mtime - end, and a record is in that run iff its
  // mtime - start reaches R. Records of older runs have mtime < R. Without real mtimes (test
  // logs, ancient ninja), file order decides: the run after the last time the clock went back.
  std::map<std::string, const Line*> last;  // ninja's own rule: the last record per output wins
  for (const auto& run : runs)
    for (const auto& l : run) {
      auto [it, fresh] = last.try_emplace(l.output, &l);
      if (!fresh) it->second = &l;
    }
  size_t timed = 0;
  const Line* newest = nullptr;
  for (const auto& [_, l] : last)
    if (auto m = mtime_ns(l->mtime)) {
      ++timed;
      if (!newest || *m > *mtime_ns(newest->mtime)) newest = l;
    }
  std::vector<const Line*> chosen;
  if (newest && timed * 2 >= last.size()) {
    constexpr long long kSlackNs = 100'000'000;  // coarse file-system clock against ninja's
    const long long run_start = *mtime_ns(newest->mtime) - newest->end * 1'000'000LL;
    const auto* latest_run_begin = runs.back().empty() ? nullptr : &runs.back().front();
    const auto* latest_run_end = runs.back().empty() ? nullptr : &runs.back().back() + 1;
    for (const auto& run : runs)
      for (const auto& l : run) {
        if (last[l.output] != &l) continue;
        auto m = mtime_ns(l.mtime);
        const bool in_file_tail = latest_run_begin && &l >= latest_run_begin && &l < latest_run_end;
        if (m ? *m - l.start * 1'000'000LL >= run_start - kSlackNs : in_file_tail) chosen.push_back(&l);
      }
    log.from_mtime = true;
  } else {
    for (const auto& l : runs.back())
      if (last[l.output] == &l) chosen.push_back(&l);
  }
  // Outputs of one edge share start, end and hash.
  std::map<std::tuple<long, long, std::string>, size_t> edge;
  for (const Line* l : chosen) {
    auto key = std::make_tuple(l->start, l->end, l->hash);
    auto it = edge.find(key);
    if (it != edge.end()) {
      log.jobs[it->second].outputs.push_back(l->output);
      continue;
    }
    edge[key] = log.jobs.size();
    log.jobs.push_back(Job{{l->output}, l->start, l->end, l->hash});
  }
  std::stable_sort(log.jobs.begin(), log.jobs.end(),
                   [](const Job& a, const Job& b) { return a.start_ms < b.start_ms; });
  return log;
}

}  // namespace kiln::drive

namespace kiln::drive {

std::map<std::string, long> last_durations(const std::string& text) {
  std::map<std::string, long> out;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("# ninja log v", 0) != 0) return out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto f = core::split(line, '\t');
    long start = 0, end = 0;
    if (f.size() != 5 || !number_field(f[0], start) || !number_field(f[1], end) || end < start || f[3].empty())
      continue;
    out[std::string(f[3])] = end - start;
  }
  return out;
}

}  // namespace kiln::drive
