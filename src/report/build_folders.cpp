#include "report/build_folders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "drive/ninja_folders.hpp"

namespace kiln::report {
namespace {

std::string parent_of(const std::string& dir) {
  auto slash = dir.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : dir.substr(0, slash);
}

void add_ninja_dirs_of_project(const io::Filesystem& fs, const std::string& kiln_dir, const std::string& project,
                               std::vector<std::string>& out) {
  auto root = drive::extension_build_root(fs, kiln_dir.empty() ? project + "/build-kiln" : kiln_dir, project);
  if (root.empty()) return;
  for (auto& d : drive::ninja_folders_under(fs, root)) out.push_back(std::move(d));
}

std::string wheel_cache_hit_line(const io::Filesystem& fs, const std::string& kiln_dir) {
  // The hit is logged before the build's output: the log's start is enough, however long it grew.
  auto log = fs.read_head(kiln_dir + "/kiln-build.log", std::size_t{1} << 20);
  if (!log) return "";
  const std::string tag = "kiln: wheel cache: hit ";
  auto at = log->find(tag);
  if (at == std::string::npos) return "";
  return log->substr(at, log->find('\n', at) - at);
}

// The project kiln's record names (kiln-build.json "project_dir", written since issue 21): a build
// folder outside the project (--build-dir /tmp/b) still finds it.
std::optional<std::string> recorded_project(const io::Filesystem& fs, const std::string& kiln_dir) {
  if (io::read_refusal(fs, kiln_dir + "/kiln-build.json", io::kBuildRecordMaxBytes)) return std::nullopt;
  auto text = fs.read(kiln_dir + "/kiln-build.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("project_dir") || !j["project_dir"].is_string()) return std::nullopt;
  auto dir = j["project_dir"].get<std::string>();
  if (dir.empty() || dir.front() != '/') return std::nullopt;
  return dir;
}

}  // namespace

BuildFolders find_build_folders(const io::Filesystem& fs, const std::string& dir) {
  BuildFolders f;
  if (fs.exists(dir + "/.ninja_log")) f.ninja_dirs.push_back(dir);
  std::string project;
  if (fs.exists(dir + "/kiln-build.json") && !fs.exists(dir + "/.ninja_log")) {
    f.kiln_dir = dir;  // kiln's build folder of a Python build; the project is the folder above it
    project = parent_of(dir);
  } else if (fs.exists(dir + "/build-kiln/kiln-build.json")) {
    f.kiln_dir = dir + "/build-kiln";
    project = dir;
    if (fs.exists(f.kiln_dir + "/.ninja_log")) f.ninja_dirs = {f.kiln_dir};  // a CMake project
  } else if (f.ninja_dirs.empty()) {
    project = dir;
  }
  if (!f.kiln_dir.empty())
    if (auto named = recorded_project(fs, f.kiln_dir)) project = *named;
  f.project_dir = project;
  if (f.ninja_dirs.empty() && !project.empty()) add_ninja_dirs_of_project(fs, f.kiln_dir, project, f.ninja_dirs);
  std::sort(f.ninja_dirs.begin(), f.ninja_dirs.end());
  if (!f.kiln_dir.empty()) f.wheel_cache_hit = wheel_cache_hit_line(fs, f.kiln_dir);
  return f;
}

namespace {

// The epoch time of the Ninja's start, from the launcher records of outputs its log names (the last
// record per output, as the profile takes them). Ends are matched, not starts: a record starts after
// the compile's wait in the governor, and where every unit of one extension waited (apex on 16
// cores: 45-78 s for memory) its whole log was placed that much late: `kiln report` said 3m03s of
// a build that took 2m35s. Ninja sees a compile end a few milliseconds after the launcher's clock
// does, so the latest estimate is the closest.
std::optional<long long> ninja_epoch(const ProfileInput& in) {
  if (!in.exec) return std::nullopt;
  std::map<std::string, const ExecRecord*> last;
  for (const auto& r : in.exec->records)
    if (!r.output.empty()) last[r.output] = &r;
  std::optional<long long> best;
  for (const auto& job : in.log.jobs)
    for (const auto& [output, r] : last)
      if (output == job.name() || job.name().ends_with("/" + output) || output.ends_with("/" + job.name())) {
        const long long t = r->start_ms + r->wall_ms - job.end_ms;
        if (!best || t > *best) best = t;
      }
  return best;
}

}  // namespace

ProfileInput merge_inputs(std::vector<ProfileInput> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  ProfileInput out = parts.front();
  out.log.jobs.clear();
  out.graph = BuildGraph{};
  std::vector<std::optional<long long>> epochs;
  long long first = std::numeric_limits<long long>::max();
  for (const auto& p : parts) {
    epochs.push_back(ninja_epoch(p));
    if (epochs.back()) first = std::min(first, *epochs.back());
  }
  long serial_end = 0;  // where a Ninja without records goes: after everything placed so far
  int unplaced = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto& p = parts[i];
    long shift = 0;
    if (epochs[i]) {
      shift = static_cast<long>(*epochs[i] - first);
    } else {
      for (const auto& j : out.log.jobs) serial_end = std::max(serial_end, j.end_ms);
      shift = serial_end;
      ++unplaced;
    }
    for (auto j : p.log.jobs) {
      j.start_ms += shift;
      j.end_ms += shift;
      out.log.jobs.push_back(std::move(j));
    }
    if (p.graph && out.graph) {
      const size_t base = out.graph->edges.size();
      for (auto& e : p.graph->edges) out.graph->edges.push_back(std::move(e));
      for (auto& [k, v] : p.graph->producer) out.graph->producer.emplace(k, v + base);
    } else if (!p.graph) {
      out.graph.reset();
      out.graph_problem = p.graph_problem;
    }
    out.log.builds = std::max(out.log.builds, p.log.builds);
    for (auto& n : p.notes) out.notes.push_back(std::move(n));
  }
  std::stable_sort(out.log.jobs.begin(), out.log.jobs.end(),
                   [](const Job& a, const Job& b) { return a.start_ms < b.start_ms; });
  out.notes.push_back(
      fmt::format("{} Ninja folders of one build profiled together (one per extension built at once)", parts.size()));
  if (unplaced)
    out.notes.push_back(
        fmt::format("{} of them had no launcher records to place them in time: put one after another", unplaced));
  return out;
}

}  // namespace kiln::report
