#include "plan/plan_report.hpp"
#include "core/text.hpp"
#include "plan/install_command.hpp"

#include <fmt/format.h>

#include "core/arch_spec.hpp"
#include "core/compat.hpp"
#include "read/pytorch_options.hpp"

namespace kiln::plan {

using json = nlohmann::ordered_json;

namespace {

json configuration_json(const ConfigCheck& c) {
  if (c.cmake_dir.empty()) return nullptr;
  json changed = json::array();
  for (const auto& e : c.changed)
    changed.push_back({{"key", e.key}, {"cached", e.cached}, {"planned", e.planned}, {"source", e.source}});
  return {{"cache", c.cache_path()},
          {"exists", c.cache_exists},
          {"changed", changed},
          {"dropped", c.dropped},
          {"changed_by_cmake", c.cmake_changed},
          {"created_in", c.created_in.empty() ? json(nullptr) : json(c.created_in)},
          {"reconfigure", c.reconfigure},
          {"how", c.how.empty() ? json(nullptr) : json(c.how)}};
}

}  // namespace

nlohmann::ordered_json plan_to_json(const Plan& p) {
  json targets = json::array();
  for (const auto& t : p.targets) targets.push_back({{"arch", t.arch.sm()}, {"kind", core::to_string(t.kind)}});
  json gpus = json::array();
  for (const auto& g : p.gpus) {
    auto c = core::coverage(p.targets, g.cc);
    gpus.push_back({{"gpu", g.name},
                    {"cc", core::cc_string(g.cc)},
                    {"verdict", core::to_string(c.verdict)},
                    {"via", c.via ? json(c.via->name()) : json(nullptr)}});
  }
  json options = json::array();
  for (const auto& o : p.options) {
    json j = {{"name", o.name},
              {"on", o.on},
              {"origin", read::to_string(o.origin)},
              {"reason", o.reason},
              {"default", o.default_on},
              {"declared_at", o.declared_at},
              {"condition", o.condition.empty() ? json(nullptr) : json(o.condition)},
              {"guard", o.guard.empty() ? json(nullptr) : json(o.guard)},
              {"active", o.active},
              {"passed", read::option_is_passed(o)},
              {"note", o.note.empty() ? json(nullptr) : json(o.note)}};
    options.push_back(std::move(j));
  }
  json knobs = json::array();
  for (const auto& k : p.knobs.knobs)
    knobs.push_back({{"name", k.name},
                     {"role", k.role},
                     {"value", k.origin == read::KnobOrigin::none ? json(nullptr) : json(k.value)},
                     {"origin", k.origin == read::KnobOrigin::none ? json(nullptr) : json(read::to_string(k.origin))},
                     {"kind", k.cmake ? "cmake" : "env"},
                     {"where", k.where},
                     {"default", k.has_default ? json(k.default_value) : json(nullptr)},
                     {"reason", k.reason}});
  return {{"project", p.project_dir},
          {"project_reason", p.project_reason.empty() ? json(nullptr) : json(p.project_reason)},
          {"kind", read::to_string(p.kind)},
          {"profile", p.profile.empty() ? json(nullptr) : json(p.profile)},
          {"build_dir", p.build_dir},
          {"build_type", p.build_type},
          {"targets", targets},
          {"cuda_compiled", p.no_cuda.empty()},
          {"no_cuda", p.no_cuda.empty() ? json(nullptr) : json(p.no_cuda)},
          {"archs",
           {{"source", p.arch_source},
            {"reason", p.arch_reason},
            {"torch", core::format_torch(p.targets).value_or("")},
            {"cmake", core::format_cmake(p.targets)}}},
          {"gpus", gpus},
          {"jobs",
           {{"jobs", p.jobs.jobs},
            {"forced", p.jobs_forced},
            {"forced_by", p.jobs_source},
            {"by_cores", p.jobs.by_cores},
            {"by_memory", p.jobs.by_memory},
            {"bytes_per_job", static_cast<std::int64_t>(p.jobs.gib_per_job * 1073741824.0 + 0.5)},
            {"arithmetic", p.jobs.arithmetic}}},
          {"tools",
           {{"cmake", p.cmake},
            {"ninja", p.ninja},
            {"nvcc", p.nvcc},
            {"nvcc_version", p.nvcc_version},
            {"ccache", p.ccache.empty() ? json(nullptr) : json(p.ccache)}}},
          {"cache_dir", p.cache_dir.empty() ? json(nullptr) : json(p.cache_dir)},
          {"governor", p.governed() ? json{{"budget_bytes", static_cast<std::int64_t>(p.mem_budget_kib) * 1024},
                                           {"prune_archs", p.prune_archs},
                                           {"exec_log", p.exec_log_path()}}
                                    : json(nullptr)},
          {"libtorch", p.libtorch() ? json{{"torch_dir", p.torch_dir},
                                           {"found_by", p.torch_dir_how},
                                           {"torch_cuda_arch_list", p.torch_arch_list}}
                                    : json(nullptr)},
          {"configuration", configuration_json(p.config)},
          {"options", options},
          {"knobs", knobs},
          {"gpu_probes", p.knobs.probes},
          {"cuda_evidence", p.knobs.cuda_evidence.empty() ? json(nullptr) : json(p.knobs.cuda_evidence)},
          {"undecided", p.knobs.undecided},
          {"setup_py_reader", p.knobs.reader.empty() ? json(nullptr) : json(p.knobs.reader)},
          {"env", p.env},
          {"kiln_args", p.kiln_args},
          {"build_command", p.build_argv()},
          {"install_command", p.kind == read::ProjectKind::extension
                                  ? json(wheel_install_argv(p.python, p.wheel_dir() + "/*.whl"))
                                  : json(nullptr)},
          {"notes", p.notes},
          {"empty_submodules", p.empty_submodules}};
}

std::string knobs_to_text(const read::KnobPlan& kp) {
  std::string out, unknown, optional, optional_on, backends, packaging;
  bool first = true;
  for (const auto& k : kp.knobs) {
    if (k.role == read::knob_roles::kUnrelated || k.role == read::knob_roles::kKilnSets)
      continue;  // in --json; in text they would bury the gates
    // One line for the optional extensions left off (apex has eighteen); each with its reason in --json.
    // Each says the value it has in this build, the project's default: off for apex's, on for gsplat's.
    if (k.role == read::knob_roles::kOptionalExtension && k.origin == read::KnobOrigin::none) {
      const bool on = read::default_opens_gate(k);
      // The header names =1 and =0; an opt-out (DISABLE_QIGEN) says its own value.
      const std::string other = on ? read::opposite_value(k.on_value) : k.on_value;
      std::string& line = on ? optional_on : optional;
      line += (line.empty() ? "" : ", ") + k.name + " (" + k.where +
              (other.empty() || other == (on ? "0" : "1")
                   ? std::string()
                   : "; --knob " + k.name + "=" + other + (on ? " leaves it out" : " builds it")) +
              ")";
      continue;
    }
    // One line for other backends' switches (mmcv has five, and the settings read in their branches).
    if (k.role == read::knob_roles::kOtherBackend && k.origin == read::KnobOrigin::none) {
      backends += (backends.empty() ? "" : ", ") + k.name + " (" + k.where + ")";
      continue;
    }
    // One line for the switches that only package the results (copy files, set the version).
    if (k.role == read::knob_roles::kPackaging && k.origin == read::KnobOrigin::none) {
      packaging += (packaging.empty() ? "" : ", ") + k.name + " (" + k.where + ")";
      continue;
    }
    if (k.role == read::knob_roles::kUnknown && k.origin == read::KnobOrigin::none) {
      unknown +=
          (unknown.empty() ? "" : ", ") + k.name + (k.flag.empty() ? "" : " (" + k.flag + ")") + " at " + k.where;
      continue;
    }
    std::string what =
        k.origin == read::KnobOrigin::none ? k.name + " left" : (k.cmake ? "-D" : "") + k.name + "=" + k.value;
    out += fmt::format("{}{}  [{} {}: {}]\n", first ? "knobs     " : "          ", what,
                       k.where.empty() ? std::string(read::to_string(k.origin)) : k.where, k.role, k.reason);
    first = false;
  }
  for (const auto& probe : kp.probes)
    out += "gate      " + probe + "  [CUDA is compiled only where torch sees a GPU]\n";
  if (!optional.empty())
    out +=
        "note: optional extensions left off (each adds one beside those the project builds; --knob NAME=1 builds "
        "it): " +
        optional + "\n";
  if (!optional_on.empty())
    out +=
        "note: optional extensions left on (its default), each adding one beside those the project builds "
        "(--knob NAME=0 leaves it out): " +
        optional_on + "\n";
  if (!backends.empty())
    out += "note: other backends' switches and settings, off or unused in this CUDA build (left as they are): " +
           backends + "\n";
  if (!packaging.empty())
    out +=
        "note: packaging only (they copy files into the package or set its metadata, not what is compiled; left "
        "as they are): " +
        packaging + "\n";
  if (!unknown.empty()) out += "note: switches kiln cannot classify, left as they are: " + unknown + "\n";
  for (const auto& u : kp.undecided) out += "undecided " + u + "\n";
  if (kp.reader.rfind("line patterns", 0) == 0) out += "note: setup.py read with " + kp.reader + "\n";
  return out;
}

namespace {

// The targets, or that none is compiled and why (a CppExtension, a CPU-only torch, CUDA off).
std::string targets_line(const Plan& p) {
  if (!p.no_cuda.empty()) return "targets   none (no CUDA code is compiled: " + p.no_cuda + ")\n";
  return fmt::format("targets   {}  [{}: {}]\n", core::format_cmake(p.targets), p.arch_source, p.arch_reason);
}

}  // namespace

std::string plan_to_text(const Plan& p) {
  std::string out;
  out += fmt::format("project   {} ({}){}\n", p.project_dir, read::to_string(p.kind),
                     p.project_reason.empty() ? "" : "  [" + p.project_reason + "]");
  out += fmt::format("build dir {} ({})\n", p.build_dir, p.build_type);
  out += targets_line(p);
  // No GPU code: nothing that runs on a GPU or not.
  for (const auto& g : p.no_cuda.empty() ? p.gpus : std::vector<core::GpuModel>{}) {
    auto c = core::coverage(p.targets, g.cc);
    out += fmt::format("  runs on {} (cc {}): {}\n", g.name, core::cc_string(g.cc), core::to_string(c.verdict));
  }
  out +=
      fmt::format("jobs      {}  [{}{}{}]\n", p.jobs.jobs,
                  p.jobs_forced ? "forced by " + p.jobs_source + "; memory allows: " : "", p.jobs.arithmetic,
                  p.pooled() ? fmt::format("; the extensions' Ninjas share these {} compile slots", p.jobs.jobs) : "");
  if (p.kind == read::ProjectKind::cmake)
    out += fmt::format("tools     cmake {}, ninja {}, nvcc {} ({})\n", p.cmake, p.ninja, p.nvcc, p.nvcc_version);
  else
    out += fmt::format("tools     {}, ninja {}, nvcc {} ({})\n", p.python, p.ninja.empty() ? "none" : p.ninja,
                       p.nvcc.empty() ? "none" : p.nvcc, p.nvcc_version);
  if (p.libtorch())
    out += fmt::format("libtorch  Torch_DIR={} ({}){}\n", p.torch_dir, p.torch_dir_how,
                       p.torch_arch_list.empty() ? "" : ", TORCH_CUDA_ARCH_LIST=" + p.torch_arch_list);
  out += "command   " + core::join(p.build_argv(), " ") +
         (p.kind == read::ProjectKind::extension ? "  [the project's PEP 517 backend builds the wheel once]" : "") +
         "\n";
  if (p.kind == read::ProjectKind::extension)
    out += "install   " + core::join(wheel_install_argv(p.python, p.wheel_dir() + "/*.whl"), " ") + "\n";
  out += fmt::format("cache     {}\n", p.ccache.empty()
                                           ? std::string("none")
                                           : "ccache " + p.ccache + (p.cache_dir.empty() ? "" : " in " + p.cache_dir));
  if (p.governed())
    out += fmt::format(
        "governor  compiles reserve their learned peak memory within {:.1f} GiB{}\n", p.mem_budget_kib / 1048576.0,
        p.prune_archs
            ? "; each nvcc compile builds exactly the targets, the project's own -gencode/-arch flags replaced"
            : "; the project's own nvcc architecture flags kept (--keep-project-archs)");
  for (const auto& o : p.options)
    if (!o.reason.empty()) out += fmt::format("option    {}={}  [{}]\n", o.name, o.on ? 1 : 0, o.reason);
  out += knobs_to_text(p.knobs);
  if (!p.env.empty()) {
    out += "env      ";
    for (const auto& [k, v] : p.env) out += " " + k + "=" + v;
    out += "\n";
  }
  for (const auto& c : p.config.changed)
    out += fmt::format("config    {} is {} in {}, planned {}\n", c.key, c.cached.empty() ? "unset" : c.cached,
                       c.source == "CMakeCache.txt" ? p.config.cache_path() : "the last configure", c.planned);
  for (const auto& k : p.config.dropped)
    out += fmt::format("config    {} was passed by the last configure, not now\n", k);
  if (!p.config.how.empty()) out += "config    -> " + p.config.how + "\n";
  for (const auto& c : p.config.cmake_changed) out += "config    CMake changed " + c + "\n";
  if (!p.profile.empty()) out += "profile   " + p.profile + "\n";
  for (const auto& n : p.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace kiln::plan
