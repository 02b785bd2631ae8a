#include "report/load.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "drive/build_records.hpp"

namespace kiln::report {

tl::expected<ProfileInput, std::string> load_build(const std::string& build_dir, const io::Seams& s, int this_machine,
                                                   std::optional<int> forced, const std::string& record_dir) {
  ProfileInput in;
  // A record or log that is not a regular file of a bounded size is not read (issue 34, case 6).
  auto readable = [&](const std::string& path) {
    auto why = io::read_refusal(s.fs, path, io::kBuildRecordMaxBytes);
    if (why) in.notes.push_back(*why + "; ignored");
    return !why;
  };
  in.build_dir = build_dir;
  in.cores = this_machine;
  in.cores_source = "this machine (the build recorded none)";
  std::string exec_log = build_dir + "/kiln-exec.jsonl", ccache_log = build_dir + "/kiln-ccache-stats.log";
  std::optional<std::string> record;
  if (readable(build_dir + "/kiln-build.json")) record = s.fs.read(build_dir + "/kiln-build.json");
  if (!record && !record_dir.empty() && readable(record_dir + "/kiln-build.json"))
    if ((record = s.fs.read(record_dir + "/kiln-build.json"))) in.kiln_dir = record_dir;
  if (auto& t = record) {
    auto j = nlohmann::json::parse(*t, nullptr, false);
    if (j.is_object()) {
      if (auto c = j.find("cores");
          c != j.end() && c->is_number_integer() && c->get<long long>() > 0 && c->get<long long>() < 1'000'000) {
        in.cores = static_cast<int>(c->get<long long>());
        in.cores_source = "the build's record (kiln-build.json)";
      }
      auto path = [&](const char* k, std::string& into) {
        if (auto it = j.find(k); it != j.end() && it->is_string() && !it->get<std::string>().empty() &&
                                 !s.fs.exists(into) && s.fs.exists(it->get<std::string>()))
          into = it->get<std::string>();
      };
      path("exec_log", exec_log);
      path("ccache_stats", ccache_log);
      if (auto it = j.find("kiln_build_dir"); it != j.end() && it->is_string()) in.kiln_dir = it->get<std::string>();
    } else {
      in.notes.push_back(build_dir + "/kiln-build.json is not a JSON object; ignored");
    }
  }
  if (forced) {
    in.cores = *forced;
    in.cores_source = "--cores";
  }
  if (!s.fs.is_directory(build_dir)) return tl::unexpected(fmt::format("{}: no such folder", build_dir));
  if (auto why = io::read_refusal(s.fs, build_dir + "/.ninja_log", io::kBuildRecordMaxBytes))
    return tl::unexpected(*why + "; remove it and build again");
  auto text = s.fs.read(build_dir + "/.ninja_log");
  if (!text)
    return tl::unexpected(
        fmt::format("{} has no .ninja_log: it is not a Ninja build folder or nothing was built in it "
                    "yet; build it first (kiln build DIR --build-dir {})",
                    build_dir, build_dir));
  auto log = parse_ninja_log(*text);
  if (!log) return tl::unexpected(build_dir + "/" + log.error());
  in.log = std::move(*log);

  if (auto ninja = io::which(s, "ninja")) {
    io::ProcessSpec spec{.argv = {*ninja, "-C", build_dir, "-t", "graph"}};
    auto r = s.proc.run(spec);
    if (!r.ok()) {
      in.graph_problem =
          fmt::format("ninja -t graph failed ({})", r.started ? fmt::format("exit {}", r.exit_code) : r.spawn_error);
    } else if (auto g = parse_ninja_graph(r.out)) {
      in.graph = std::move(*g);
    } else {
      in.graph_problem = g.error();
    }
  } else {
    in.graph_problem = "ninja not found on PATH";
  }
  if (auto t = readable(exec_log) ? s.fs.read(exec_log) : std::nullopt) in.exec = parse_exec_log(*t);
  // An empty record is a build that compiled nothing through ccache (a no-op): the figures are
  // those of the newest kept record, the build whose compiles .ninja_log still shows.
  for (int n = 0; n <= drive::kKeptBuilds && !in.cache; ++n) {
    const auto path = drive::kept_record_path(ccache_log, n);
    auto t = readable(path) ? s.fs.read(path) : std::nullopt;
    if (!t) break;
    if (t->empty()) continue;
    in.cache = launch::parse_ccache_stats_log(*t);
    in.cache_record = path;
    in.cache_builds_ago = n;
  }
  const auto nvcc_time = build_dir + "/kiln-nvcc-time.csv";
  if (auto t = readable(nvcc_time) ? s.fs.read(nvcc_time) : std::nullopt) in.nvcc = parse_nvcc_time(*t);
  return in;
}

}  // namespace kiln::report
