#include "report/load.hpp"

#include <fmt/format.h>

namespace kiln::report {

tl::expected<ProfileInput, std::string> load_build(const std::string& build_dir, const io::Seams& s, int cores) {
  ProfileInput in;
  in.build_dir = build_dir;
  in.cores = cores;
  if (!s.fs.is_directory(build_dir)) return tl::unexpected(fmt::format("{}: no such folder", build_dir));
  auto text = s.fs.read(build_dir + "/.ninja_log");
  if (!text)
    return tl::unexpected(fmt::format("{} has no .ninja_log: it is not a Ninja build folder or nothing was built in it "
                                      "yet; build it first (kiln build DIR --build-dir {})",
                                      build_dir, build_dir));
  auto log = parse_ninja_log(*text);
  if (!log) return tl::unexpected(build_dir + "/" + log.error());
  in.log = std::move(*log);

  if (auto ninja = io::which(s, "ninja")) {
    io::ProcessSpec spec{.argv = {*ninja, "-C", build_dir, "-t", "graph"}};
    auto r = s.proc.run(spec);
    if (!r.ok()) {
      in.graph_problem = fmt::format("ninja -t graph failed ({})",
                                     r.started ? fmt::format("exit {}", r.exit_code) : r.spawn_error);
    } else if (auto g = parse_ninja_graph(r.out)) {
      in.graph = std::move(*g);
    } else {
      in.graph_problem = g.error();
    }
  } else {
    in.graph_problem = "ninja not found on PATH";
  }
  if (auto t = s.fs.read(build_dir + "/kiln-exec.jsonl")) in.exec = parse_exec_log(*t);
  if (auto t = s.fs.read(build_dir + "/kiln-ccache-stats.log"); t && !t->empty())
    in.cache = run::parse_ccache_stats_log(*t);
  if (auto t = s.fs.read(build_dir + "/kiln-nvcc-time.csv")) in.nvcc = parse_nvcc_time(*t);
  return in;
}

}  // namespace kiln::report
