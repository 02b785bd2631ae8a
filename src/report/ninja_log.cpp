#include "report/ninja_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

namespace kiln::report {
namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> f;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string_view::npos; start = tab + 1)
    f.push_back(line.substr(start, tab - start));
  f.push_back(line.substr(start));
  return f;
}

bool to_long(std::string_view s, long& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

struct Line {
  long start, end;
  std::string output, hash;
};

}  // namespace

tl::expected<NinjaLog, std::string> parse_ninja_log(const std::string& text) {
  NinjaLog log;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("# ninja log v", 0) != 0)
    return tl::unexpected(std::string(".ninja_log: first line is not '# ninja log vN'; is this a Ninja build folder?"));
  long version = 0;
  if (!to_long(std::string_view(line).substr(13), version) || version < 5 || version > 7)
    return tl::unexpected(fmt::format(".ninja_log: format '{}' is not supported (kiln reads v5 to v7)", line));
  log.version = static_cast<int>(version);

  // Runs are split where a record ends before the previous one did: ninja restarts its clock.
  std::vector<std::vector<Line>> runs(1);
  long last_end = -1;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    auto f = split_tabs(line);
    Line l;
    if (f.size() != 5 || !to_long(f[0], l.start) || !to_long(f[1], l.end) || l.end < l.start || f[3].empty())
      return tl::unexpected(fmt::format(".ninja_log line {}: expected start, end, mtime, output, hash; got '{}'", lineno,
                                        line.substr(0, 120)));
    l.output = f[3];
    l.hash = f[4];
    if (l.end < last_end && !runs.back().empty()) runs.emplace_back();
    last_end = l.end;
    runs.back().push_back(std::move(l));
  }
  log.builds = runs.back().empty() ? 0 : static_cast<int>(runs.size());

  // The last record per output wins; outputs of one edge share start, end and hash.
  std::map<std::string, const Line*> last;
  for (const auto& l : runs.back()) last[l.output] = &l;
  std::map<std::tuple<long, long, std::string>, size_t> edge;
  for (const auto& l : runs.back()) {
    if (last[l.output] != &l) continue;
    auto key = std::make_tuple(l.start, l.end, l.hash);
    auto it = edge.find(key);
    if (it != edge.end()) {
      log.jobs[it->second].outputs.push_back(l.output);
      continue;
    }
    edge[key] = log.jobs.size();
    log.jobs.push_back(Job{{l.output}, l.start, l.end, l.hash});
  }
  std::stable_sort(log.jobs.begin(), log.jobs.end(),
                   [](const Job& a, const Job& b) { return a.start_ms < b.start_ms; });
  return log;
}

}  // namespace kiln::report
