// kiln report: profile a finished build from its .ninja_log and kiln's records (launcher, ccache,
// nvcc --time): terminal tables, --json, or a self-contained --html page.
#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/project_config.hpp"
#include "core/size_text.hpp"
#include "probe/machine.hpp"
#include "report/build_folders.hpp"
#include "report/compute_profile.hpp"
#include "report/cluster.hpp"
#include "report/load.hpp"
#include "report/outside_ninja.hpp"
#include "report/render.hpp"

namespace kiln::cli {
namespace {

class ReportCommand final : public Command {
public:
  const char* name() const override { return "report"; }
  const char* summary() const override { return "Profile a finished build: critical path, parallelism, slowest units"; }
  void setup(CLI::App& app) override {
    app.add_option("build_dir", dir_,
                   "Build folder with a .ninja_log (default: ./build-kiln, else the current folder)");
    app.add_flag("--json", json_, "Print the profile as JSON");
    // `--html --json` must not write a page named "--json": a FILE that starts with '-' is refused.
    app.add_option("--html", html_, "Also write a self-contained HTML page with charts to FILE")
        ->check(CLI::Validator(
            [](std::string& v) {
              if (!v.empty() && v.front() == '-')
                return "'" + v + "' is an option, not a FILE; give --html a file name (./" + v + " for one named so)";
              return std::string();
            },
            "FILE"));
    app.add_option("--top", top_, "Rows in the slowest units and targets tables (default 15)")->check(number_in(1));
    app.add_option("--cores", cores_,
                   "Cores for the lower bound (default: as the build recorded them in kiln-build.json, "
                   "else this machine's usable cores)")
        ->check(number_in(1));
    app.add_option(
        "--simulate", shapes_,
        "Project this build onto a cluster NODESxCORESxMEM (e.g. 16x32x256G, memory in powers of 1024): compiles as "
        "Slurm job steps on any node, links on the head node (a torch extension's setuptools links and its time "
        "before the first compile and after the last too, from kiln build's record); repeatable");
    app.add_option("--step-overhead", step_overhead_ms_,
                   "Milliseconds a job step adds to each compile in --simulate "
                   "(default 150, srun on a local cluster)")
        ->check(CLI::NonNegativeNumber);
  }

  std::optional<ProjectArg> project_arg() const override {
    return ProjectArg{.dir = dir_, .build_folder = true};  // "": the current folder, as run() reads it
  }

  int run(io::Seams& s) override {
    std::string dir = dir_;
    // As plan, build and bench say of a DIR that is not one: a usage error (exit 2).
    if (!dir.empty() && !s.fs.is_directory(dir)) throw UsageError("'" + dir + "' is not a directory");
    if (dir.empty()) {
      std::error_code ec;
      const std::string cwd = std::filesystem::current_path(ec).string();
      dir = s.fs.exists(cwd + "/build-kiln/.ninja_log") ? cwd + "/build-kiln" : cwd;
    }
    dir = absolute_folder(dir);
    // What kiln build printed (the project, kiln's build folder) or a Ninja folder: every Ninja
    // folder of the build, profiled together (report/build_folders).
    const auto found = report::find_build_folders(s.fs, dir);
    const int here = probe::probe_machine(s.fs, probe::online_cpus()).usable_cores();
    const auto [input, outside] = load_all(s, dir, found, here);
    std::vector<report::ClusterShape> shapes;
    for (const auto& text : shapes_) {
      auto shape = report::parse_shape(text);
      if (!shape)
        throw UsageError("--simulate '" + text + "': expected NODESxCORESxMEM, e.g. 16x32x256G (memory per node: " +
                         core::size_base_text(core::SizeBase::binary) + ")");
      shapes.push_back(*shape);
    }
    const auto profile = report::compute_profile(input);
    std::vector<report::Projection> projections;
    if (!shapes.empty()) {
      const auto deps = input.graph ? report::unit_dependencies(profile, *input.graph)
                                    : std::vector<std::vector<size_t>>(profile.units.size());
      for (const auto& shape : shapes)
        projections.push_back(report::simulate(profile, deps, shape, step_overhead_ms_, outside));
    }
    const auto use = report::cluster_use(profile);
    if (!html_.empty()) {
      if (!s.fs.write(html_, report::render_html(profile, static_cast<size_t>(top_))))
        throw Failure(fmt::format("cannot write {}; check the folder exists and is writable", html_));
    }
    if (json_) {
      auto j = report::to_json(profile, static_cast<size_t>(top_));
      const auto cluster = report::cluster_json(use, projections);
      for (const auto& [k, v] : cluster.items()) j[k] = v;
      print_json(s.out, "report", std::move(j));
    } else {
      s.out << report::render_text(profile, static_cast<size_t>(top_));
      s.out << report::render_cluster_text(use, projections);
      if (!projections.empty() && !input.graph)
        s.out << "note: no dependency graph (" << input.graph_problem << "): the projection ignores dependencies\n";
      if (!html_.empty()) s.out << "\nwrote " << html_ << "\n";
    }
    return kOk;
  }

private:
  // The build's records, and what it did outside Ninja's logs (a torch extension's links and
  // serial time), read from each Ninja folder before they are merged into one.
  struct Loaded {
    report::ProfileInput input;
    report::OutsideNinja outside;
  };
  Loaded load_all(io::Seams& s, const std::string& dir, const report::BuildFolders& found, int here) const {
    const std::optional<int> forced = cores_ > 0 ? std::optional<int>(cores_) : std::nullopt;
    if (found.ninja_dirs.empty()) {
      if (!found.wheel_cache_hit.empty())
        throw Failure(
            fmt::format("{}: the last build compiled nothing: it installed a wheel kept by an earlier build "
                        "from the same inputs ({}); run kiln report on the build that made it, or rebuild "
                        "with --no-wheel-cache",
                        dir, found.wheel_cache_hit.substr(std::string("kiln: wheel cache: ").size())));
      auto one = report::load_build(dir, s, here, forced);  // its error says what is missing
      if (!one) throw Failure(one.error());
      auto outside = report::outside_ninja(s.fs, std::span(&*one, 1));
      return {std::move(*one), std::move(outside)};
    }
    std::vector<report::ProfileInput> parts;
    for (const auto& d : found.ninja_dirs) {
      auto in = report::load_build(d, s, here, forced, found.kiln_dir);
      if (!in) throw Failure(in.error());
      parts.push_back(std::move(*in));
    }
    auto outside = report::outside_ninja(s.fs, parts);
    auto merged = report::merge_inputs(std::move(parts));
    if (found.ninja_dirs.size() > 1) merged.build_dir = found.kiln_dir.empty() ? dir : found.kiln_dir;
    if (!found.wheel_cache_hit.empty())
      merged.notes.push_back("the last build installed a kept wheel (" + found.wheel_cache_hit +
                             "): these logs are from the build before it");
    return {std::move(merged), std::move(outside)};
  }

  std::string dir_, html_;
  bool json_ = false;
  int top_ = 15;
  int cores_ = 0;
  std::vector<std::string> shapes_;
  long step_overhead_ms_ = 150;
};

}  // namespace

std::unique_ptr<Command> make_report() { return std::make_unique<ReportCommand>(); }

}  // namespace kiln::cli
