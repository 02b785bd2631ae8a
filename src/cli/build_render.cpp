#include "cli/build_render.hpp"

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/verify_json.hpp"
#include "core/arch_spec.hpp"
#include "core/duration_text.hpp"
#include "diagnose/render.hpp"
#include "plan/plan_report.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

// A build's phases keep tenths under a minute ("12.3s"), then "1m05s" as every duration kiln prints.
constexpr auto kTenths = core::ShortSpan::tenths_under_1m;

json diagnosis_json(const drive::BuildVerdict& v) {
  if (v.ok) return nullptr;
  if (v.nothing_compiled) return {{"id", "kiln.nothing-compiled"}, {"cause", *v.nothing_compiled}, {"fix", nullptr}};
  if (v.no_cuda) return {{"id", "kiln.no-cuda-built"}, {"cause", *v.no_cuda}, {"fix", nullptr}};
  if (v.failed_step == "verify")
    return {{"id", "kiln.verify-failed"},
            {"cause", v.verified.problems.front().why},
            {"fix", v.verified.problems.front().fix}};
  const auto* root = v.diagnosis.root_cause();
  if (!root && v.full_disk) return {{"id", "resources.no-space"}, {"cause", *v.full_disk}};
  if (!root) return {{"id", nullptr}, {"cause", "no known signature matched; see the log"}};
  return {{"id", root->signature->id}, {"line", root->first_line}, {"cause", root->cause}, {"fix", root->fix}};
}

void print_failure(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o, const drive::BuildVerdict& v) {
  s.err << fmt::format(
      "kiln build: {} failed ({}). Full log: {}\n\n", o.failed_step,
      o.term_signal ? fmt::format("killed by signal {}", o.term_signal) : fmt::format("exit {}", o.exit_code),
      p.log_path());
  // The root cause, with the lines that prove it and the fix in the plan's terms.
  const auto& d = v.diagnosis;
  diagnose::render_text(s.err, d, p.log_path(), {});
  if (v.full_disk && (!d.root_cause() || d.root_cause()->signature->id != "resources.no-space"))
    s.err << *v.full_disk << ": the disk filled up; free space, or pass --build-dir on a larger disk\n";
}

void print_summary(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o, const binary::VerifyReport& v,
                   const std::optional<drive::CompileSpan>& span) {
  // Built but not runnable where planned is a failed build: the first word says so.
  if (!v.ok()) s.out << "FAILED: the build finished but its files do not pass verification (below)\n";
  if (p.kind == read::ProjectKind::extension && o.wheel_cache.hit)
    s.out << fmt::format(
        "installed {} in {}: its wheel was built before from the same inputs (kiln's wheel cache, "
        "key {}); nothing compiled, --no-wheel-cache builds it\n",
        p.project_dir, core::duration_text(o.build_time, kTenths), o.wheel_cache.key.substr(0, 12));
  else if (p.kind == read::ProjectKind::extension)  // the backend runs and pip installs
    s.out << fmt::format("built {} in {} (wheel {}, pip install {}), {} compile step{}\n", p.project_dir,
                         core::duration_text(o.build_time, kTenths),
                         core::duration_text(o.build_time - o.install_time, kTenths),
                         core::duration_text(o.install_time, kTenths), o.steps_run, o.steps_run == 1 ? "" : "s");
  else if (o.steps_run == 0)  // a no-op: say so, not "0 steps" and a 0% hit rate
    s.out << fmt::format("up to date: {} (nothing to build{}; {})\n", p.project_dir,
                         o.configure_skipped ? ", CMake not re-run" : "",
                         core::duration_text(o.configure_time + o.build_time, kTenths));
  else
    s.out << fmt::format("built {} in {} (configure {}, build {}), {} step{}\n", p.project_dir,
                         core::duration_text(o.configure_time + o.build_time, kTenths),
                         o.configure_skipped ? std::string("skipped") : core::duration_text(o.configure_time, kTenths),
                         core::duration_text(o.build_time, kTenths), o.steps_run, o.steps_run == 1 ? "" : "s");
  if (span)
    s.out << fmt::format(
        "compiles  {} of it ({} compiler run{}): the first began {} in (the backend's start: Python, "
        "setup.py, import torch), the last ended {} before the end (the wheel, pip install)\n",
        core::duration_text(span->span_s * 1000, kTenths), span->units, span->units == 1 ? "" : "s",
        core::duration_text(span->before_s * 1000, kTenths), core::duration_text(span->after_s * 1000, kTenths));
  if (p.no_cuda.empty())
    s.out << fmt::format("targets   {}\n", core::format_cmake(p.targets));
  else
    s.out << "targets   none (no CUDA code is compiled: " << p.no_cuda << ")\n";
  if (!o.wheel.empty()) s.out << "wheel     " << o.wheel << "  (installed)\n";
  s.out << fmt::format("peak RSS  {} MiB (largest single process)\n", o.peak_rss_kib / 1024);
  if (o.has_cache_stats && o.cache.hits + o.cache.misses > 0)
    s.out << fmt::format("ccache    {} hits{}, {} misses ({:.0f}% hit rate)\n", o.cache.hits,
                         o.cache.remote_hits
                             ? fmt::format(" ({} local, {} remote)", o.cache.local_hits(), o.cache.remote_hits)
                             : std::string(),
                         o.cache.misses, 100.0 * o.cache.hit_rate());
  for (const auto& a : o.artifacts) {
    std::string line = "  " + a;
    for (const auto& f : v.files)
      if (f.file == a) {
        line += "  [" + core::format_cmake(f.targets) + "]";
        for (const auto& g : f.gpus) line += fmt::format("  {}: {}", g.gpu, core::to_string(g.coverage.verdict));
      }
    s.out << line << "\n";
  }
  if (v.files.empty() && p.cuda())
    s.out << "note: no built file holds CUDA code (kiln sees no CUDA source in the project), so nothing was checked "
             "against the GPUs\n";
  else if (v.ok())
    s.out << fmt::format("verified  {} file{}: {}every library resolves\n", v.files_checked,
                         v.files_checked == 1 ? "" : "s",
                         p.gpus.empty() ? "" : "every planned GPU has a kernel image, ");
  for (const auto& pr : v.problems) s.out << "verify: " << pr.line() << "\n";
  s.out << "log       " << p.log_path() << "\n";
  if (!v.ok()) s.err << "kiln build: FAILED: verify: " << v.problems.front().line() << "\n";
}

}  // namespace

json build_json(const plan::Plan& p, const drive::BuildOutcome& o, const drive::BuildVerdict& v,
                const std::optional<drive::CompileSpan>& span) {
  json artifacts = json::array();
  for (const auto& a : o.artifacts) artifacts.push_back(a);
  json j = {
      {"plan", plan::plan_to_json(p)},
      {"outcome",
       {{"ok", v.ok},
        {"failed_step", v.ok ? json(nullptr) : json(v.failed_step)},
        {"exit_code", v.exit_code},
        {"configure_s", o.configure_time.count() / 1000.0},
        {"build_s", o.build_time.count() / 1000.0},
        {"install_s", p.kind == read::ProjectKind::extension ? json(o.install_time.count() / 1000.0) : json(nullptr)},
        {"wheel", o.wheel.empty() ? json(nullptr) : json(o.wheel)},
        {"wheel_cache", o.wheel_cache.key.empty()
                            ? json(nullptr)
                            : json{{"key", o.wheel_cache.key},
                                   {"dir", o.wheel_cache.root.empty() ? json(nullptr) : json(o.wheel_cache.root)},
                                   {"hit", o.wheel_cache.hit},
                                   {"stored", o.wheel_cache.stored}}},
        {"steps", o.steps_run},
        {"up_to_date", o.ok && o.steps_run == 0 && p.kind == read::ProjectKind::cmake},
        {"configure_skipped", o.configure_skipped},
        {"peak_rss_bytes", o.peak_rss_kib * 1024},
        {"cache", o.has_cache_stats ? json{{"hits", o.cache.hits},
                                           {"local_hits", o.cache.local_hits()},
                                           {"misses", o.cache.misses},
                                           {"remote_hits", o.cache.remote_hits},
                                           {"hit_rate", o.cache.hit_rate()}}
                                    : json(nullptr)},
        {"artifacts", artifacts},
        {"compiles", span ? json{{"before_s", span->before_s},
                                 {"span_s", span->span_s},
                                 {"after_s", span->after_s},
                                 {"units", span->units}}
                          : json(nullptr)},
        {"log", p.log_path()},
        {"diagnosis", diagnosis_json(v)}}}};
  // The same shape as kiln verify --json (kiln.build/2; /1 had its own, smaller one).
  if (o.ok) j["outcome"]["verify"] = verify_report_json(v.verified, binary::VerifyOptions{}.kernel_names);
  return j;
}

int print_build_text(io::Seams& s, const plan::Plan& p, const drive::BuildOutcome& o, const drive::BuildVerdict& v,
                     const std::optional<drive::CompileSpan>& span) {
  if (!o.ok) {
    print_failure(s, p, o, v);
    return kFindings;
  }
  // Nothing compiled at all comes first: it is why no CUDA was compiled either.
  if (v.nothing_compiled) {
    s.err << "kiln build: failed: " << *v.nothing_compiled << ". Full log: " << p.log_path() << "\n";
    return kFindings;
  }
  if (v.no_cuda) {
    s.err << "kiln build: failed: " << *v.no_cuda << ". Full log: " << p.log_path() << "\n";
    return kFindings;
  }
  print_summary(s, p, o, v.verified, span);
  return v.ok ? kOk : kFindings;
}

}  // namespace kiln::cli
