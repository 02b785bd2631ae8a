#include "report/profile_units.hpp"

#include "core/text.hpp"

#include <algorithm>

namespace kiln::report {
namespace {

bool is_library(const std::string& name) {
  return core::ends_with(name, ".a") || core::ends_with(name, ".so") || name.find(".so.") != std::string::npos ||
         core::ends_with(name, ".dylib");
}

// cuda / c++ / link / other, from the rule when the graph names it, else from the file name
// (CMake: x.cu.o; torch.utils.cpp_extension: x.cuda.o).
UnitKind kind_of(const Unit& u, const std::string& rule) {
  if (u.archs > 0 || rule.find("CUDA_COMPILER") != std::string::npos || rule == "cuda_compile" ||
      core::ends_with(u.name, ".cu.o") || core::ends_with(u.name, ".cuda.o"))
    return UnitKind::cuda;
  if (rule.find("LINKER") != std::string::npos || rule == "link" || is_library(core::base_name(u.name)))
    return UnitKind::link;
  if (rule.find("_COMPILER") != std::string::npos || rule == "compile" || core::ends_with(u.name, ".o") ||
      core::ends_with(u.name, ".obj"))
    return UnitKind::cxx;
  return UnitKind::other;
}

std::string target_of(const std::string& output) {
  auto pos = output.find("CMakeFiles/");
  if (pos != std::string::npos) {
    auto start = pos + 11;
    auto dir = output.find(".dir/", start);
    if (dir != std::string::npos) return output.substr(start, dir - start);
  }
  std::string b = core::base_name(output);
  if (is_library(b)) {
    if (b.rfind("lib", 0) == 0) b = b.substr(3);
    b = b.substr(0, b.find('.'));
    return b;
  }
  auto slash = output.find_last_of('/');
  if (slash != std::string::npos && (core::ends_with(output, ".o") || core::ends_with(output, ".obj")))
    return output.substr(0, slash);
  return b;
}

// One unit per job of the latest build in .ninja_log, indexed by each of its outputs.
void units_from_log(const ProfileInput& in, Profile& p, UnitOf& unit_of) {
  for (const auto& j : in.log.jobs) {
    Unit u;
    u.name = j.name();
    u.outputs = j.outputs;
    u.start_ms = j.start_ms;
    u.end_ms = j.end_ms;
    for (const auto& o : j.outputs) unit_of[o] = p.units.size();
    p.units.push_back(std::move(u));
  }
}

// The launcher's records: the last one per output (earlier builds appended theirs too).
void attach_exec_records(const ProfileInput& in, Profile& p, const UnitOf& unit_of) {
  if (!in.exec) return;
  p.exec_problems = in.exec->problems;
  std::map<size_t, const ExecRecord*> rec;
  const std::string prefix = in.build_dir + "/";
  for (const auto& r : in.exec->records) {
    // Ninja names outputs as its build file does: relative to the build folder (CMake) or
    // absolute (torch.utils.cpp_extension); the launcher records them as the compiler saw them.
    auto it = unit_of.find(r.output);
    if (it == unit_of.end() && !in.build_dir.empty() && r.output.rfind(prefix, 0) == 0)
      it = unit_of.find(r.output.substr(prefix.size()));
    if (it == unit_of.end() && !in.build_dir.empty() && !r.output.empty() && r.output[0] != '/')
      it = unit_of.find(prefix + r.output);
    if (it != unit_of.end()) rec[it->second] = &r;
  }
  for (const auto& [i, r] : rec) {
    Unit& u = p.units[i];
    u.cpu_ms = r->cpu_ms;
    u.peak_rss_kib = r->peak_rss_kib;
    u.waited_ms = std::min(r->waited_ms, u.duration_ms());
    u.run_ms = r->wall_ms > 0 ? std::min(r->wall_ms, u.duration_ms()) : -1;
    u.archs = r->archs;
    u.source = r->source;
    u.phases = r->phases;
    u.split = r->split;
    u.threads = r->threads;
    u.cores = r->cores;
    u.grant = r->grant;
    u.grant_basis = r->grant_basis;
    u.grant_share = r->grant_share;
    u.grant_units = r->grant_units;
    u.nice = r->nice;
    u.node = r->node;
  }
  p.exec_matched = static_cast<int>(rec.size());
}

// Each unit's kind and target, and its source file from the graph when the launcher did not say.
void classify_units(const ProfileInput& in, Profile& p) {
  for (auto& u : p.units) {
    std::string rule;
    if (in.graph)
      if (auto it = in.graph->producer.find(u.name); it != in.graph->producer.end()) {
        const auto& e = in.graph->edges[it->second];
        rule = e.rule;
        if (u.source.empty())
          for (const auto& i : e.inputs)
            if (core::ends_with(i, ".cu") || core::ends_with(i, ".cpp") || core::ends_with(i, ".cc") ||
                core::ends_with(i, ".c") || core::ends_with(i, ".cxx")) {
              u.source = i;
              break;
            }
      }
    u.kind = kind_of(u, rule);
    u.target = target_of(u.name);
  }
}

}  // namespace

UnitOf join_units(const ProfileInput& in, Profile& p) {
  UnitOf unit_of;
  units_from_log(in, p, unit_of);
  attach_exec_records(in, p, unit_of);
  classify_units(in, p);
  return unit_of;
}

}  // namespace kiln::report
