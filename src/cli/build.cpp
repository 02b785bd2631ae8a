// kiln build: plan, run CMake + Ninja with the planned targets, jobs and cache, then summarise.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/plan_options.hpp"
#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "probe/local_gpus.hpp"
#include "probe/machine.hpp"
#include "run/cmake_build.hpp"
#include "run/plan.hpp"
#include "run/plan_report.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

std::atomic<bool> g_interrupted{false};

// Ctrl-C stops the whole build tree (ninja and every compiler under it), not just kiln.
void on_sigint(int) {
  g_interrupted = true;
  if (int pg = io::current_child_group(); pg > 0) ::kill(-pg, SIGINT);
}

std::string seconds(std::chrono::milliseconds ms) { return fmt::format("{:.1f}s", ms.count() / 1000.0); }

class BuildCommand final : public Command {
 public:
  const char* name() const override { return "build"; }
  const char* summary() const override {
    return "Plan, build and verify a CMake CUDA project (default: the bundled example)";
  }
  void setup(CLI::App& app) override {
    app.add_option("dir", dir_, "Project directory: CMake project, PyTorch checkout or torch extension (default: the bundled example)");
    add_plan_options(app, req_);
    app.add_flag("--json", json_, "Print the plan and the outcome as JSON");
  }

  int run(io::Seams& s) override {
    const run::Plan plan = plan_or_throw(dir_, req_, s);
    if (!json_) s.err << run::plan_to_text(plan) << "\n";

    const bool tty = ::isatty(STDERR_FILENO);
    auto last_print = s.clock.now() - std::chrono::hours(1);
    run::ProgressSink sink;
    sink.on_status = [&](const run::NinjaStatus& st, std::chrono::milliseconds elapsed) {
      if (json_) return;
      auto line = run::progress_line(st, run::estimate_remaining(st, elapsed), 110);
      if (tty) {
        s.err << "\r\033[K" << line << std::flush;
      } else if (s.clock.now() - last_print > std::chrono::seconds(5) || st.done == st.total) {
        // A CI log gets a line every few seconds, not one per step.
        s.err << line << "\n";
        last_print = s.clock.now();
      }
    };
    struct sigaction sa {}, old {};
    sa.sa_handler = on_sigint;
    ::sigaction(SIGINT, &sa, &old);
    g_interrupted = false;
    auto outcome = run::run_cmake_build(plan, s, sink);
    ::sigaction(SIGINT, &old, nullptr);
    if (tty && !json_) s.err << "\r\033[K";

    if (g_interrupted) {
      s.err << "kiln build: interrupted; stopped the build. Full log: " << plan.log_path() << "\n";
      return 130;
    }
    if (json_) {
      s.out << outcome_json(plan, outcome).dump(2) << "\n";
      return outcome.ok ? kOk : kFindings;
    }
    if (!outcome.ok) {
      print_failure(s, plan, outcome);
      return kFindings;
    }
    print_summary(s, plan, outcome);
    return kOk;
  }

 private:
  static json outcome_json(const run::Plan& p, const run::BuildOutcome& o) {
    json artifacts = json::array();
    for (const auto& a : o.artifacts) artifacts.push_back(a);
    return {{"plan", run::plan_to_json(p)},
            {"outcome",
             {{"ok", o.ok},
              {"failed_step", o.ok ? json(nullptr) : json(o.failed_step)},
              {"exit_code", o.exit_code},
              {"configure_seconds", o.configure_time.count() / 1000.0},
              {"build_seconds", o.build_time.count() / 1000.0},
              {"steps", o.steps_run},
              {"peak_rss_mib", o.peak_rss_kib / 1024},
              {"cache", o.has_cache_stats ? json{{"hits", o.cache.hits},
                                                 {"misses", o.cache.misses},
                                                 {"remote_hits", o.cache.remote_hits},
                                                 {"hit_rate", o.cache.hit_rate()}}
                                          : json(nullptr)},
              {"artifacts", artifacts},
              {"log", p.log_path()}}}};
  }

  static void print_failure(io::Seams& s, const run::Plan& p, const run::BuildOutcome& o) {
    s.err << fmt::format("kiln build: {} failed ({}). Full log: {}\n", o.failed_step,
                         o.term_signal ? fmt::format("killed by signal {}", o.term_signal) : fmt::format("exit {}", o.exit_code),
                         p.log_path());
    // The tail of the log holds the failing command and its first errors.
    if (auto text = s.fs.read(p.log_path())) {
      std::vector<std::string> lines;
      size_t start = 0;
      for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(text->substr(start, nl - start));
      size_t from = lines.size() > 25 ? lines.size() - 25 : 0;
      for (size_t i = from; i < lines.size(); ++i) s.err << "  | " << lines[i] << "\n";
    }
  }

  static void print_summary(io::Seams& s, const run::Plan& p, const run::BuildOutcome& o) {
    s.out << fmt::format("built {} in {} (configure {}, build {}), {} step{}\n", p.project_dir,
                         seconds(o.configure_time + o.build_time), seconds(o.configure_time), seconds(o.build_time),
                         o.steps_run, o.steps_run == 1 ? "" : "s");
    s.out << fmt::format("targets   {}\n", core::format_cmake(p.targets));
    s.out << fmt::format("peak RSS  {} MiB (largest single process)\n", o.peak_rss_kib / 1024);
    if (o.has_cache_stats)
      s.out << fmt::format("ccache    {} hits, {} misses ({:.0f}% hit rate)\n", o.cache.hits, o.cache.misses,
                           100.0 * o.cache.hit_rate());
    for (const auto& a : o.artifacts) s.out << "  " << a << "\n";
    for (const auto& g : p.gpus) {
      auto c = core::coverage(p.targets, g.cc);
      s.out << fmt::format("runs on {} (cc {}): {}\n", g.name, core::cc_string(g.cc), core::to_string(c.verdict));
    }
    s.out << "log       " << p.log_path() << "\n";
  }

  std::string dir_;
  PlanOptions req_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_build() { return std::make_unique<BuildCommand>(); }

}  // namespace kiln::cli
