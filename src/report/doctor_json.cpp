#include <fmt/format.h>

#include "core/size_text.hpp"
#include "report/doctor_report.hpp"

namespace kiln::report {
namespace {

using json = nlohmann::ordered_json;
using namespace kiln::probe;

json opt_str(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json opt_ver(const std::optional<Version>& v) { return v ? json(v->str()) : json(nullptr); }
template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json tool_json(const Tool& t) {
  return {{"found", t.found()},
          {"path", opt_str(t.path)},
          {"how", opt_str(t.how)},
          {"version", opt_ver(t.version)},
          {"version_text", opt_str(t.version_text)}};
}

json deep_json(const DeepCompile& d) {
  if (!d.ran) return nullptr;
  return {{"ok", d.ok}, {"argv", d.argv}, {"output", d.output}};
}

// GiB figures of the job arithmetic, as whole bytes (the JSON convention: sizes in bytes).
std::int64_t gib_bytes(double gib) { return static_cast<std::int64_t>(gib * 1073741824.0 + 0.5); }

json jobs_json(const JobsEstimate& e) {
  return {{"jobs", e.jobs},
          {"cores", e.cores},
          {"memory_bytes", gib_bytes(e.memory_gib)},
          {"margin_bytes", gib_bytes(e.margin_gib)},
          {"bytes_per_job", gib_bytes(e.gib_per_job)},
          {"memory_jobs", e.memory_jobs},
          {"limited_by", e.limited_by},
          {"arithmetic", e.arithmetic}};
}

}  // namespace

namespace {

json cuda_json(const DoctorReport& r) {
  const auto& c = r.cuda;
  json cuda = {{"found", c.found},        {"root", opt_str(c.root)},       {"how", opt_str(c.how)},
               {"nvcc", opt_str(c.nvcc)}, {"version", opt_ver(c.version)}, {"include_dir", opt_str(c.include_dir)},
               {"lib_dirs", c.lib_dirs}};
  cuda["versions"] = json::array();
  for (const auto& v : c.versions)
    cuda["versions"].push_back(
        {{"source", v.source}, {"where", v.where}, {"raw", opt_str(v.raw)}, {"version", opt_ver(v.version)}});
  cuda["candidates"] = json::array();
  for (const auto& k : c.candidates)
    cuda["candidates"].push_back(
        {{"path", k.path}, {"how", k.how}, {"has_nvcc", k.has_nvcc}, {"version", opt_ver(k.version)}});
  return cuda;
}

json libraries_json(const DoctorReport& r) {
  json out = json::array();
  for (const auto& l : r.libraries)
    out.push_back({{"key", l.key},
                   {"name", l.name},
                   {"header", opt_str(l.header)},
                   {"header_how", opt_str(l.header_how)},
                   {"header_version", opt_ver(l.header_version)},
                   {"library", opt_str(l.library)},
                   {"library_how", opt_str(l.library_how)},
                   {"library_files", l.library_files},
                   {"file_version", opt_ver(l.file_version)},
                   {"soname", opt_str(l.soname)},
                   {"load_checked", l.load_checked},
                   {"loads", l.load_checked ? json(l.loads) : json(nullptr)},
                   {"load_error", opt_str(l.load_error)},
                   {"usable", l.usable()}});
  return out;
}

json compilers_json(const DoctorReport& r) {
  const auto& t = r.toolchain;
  json host = tool_json(t.nvcc_host);
  host["how"] = t.nvcc_host_how;
  return {{"gcc", tool_json(t.gcc)},
          {"g++", tool_json(t.gxx)},
          {"clang", tool_json(t.clang)},
          {"clang++", tool_json(t.clangxx)},
          {"nvcc_host", host},
          {"host_limits",
           {{"max_gcc", opt(t.limits.max_gcc)},
            {"max_clang", opt(t.limits.max_clang)},
            {"min_gcc", opt(t.limits.min_gcc)},
            {"source", opt_str(t.limits.source)}}},
          {"nvcc_accepts_host", opt(t.nvcc_accepts_host)},
          {"cxx17", opt(t.cxx17)},
          {"deep", {{"cxx", deep_json(t.deep_cxx)}, {"nvcc", deep_json(t.deep_nvcc)}}}};
}

// The build tools, ccache with its cache (sizes in bytes).
json tools_json(const DoctorReport& r) {
  const auto& t = r.toolchain;
  json ccache = tool_json(t.ccache);
  const auto& ci = t.ccache_info;
  ccache["cache_dir"] = opt_str(ci.cache_dir);
  const auto max_bytes = core::parse_ccache_size(ci.max_size);
  ccache["max_size_bytes"] = max_bytes ? json(*max_bytes) : json(nullptr);
  ccache["size_bytes"] = opt(ci.size_bytes);
  ccache["hits"] = opt(ci.hits);
  ccache["misses"] = opt(ci.misses);
  ccache["hit_rate"] = opt(ci.hit_rate);
  ccache["stats_source"] = opt_str(ci.stats_source);
  return {
      {"cmake", tool_json(t.cmake)}, {"ninja", tool_json(t.ninja)}, {"make", tool_json(t.make)}, {"ccache", ccache}};
}

json python_json(const DoctorReport& r) {
  const auto& p = r.python;
  json py = {{"path", opt_str(p.path)},          {"how", opt_str(p.how)},     {"version", opt_str(p.version)},
             {"site_packages", p.site_packages}, {"error", opt_str(p.error)}, {"torch", nullptr}};
  if (p.torch)
    py["torch"] = {{"version", opt_str(p.torch->version)},
                   {"path", opt_str(p.torch->path)},
                   {"cuda", opt_str(p.torch->cuda)},
                   {"git_version", opt_str(p.torch->git_version)},
                   {"debug", opt(p.torch->debug)},
                   {"cxx11_abi", opt(p.torch->cxx11_abi)},
                   {"cxx11_abi_source", opt_str(p.torch->cxx11_abi_source)},
                   {"arch_list", p.torch->arch_list},
                   {"arch_source", opt_str(p.torch->arch_source)},
                   {"import_error", opt_str(p.torch->import_error)},
                   {"notes", p.torch->notes}};
  return py;
}

json gpus_json(const DoctorReport& r) {
  json gpus = json::array();
  for (const auto& g : r.gpus.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"cc", g.cc ? json(fmt::format("{}.{}", g.cc / 10, g.cc % 10)) : json(nullptr)},
                    {"driver", opt_str(g.driver_version)},
                    {"memory_bytes", static_cast<std::int64_t>(g.memory_mib) * 1048576}});
  return {{"source", opt_str(r.gpus.source)},
          {"note", opt_str(r.gpus.note)},
          {"driver_cuda", r.gpus.driver_cuda
                              ? json(fmt::format("{}.{}", r.gpus.driver_cuda / 1000, r.gpus.driver_cuda % 1000 / 10))
                              : json(nullptr)},
          {"gpus", gpus}};
}

json machine_json(const DoctorReport& r) {
  const auto& m = r.machine.info;
  json disks = json::array();
  for (const auto& d : r.machine.disks)
    disks.push_back({{"role", probe::to_string(d.role)},
                     {"path", d.path},
                     {"checked", d.checked},
                     {"free_bytes", d.space ? json(d.space->free_bytes) : json(nullptr)},
                     {"total_bytes", d.space ? json(d.space->total_bytes) : json(nullptr)}});
  return {{"cores", m.cores},
          {"cgroup_cpus", opt(m.cgroup_cpus)},
          {"usable_cores", m.usable_cores()},
          {"mem_total_bytes", m.mem_total},
          {"mem_available_bytes", m.mem_available},
          {"cgroup_limit_bytes", opt(m.cgroup_limit)},
          {"cgroup_usage_bytes", m.cgroup_limit ? json(m.cgroup_usage) : json(nullptr)},
          {"cgroup_source", opt_str(m.cgroup_source)},
          {"build_memory_bytes", m.build_memory()},
          {"jobs", {{"cxx", jobs_json(r.machine.jobs_cxx)}, {"cuda_1_arch", jobs_json(r.machine.jobs_cuda)}}},
          {"disks", disks}};
}

// An existing CMake cache: its entries, or why it could not be read, or null when none was given.
json cmake_cache_json(const DoctorReport& r) {
  if (r.cmake_cache) {
    const auto& a = *r.cmake_cache;
    json feats = json::array();
    for (const auto& f : a.features) feats.push_back({{"flag", f.flag}, {"on", f.on}, {"notfound", f.notfound}});
    json libs = json::array();
    for (const auto& l : a.libraries)
      libs.push_back({{"entry", l.entry},
                      {"path", l.path},
                      {"exists", l.exists},
                      {"loads", l.load_checked ? json(l.loads) : json(nullptr)},
                      {"load_error", opt_str(l.load_error)}});
    return {{"path", a.path},
            {"error", nullptr},
            {"build_type", opt_str(a.build_type)},
            {"generator", opt_str(a.generator)},
            {"cuda_architectures", opt_str(a.cuda_architectures)},
            {"torch_cuda_arch_list", opt_str(a.torch_cuda_arch_list)},
            {"compilers",
             {{"c", opt_str(a.c_compiler)},
              {"cxx", opt_str(a.cxx_compiler)},
              {"cuda", opt_str(a.cuda_compiler)},
              {"cuda_host", opt_str(a.cuda_host_compiler)}}},
            {"launchers", {{"cxx", opt_str(a.cxx_launcher)}, {"cuda", opt_str(a.cuda_launcher)}}},
            {"features", feats},
            {"libraries", libs}};
  } else if (!r.cmake_cache_error.empty()) {
    return {{"path", nullptr}, {"error", r.cmake_cache_error}};
  } else {
    return nullptr;
  }
}

}  // namespace

json doctor_json(const DoctorReport& r) {
  json j;
  int counts[3] = {0, 0, 0};
  for (const auto& f : r.findings) ++counts[static_cast<int>(f.severity)];
  j["ok"] = !r.has_error();
  j["counts"] = {{"error", counts[2]}, {"warning", counts[1]}, {"note", counts[0]}};
  j["elapsed_s"] = r.elapsed_ms / 1000.0;
  j["findings"] = json::array();
  for (const auto& f : r.findings)
    j["findings"].push_back({{"severity", severity_name(f.severity)},
                             {"area", f.area},
                             {"code", f.code},
                             {"cause", f.cause},
                             {"fix", opt_str(f.fix)}});
  j["cuda"] = cuda_json(r);
  j["libraries"] = libraries_json(r);
  j["compilers"] = compilers_json(r);
  j["tools"] = tools_json(r);
  j["python"] = python_json(r);
  j["gpus"] = gpus_json(r);
  j["machine"] = machine_json(r);
  j["cmake_cache"] = cmake_cache_json(r);
  return j;
}

}  // namespace kiln::report
