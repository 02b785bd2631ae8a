#include "run/plan_report.hpp"

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/compat.hpp"

namespace kiln::run {

using json = nlohmann::ordered_json;

nlohmann::ordered_json plan_to_json(const Plan& p) {
  json targets = json::array();
  for (const auto& t : p.targets) targets.push_back({{"arch", t.arch.sm()}, {"kind", core::to_string(t.kind)}});
  json gpus = json::array();
  for (const auto& g : p.gpus) {
    auto c = core::coverage(p.targets, g.cc);
    gpus.push_back({{"gpu", g.name},
                    {"cc", core::cc_string(g.cc)},
                    {"verdict", core::to_string(c.verdict)},
                    {"via", c.via ? json(c.via->name())
                                  : json(nullptr)}});
  }
  json options = json::array();
  for (const auto& o : p.options)
    options.push_back({{"name", o.name}, {"on", o.on}, {"origin", o.origin}, {"reason", o.reason}});
  return {{"project", p.project_dir},
          {"kind", p.project_kind},
          {"profile", p.profile.empty() ? json(nullptr) : json(p.profile)},
          {"build_dir", p.build_dir},
          {"build_type", p.build_type},
          {"targets", targets},
          {"archs", {{"source", p.arch_source},
                     {"reason", p.arch_reason},
                     {"torch", core::format_torch(p.targets).value_or("")},
                     {"cmake", core::format_cmake(p.targets)}}},
          {"gpus", gpus},
          {"jobs", {{"jobs", p.jobs.jobs},
                    {"forced", p.jobs_forced},
                    {"by_cores", p.jobs.by_cores},
                    {"by_memory", p.jobs.by_memory},
                    {"bytes_per_job", static_cast<std::int64_t>(p.jobs.gib_per_job * 1073741824.0 + 0.5)},
                    {"arithmetic", p.jobs.arithmetic}}},
          {"tools", {{"cmake", p.cmake}, {"ninja", p.ninja}, {"nvcc", p.nvcc}, {"nvcc_version", p.nvcc_version},
                     {"ccache", p.ccache.empty() ? json(nullptr) : json(p.ccache)}}},
          {"cache_dir", p.cache_dir.empty() ? json(nullptr) : json(p.cache_dir)},
          {"governor", p.governed() ? json{{"budget_bytes", static_cast<std::int64_t>(p.mem_budget_kib) * 1024}, {"prune_archs", p.prune_archs},
                                           {"exec_log", p.exec_log_path()}}
                                    : json(nullptr)},
          {"options", options},
          {"env", p.env},
          {"build_command", p.build_argv()},
          {"notes", p.notes}};
}

std::string plan_to_text(const Plan& p) {
  std::string out;
  out += fmt::format("project   {} ({})\n", p.project_dir, p.project_kind);
  out += fmt::format("build dir {} ({})\n", p.build_dir, p.build_type);
  out += fmt::format("targets   {}  [{}: {}]\n", core::format_cmake(p.targets), p.arch_source, p.arch_reason);
  for (const auto& g : p.gpus) {
    auto c = core::coverage(p.targets, g.cc);
    out += fmt::format("  runs on {} (cc {}): {}\n", g.name, core::cc_string(g.cc), core::to_string(c.verdict));
  }
  out += fmt::format("jobs      {}  [{}{}]\n", p.jobs.jobs, p.jobs_forced ? "forced by --jobs; memory allows: " : "",
                     p.jobs.arithmetic);
  if (p.kind == ProjectKind::cmake)
    out += fmt::format("tools     cmake {}, ninja {}, nvcc {} ({})\n", p.cmake, p.ninja, p.nvcc, p.nvcc_version);
  else
    out += fmt::format("tools     {}, ninja {}, nvcc {} ({})\n", p.python, p.ninja.empty() ? "none" : p.ninja,
                       p.nvcc.empty() ? "none" : p.nvcc, p.nvcc_version);
  std::string cmd;
  for (const auto& a : p.build_argv()) cmd += (cmd.empty() ? "" : " ") + a;
  out += "command   " + cmd + "\n";
  out += fmt::format("cache     {}\n", p.ccache.empty() ? std::string("none") : "ccache " + p.ccache +
                                                                                 (p.cache_dir.empty() ? "" : " in " + p.cache_dir));
  if (p.governed())
    out += fmt::format("governor  compiles reserve their learned peak memory within {:.1f} GiB{}\n", p.mem_budget_kib / 1048576.0,
                       p.prune_archs ? "; nvcc -gencode flags pruned to the targets" : "");
  for (const auto& o : p.options)
    if (!o.reason.empty()) out += fmt::format("option    {}={}  [{}]\n", o.name, o.on ? 1 : 0, o.reason);
  if (!p.env.empty()) {
    out += "env      ";
    for (const auto& [k, v] : p.env) out += " " + k + "=" + v;
    out += "\n";
  }
  if (!p.profile.empty()) out += "profile   " + p.profile + "\n";
  for (const auto& n : p.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace kiln::run
