// kiln bench: build one project under several configurations (arch lists, cold or warm cache,
// Ninja or Make, job counts), each in its own build folder, and compare time, memory, library
// size, cache hit rate and cost.
#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/project_dir.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "report/bench.hpp"
#include "report/load.hpp"
#include "run/cmake_build.hpp"
#include "run/plan.hpp"

namespace kiln::cli {
namespace {

class BenchCommand final : public Command {
 public:
  const char* name() const override { return "bench"; }
  const char* summary() const override {
    return "Build a project under several configurations and compare time, memory, size, cache and cost";
  }
  void setup(CLI::App& app) override {
    app.add_option("dir", dir_, "Project directory (default: the bundled example)");
    app.add_option("--matrix", matrix_,
                   "KEY=V1,V2: archs (join entries with +: 80-real+90-real), cache (cold, warm, off), "
                   "generator (Ninja, Make), jobs; repeatable, every combination is built")
        ->allow_extra_args(false);
    app.add_option("--repeat", repeat_, "Builds per configuration; the table shows medians (default 1)")
        ->check(CLI::Range(1, 100));
    app.add_option("--cost-per-hour", cost_per_hour_, "Price of the build machine in USD per hour, for the cost column")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--bench-dir", bench_dir_, "Where the build folders and caches go (default: DIR/build-kiln-bench)");
    app.add_option("--build-type", build_type_, "CMake build type (default Release)");
    app.add_option("-D,--define", defines_, "Extra CMake cache entry KEY=VALUE; repeatable");
    app.add_flag("--json", json_, "Print the results as JSON");
    app.add_flag("--markdown", markdown_, "Print the table as Markdown (for docs/benchmarks.md)");
  }

  int run(io::Seams& s) override {
    auto axes = report::parse_matrix(matrix_);
    if (!axes) throw UsageError(axes.error());
    const auto configs = report::expand(*axes);
    const std::string project = resolve_project_dir(dir_, s);
    std::string bench_dir = bench_dir_.empty() ? project + "/build-kiln-bench" : bench_dir_;
    while (bench_dir.size() > 1 && bench_dir.back() == '/') bench_dir.pop_back();
    auto cmake = io::which(s, "cmake");
    if (!cmake) throw Failure("cmake not found on PATH; install it (apt-get install cmake)");
    const auto machine = probe::probe_machine(s.fs, probe::online_cpus());
    probe::SystemGpuQuery gpus(s);

    std::vector<report::ConfigSummary> rows;
    int n = 0;
    const int total = static_cast<int>(configs.size()) * repeat_;
    for (const auto& cfg : configs) {
      const std::string dir = bench_dir + "/" + cfg.id();
      // A fresh folder per configuration: an up-to-date build or a left-over cache would measure nothing.
      s.proc.run(io::ProcessSpec{.argv = {*cmake, "-E", "rm", "-rf", dir}});
      s.fs.make_dirs(dir);
      run::BuildRequest req;
      req.project_dir = project;
      req.archs = cfg.arch_spec();
      if (cfg.jobs) req.jobs = cfg.jobs;
      req.generator = cfg.cmake_generator();
      req.ccache = cfg.cache != "off";
      req.build_type = build_type_;
      req.cmake_defines = defines_;

      std::vector<report::RunResult> runs;
      std::string warm_error;
      if (cfg.cache == "warm") {
        req.build_dir = dir + "/warmup";
        req.cache_dir = dir + "/ccache";
        s.err << fmt::format("kiln bench: {}: warming the cache\n", cfg.label());
        auto r = build_once(req, s, machine, gpus);
        if (!r.ok) warm_error = "warm-up: " + r.error;
      }
      for (int k = 1; k <= repeat_; ++k) {
        ++n;
        report::RunResult r;
        if (!warm_error.empty()) {
          r.error = warm_error;
        } else {
          req.build_dir = fmt::format("{}/run{}", dir, k);
          if (cfg.cache == "cold") req.cache_dir = fmt::format("{}/ccache-run{}", dir, k);
          s.err << fmt::format("kiln bench: [{}/{}] {} run {}/{}\n", n, total, cfg.label(), k, repeat_);
          r = build_once(req, s, machine, gpus);
        }
        s.err << (r.ok ? fmt::format("kiln bench:   {:.1f}s (configure {:.1f}s, build {:.1f}s)\n", r.total_s(),
                                     r.configure_s, r.build_s)
                       : fmt::format("kiln bench:   failed: {}\n", r.error));
        runs.push_back(std::move(r));
      }
      rows.push_back(report::summarize(cfg, std::move(runs),
                                       cost_per_hour_ >= 0 ? std::optional<double>(cost_per_hour_) : std::nullopt));
    }

    bool all_ok = true;
    for (const auto& r : rows) all_ok = all_ok && r.ok_runs == static_cast<int>(r.runs.size());
    if (json_) {
      nlohmann::ordered_json j = {{"project", project},
                                  {"bench_dir", bench_dir},
                                  {"repeat", repeat_},
                                  {"cores", machine.usable_cores()},
                                  {"cost_per_hour", cost_per_hour_ >= 0 ? nlohmann::ordered_json(cost_per_hour_) : nullptr},
                                  {"configs", report::bench_json(rows)}};
      s.out << j.dump(2) << "\n";
    } else {
      s.out << report::bench_table(rows, markdown_);
    }
    return all_ok ? kOk : kFindings;
  }

 private:
  report::RunResult build_once(const run::BuildRequest& req, io::Seams& s, const probe::MachineInfo& machine,
                               probe::GpuQuery& gpus) {
    report::RunResult r;
    r.build_dir = req.build_dir;
    auto plan = run::make_plan(req, s, gpus, machine);
    if (!plan) {
      if (plan.error().usage) throw UsageError(plan.error().message);
      throw Failure(plan.error().message);
    }
    if (plan->kind != run::ProjectKind::cmake)
      throw UsageError(fmt::format("{} is a {}; kiln bench compares CMake projects", req.project_dir, plan->project_kind));
    auto o = run::run_cmake_build(*plan, s, run::ProgressSink{});
    r.ok = o.ok;
    if (!o.ok) r.error = fmt::format("{} failed, see {}", o.failed_step, plan->log_path());
    r.configure_s = o.configure_time.count() / 1000.0;
    r.build_s = o.build_time.count() / 1000.0;
    r.peak_rss_kib = o.peak_rss_kib;
    if (o.has_cache_stats) r.cache = o.cache;
    for (const auto& a : o.artifacts)
      if (auto size = s.fs.size(a)) r.libraries[a.substr(a.find_last_of('/') + 1)] = *size;
    if (o.ok && plan->generator == "Ninja")
      if (auto in = report::load_build(plan->build_dir, s, machine.usable_cores())) {
        auto p = report::compute_profile(*in);
        r.critical_path_s = p.critical_path_ms / 1000.0;
        r.efficiency = p.efficiency;
        if (p.peak_memory_kib >= 0) r.peak_concurrent_kib = p.peak_memory_kib;
      }
    return r;
  }

  std::string dir_, bench_dir_, build_type_;
  std::vector<std::string> matrix_, defines_;
  int repeat_ = 1;
  double cost_per_hour_ = -1;
  bool json_ = false, markdown_ = false;
};

}  // namespace

std::unique_ptr<Command> make_bench() { return std::make_unique<BenchCommand>(); }

}  // namespace kiln::cli
