// kiln bench: build one project under several configurations (arch lists, cold or warm cache,
// Ninja or Make, job counts), each in its own build folder, and compare time, memory, library
// size, cache hit rate and cost.
#include <fmt/format.h>

#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli/command.hpp"
#include "cli/json_out.hpp"
#include "cli/project_dir.hpp"
#include "core/text.hpp"
#include "core/duration_text.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "report/build_folders.hpp"
#include "report/compute_profile.hpp"
#include "report/bench.hpp"
#include "report/load.hpp"
#include "drive/build.hpp"
#include "drive/cmake_build.hpp"
#include "io/interrupt.hpp"
#include "plan/make_plan.hpp"
#include "read/project_kind.hpp"

namespace kiln::cli {
namespace {

class BenchCommand final : public Command {
public:
  const char* name() const override { return "bench"; }
  const char* summary() const override {
    return "Build a project under several configurations and compare time, memory, size, cache and cost";
  }
  void setup(CLI::App& app) override {
    app.add_option("dir", dir_,
                   "Project directory (default: the current folder when it is a project; the bundled example from the "
                   "kiln repository)");
    app.add_option("--matrix", matrix_,
                   "KEY=V1,V2: archs (join entries with +: 80-real+90-real), cache (cold, warm, off), "
                   "generator (Ninja, Make), jobs, build (kiln, default: the project's own build without kiln); "
                   "repeatable, every combination is built")
        ->allow_extra_args(false);
    app.add_option("--repeat", repeat_, "Builds per configuration; the table shows medians (default 1)")
        ->check(number_in(1, 100));
    app.add_option("--cost-per-hour", cost_per_hour_, "Price of the build machine in USD per hour, for the cost column")
        ->check(number_in(0, std::numeric_limits<double>::infinity(), false));
    app.add_option("--bench-dir", bench_dir_, "Where the build folders and caches go (default: DIR/build-kiln-bench)");
    app.add_option("--build-type", build_type_, "CMake build type (default Release)");
    app.add_option("-D,--define", defines_, "Extra CMake cache entry KEY=VALUE; repeatable");
    app.add_option("--python", python_, "Python interpreter for torch extensions (default: $PYTHON, python3)");
    app.add_flag("--json", json_, "Print the results as JSON");
    app.add_flag("--markdown", markdown_, "Print the table as Markdown (for docs/benchmarks.md)");
    app.add_option("--json-file", json_file_, "Also write the JSON results to FILE");
  }

  std::optional<ProjectArg> project_arg() const override { return ProjectArg{dir_}; }

  int run(io::Seams& s) override {
    auto axes = report::parse_matrix(matrix_);
    if (!axes) throw UsageError(axes.error());
    const auto configs = report::expand(*axes);
    const std::string project = resolve_project_dir(dir_, s).dir;
    const auto kind = read::read_project_kind(s, project, python_).kind;  // as kiln plan reads it
    if (kind == read::ProjectKind::pytorch)
      throw UsageError(
          fmt::format("{} is a PyTorch checkout; kiln bench compares CMake projects and torch extensions", project));
    // An extension builds inside its own tree, so each run builds a copy, and the copies live beside it.
    const bool copy = kind == read::ProjectKind::extension;
    std::string bench_dir = !bench_dir_.empty() ? bench_dir_
                            : copy              ? project + "-kiln-bench"
                                                : project + "/build-kiln-bench";
    bench_dir = core::without_trailing_slashes(std::move(bench_dir));
    if (copy && (bench_dir + "/").rfind(project + "/", 0) == 0)
      throw UsageError(
          fmt::format("--bench-dir {} is inside the extension {}, which each run copies; choose a folder "
                      "outside it",
                      bench_dir, project));
    auto cmake = io::which(s, "cmake");
    if (!cmake) throw Failure("cmake not found on PATH; install it (apt-get install cmake)");
    const auto machine = probe::probe_machine(s.fs, probe::online_cpus());
    probe::SystemGpuQuery gpus(s);

    std::vector<report::ConfigSummary> rows;
    // A cold run's cache, once its build finished, is a cache warmed by that exact configuration:
    // the warm configuration with the same archs, generator and jobs starts from it.
    std::map<std::string, std::string> warmed;
    auto warm_key = [](const report::BenchConfig& c) { return fmt::format("{}|{}|{}", c.archs, c.generator, c.jobs); };
    int n = 0;
    const int total = static_cast<int>(configs.size()) * repeat_;
    // SIGINT/SIGTERM/SIGHUP reach the running build's tree (as in kiln build); no row starts after one.
    io::BuildInterrupts interrupts(std::chrono::seconds(10));
    auto stopped = [&](int sig) { return stopped_after(s, interrupts, sig, n, total); };
    for (const auto& cfg : configs) {
      if (int sig = io::BuildInterrupts::received()) return stopped(sig);
      const std::string dir = bench_dir + "/" + cfg.id();
      // A fresh folder per configuration: an up-to-date build or a left-over cache would measure nothing.
      s.proc.run(io::ProcessSpec{.argv = {*cmake, "-E", "rm", "-rf", dir}});
      s.fs.make_dirs(dir);
      plan::BuildRequest req;
      req.project_dir = project;
      req.archs = cfg.arch_spec();
      if (cfg.jobs) req.jobs = cfg.jobs;
      req.generator = cfg.cmake_generator();
      req.ccache = cfg.cache != report::BenchCache::off;
      // A cold or uncached run must build: only a warm run may install a torch extension's wheel
      // kept from the same inputs, as a rebuild with `kiln build` would.
      req.wheel_cache = cfg.cache == report::BenchCache::warm;
      req.build_type = build_type_;
      req.cmake_defines = defines_;
      req.python = python_;
      // kiln's own launcher and compiler links, as `kiln build` uses them (the cache reaches a
      // torch extension's compilers only through them).
      std::error_code ec;
      if (auto exe = std::filesystem::read_symlink("/proc/self/exe", ec); !ec) req.kiln_exe = exe.string();

      std::vector<report::RunResult> runs;
      std::string warm_error;
      if (cfg.is_default()) {
        for (int k = 1; k <= repeat_; ++k) {
          ++n;
          s.err << fmt::format("kiln bench: [{}/{}] {} run {}/{}\n", n, total, cfg.label(), k, repeat_);
          auto r = default_once(project, kind, fmt::format("{}/run{}", dir, k), s, machine);
          s.err << run_line(r);
          runs.push_back(std::move(r));
        }
        rows.push_back(report::summarize(cfg, std::move(runs), cost()));
        continue;
      }
      if (cfg.cache == report::BenchCache::warm) {
        if (auto it = warmed.find(warm_key(cfg)); it != warmed.end()) {
          req.cache_dir = it->second;
          s.err << fmt::format("kiln bench: {}: the cache of the cold run is the warm cache\n", cfg.label());
        } else {
          req.cache_dir = dir + "/ccache";
          s.err << fmt::format("kiln bench: {}: warming the cache\n", cfg.label());
          auto r = build_once(req, dir + "/warmup", copy ? project : "", s, machine, gpus);
          if (!r.ok) warm_error = "warm-up: " + r.error;
        }
      }
      for (int k = 1; k <= repeat_; ++k) {
        ++n;
        report::RunResult r;
        if (!warm_error.empty()) {
          r.error = warm_error;
        } else {
          if (cfg.cache == report::BenchCache::cold) req.cache_dir = fmt::format("{}/ccache-run{}", dir, k);
          s.err << fmt::format("kiln bench: [{}/{}] {} run {}/{}\n", n, total, cfg.label(), k, repeat_);
          r = build_once(req, fmt::format("{}/run{}", dir, k), copy ? project : "", s, machine, gpus);
          if (r.ok && k == 1 && cfg.cache == report::BenchCache::cold) warmed[warm_key(cfg)] = req.cache_dir;
        }
        s.err << run_line(r);
        runs.push_back(std::move(r));
      }
      rows.push_back(report::summarize(cfg, std::move(runs), cost()));
    }

    if (int sig = io::BuildInterrupts::received()) return stopped(sig);
    report::compare_with_default(rows);
    bool all_ok = true;
    for (const auto& r : rows) all_ok = all_ok && r.ok_runs == static_cast<int>(r.runs.size());
    nlohmann::ordered_json j = {
        {"project", project},
        {"bench_dir", bench_dir},
        {"repeat", repeat_},
        {"cores", machine.usable_cores()},
        {"cost_per_hour", cost_per_hour_ >= 0 ? nlohmann::ordered_json(cost_per_hour_) : nullptr},
        {"configs", report::bench_json(rows)}};
    if (!json_file_.empty() && !s.fs.write(json_file_, json_text("bench", j)))
      throw Failure(fmt::format("cannot write {}", json_file_));
    if (json_) {
      print_json(s.out, "bench", std::move(j));
    } else {
      s.out << report::bench_table(rows, markdown_);
    }
    return all_ok ? kOk : kFindings;
  }

  // A stop signal came: waits for the running row's tree, says how far the bench got.
  static int stopped_after(io::Seams& s, const io::BuildInterrupts& interrupts, int sig, int done, int total) {
    const auto settled = interrupts.settle(std::chrono::seconds(5));
    s.err << "kiln bench: stopped by " << io::signal_name(sig) << " after " << done << " of " << total << " runs"
          << (settled.clean ? "; nothing of it still runs\n" : "; some of its processes did not stop\n");
    return settled.clean ? 128 + sig : static_cast<int>(kFindings);
  }

private:
  std::optional<double> cost() const {
    return cost_per_hour_ >= 0 ? std::optional<double>(cost_per_hour_) : std::nullopt;
  }
  // One run's outcome, as the progress line under its header.
  static std::string run_line(const report::RunResult& r) {
    constexpr auto kTenths = core::ShortSpan::tenths_under_1m;
    return r.ok
               ? fmt::format(
                     "kiln bench:   {} (configure {}, build {})\n", core::duration_text(r.total_s() * 1000, kTenths),
                     core::duration_text(r.configure_s * 1000, kTenths), core::duration_text(r.build_s * 1000, kTenths))
               : fmt::format("kiln bench:   failed: {}\n", r.error);
  }
  // One build in `run_dir`; an extension (`copy_from` set) is first copied to run_dir/src, without
  // the build/ folder a previous build of it left, and built there.
  report::RunResult build_once(plan::BuildRequest req, const std::string& run_dir, const std::string& copy_from,
                               io::Seams& s, const probe::MachineInfo& machine, probe::GpuQuery& gpus) {
    report::RunResult r;
    req.build_dir = run_dir;
    r.build_dir = run_dir;
    if (!copy_from.empty()) {
      req.project_dir = run_dir + "/src";
      const auto cmake = io::which(s, "cmake").value_or("cmake");
      auto c = s.proc.run(io::ProcessSpec{.argv = {cmake, "-E", "copy_directory", copy_from, req.project_dir}});
      if (!c.ok()) throw Failure(fmt::format("could not copy {} to {}: {}", copy_from, req.project_dir, c.err));
      s.proc.run(io::ProcessSpec{.argv = {cmake, "-E", "rm", "-rf", req.project_dir + "/build"}});
    }
    auto plan = plan::make_plan(req, s, gpus, machine);
    if (!plan) {
      if (plan.error().usage) throw UsageError(plan.error().message);
      throw Failure(plan.error().message);
    }
    auto o = drive::run_build(*plan, s, drive::ProgressSink{});
    r.ok = o.ok;
    if (!o.ok) r.error = fmt::format("{} failed, see {}", o.failed_step, plan->log_path());
    r.configure_s = o.configure_time.count() / 1000.0;
    r.build_s = o.build_time.count() / 1000.0;
    r.peak_rss_kib = o.build_peak_rss_kib;
    if (o.has_cache_stats) r.cache = o.cache;
    for (const auto& a : o.artifacts)
      if (auto size = s.fs.size(a)) r.libraries[a.substr(a.find_last_of('/') + 1)] = *size;
    // The Ninja folders: kiln's build folder, or those torch.utils.cpp_extension made where this
    // build's setuptools built (BUILD/setuptools/temp.*, one per extension when they built at once;
    // found as kiln report finds them), joined on the launcher's clock.
    if (o.ok) {
      const auto found = report::find_build_folders(s.fs, plan->build_dir);
      std::vector<report::ProfileInput> parts;
      for (const auto& d : found.ninja_dirs)
        if (auto in = report::load_build(d, s, machine.usable_cores(), std::nullopt, found.kiln_dir))
          parts.push_back(std::move(*in));
      if (!parts.empty()) {
        auto p = report::compute_profile(report::merge_inputs(std::move(parts)));
        r.critical_path_s = p.critical_path_ms / 1000.0;
        r.efficiency = p.efficiency;
        if (p.peak_memory_kib >= 0) r.peak_concurrent_kib = p.peak_memory_kib;
      }
    }
    return r;
  }

  // The project's own build, as its README says, in `run_dir`: nothing of kiln's in its environment
  // (no launcher, no ccache, no arch or job settings). A torch extension: a fresh copy and
  // `pip install --no-build-isolation --no-deps -v .` (its archs, torch's default job count); a
  // CMake project: `cmake -S -B` then `cmake --build` with CMake's default generator and jobs.
  report::RunResult default_once(const std::string& project, read::ProjectKind kind, const std::string& run_dir,
                                 io::Seams& s, const probe::MachineInfo& machine) {
    report::RunResult r;
    r.build_dir = run_dir;
    const auto cmake = io::which(s, "cmake").value_or("cmake");
    s.fs.make_dirs(run_dir);
    std::ofstream log(run_dir + "/default.log", std::ios::trunc);
    auto step = [&](const std::vector<std::string>& argv, const std::string& cwd, double& seconds) {
      log << "kiln bench: " << fmt::format("{}", fmt::join(argv, " ")) << "\n";
      io::ProcessSpec spec{.argv = argv, .cwd = cwd};
      spec.new_process_group = true;
      spec.on_line = [&](std::string_view line) { log << line << "\n"; };
      const auto t0 = s.clock.now();
      auto p = s.proc.run(spec);
      seconds = std::chrono::duration<double>(s.clock.now() - t0).count();
      r.peak_rss_kib = std::max(r.peak_rss_kib, p.peak_rss_kib);
      if (!p.ok())
        r.error = fmt::format("{} {}, see {}/default.log", argv.size() > 2 ? argv[2] : argv[0],
                              p.started ? fmt::format("exit {}", p.exit_code) : p.spawn_error, run_dir);
      return p.ok();
    };
    std::string artifacts_dir, ninja_dir;
    if (kind == read::ProjectKind::extension) {
      const std::string src = run_dir + "/src";
      auto c = s.proc.run(io::ProcessSpec{.argv = {cmake, "-E", "copy_directory", project, src}});
      if (!c.ok()) throw Failure(fmt::format("could not copy {} to {}: {}", project, src, c.err));
      s.proc.run(io::ProcessSpec{.argv = {cmake, "-E", "rm", "-rf", src + "/build"}});
      std::string py = !python_.empty() ? python_ : s.env.get("PYTHON").value_or("python3");
      py = io::which(s, py).value_or(py);
      r.ok = step({py, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-v", "."}, src, r.build_s);
      artifacts_dir = src + "/build";
      for (const auto& d : s.fs.list(artifacts_dir))
        if (s.fs.exists(artifacts_dir + "/" + d + "/.ninja_log")) ninja_dir = artifacts_dir + "/" + d;
    } else {
      const std::string b = run_dir + "/build";
      r.ok = step({cmake, "-S", project, "-B", b}, project, r.configure_s) &&
             step({cmake, "--build", b}, project, r.build_s);
      artifacts_dir = b;
      if (s.fs.exists(b + "/.ninja_log")) ninja_dir = b;
    }
    if (!r.ok) return r;
    for (const auto& a : drive::find_artifacts(s.fs, artifacts_dir))
      if (auto size = s.fs.size(a)) r.libraries[a.substr(a.find_last_of('/') + 1)] = *size;
    if (!ninja_dir.empty())
      if (auto in = report::load_build(ninja_dir, s, machine.usable_cores())) {
        auto p = report::compute_profile(*in);
        r.critical_path_s = p.critical_path_ms / 1000.0;
        r.efficiency = p.efficiency;
      }
    return r;
  }

  std::string dir_, bench_dir_, build_type_, python_, json_file_;
  std::vector<std::string> matrix_, defines_;
  int repeat_ = 1;
  double cost_per_hour_ = -1;
  bool json_ = false, markdown_ = false;
};

}  // namespace

std::unique_ptr<Command> make_bench() { return std::make_unique<BenchCommand>(); }

}  // namespace kiln::cli
