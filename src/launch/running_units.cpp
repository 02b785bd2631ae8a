#include "launch/running_units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace kiln::launch {

std::string format_running(const RunningUnit& u) {
  std::string extra;
  if (u.queued) extra += " queued=1";
  // A node name has no blanks (Slurm's NodeName); one that had would cut the line, so it is left out.
  if (!u.node.empty() && u.node.find_first_of(" \n") == std::string::npos) extra += " node=" + u.node;
  return fmt::format("pid={} proc_start={} start_ms={}{} output={}\n", u.pid, u.proc_start, u.start_ms, extra,
                     u.output);
}

std::optional<RunningUnit> parse_running(std::string_view text) {
  // The output comes last and may hold blanks; a line cut short by a reader racing the writer
  // lacks the newline and is refused.
  const auto eol = text.find('\n');
  if (eol == std::string_view::npos) return std::nullopt;
  text = text.substr(0, eol);
  const auto out = text.find(" output=");
  if (out == std::string_view::npos) return std::nullopt;
  RunningUnit u;
  u.output = std::string(text.substr(out + 8));
  long long pid = -1, start_ms = -1;
  unsigned long long proc_start = 0;
  const std::string head(text.substr(0, out));
  int used = 0;
  if (std::sscanf(head.c_str(), "pid=%lld proc_start=%llu start_ms=%lld%n", &pid, &proc_start, &start_ms, &used) != 3 ||
      pid <= 0 || start_ms < 0 || u.output.empty())
    return std::nullopt;
  // Then " queued=1" and " node=NAME", each optional (a launcher before them wrote neither).
  std::string_view rest = std::string_view(head).substr(static_cast<size_t>(used));
  while (!rest.empty()) {
    if (rest.front() != ' ') return std::nullopt;
    rest.remove_prefix(1);
    const auto end = std::min(rest.find(' '), rest.size());
    const auto word = rest.substr(0, end);
    if (word == "queued=1")
      u.queued = true;
    else if (word.rfind("node=", 0) == 0 && word.size() > 5)
      u.node = std::string(word.substr(5));
    else
      return std::nullopt;
    rest.remove_prefix(end);
  }
  u.pid = static_cast<long>(pid);
  u.proc_start = proc_start;
  u.start_ms = start_ms;
  return u;
}

std::string mark_running(io::Filesystem& fs, const std::string& dir, const RunningUnit& u) {
  if (dir.empty() || !fs.make_dirs(dir)) return "";
  const std::string path = fmt::format("{}/{}", dir, u.pid);
  return fs.write(path, format_running(u)) ? path : "";
}

bool mark_step_started(io::Filesystem& fs, const std::string& path, const std::string& node, long long now_ms) {
  if (path.empty()) return false;
  auto text = fs.read_head(path, 4096);
  auto u = text ? parse_running(*text) : std::nullopt;
  if (!u) return false;
  u->queued = false;
  u->node = node;
  u->start_ms = now_ms;
  return fs.write(path, format_running(*u));
}

std::vector<RunningUnit> running_units(io::Filesystem& fs, const std::string& dir, const io::ProcessTable& procs,
                                       size_t max_files) {
  std::vector<RunningUnit> out;
  if (dir.empty()) return out;
  auto names = fs.list(dir);
  if (names.size() > max_files) names.resize(max_files);
  for (const auto& name : names) {
    const std::string path = dir + "/" + name;
    auto text = fs.read_head(path, 4096);
    if (!text) continue;
    auto u = parse_running(*text);
    if (!u) continue;
    const auto started = procs.start_time(u->pid);
    if (!started || *started != u->proc_start) {
      fs.remove(path);  // its launcher is gone; the file would otherwise stay for good
      continue;
    }
    out.push_back(std::move(*u));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RunningUnit& a, const RunningUnit& b) { return a.start_ms < b.start_ms; });
  return out;
}

}  // namespace kiln::launch
