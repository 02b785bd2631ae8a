#include <fmt/format.h>

#include "report/doctor_report.hpp"

namespace kiln::report {
namespace {

using namespace kiln::probe;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(std::uint64_t b) { return fmt::format("{:.1f} GiB", static_cast<double>(b) / kGiB); }

std::string tool_line(const Tool& t) {
  if (!t.found()) return "not found";
  return fmt::format("{} {}", t.version ? t.version->str() : "(version unknown)", t.path);
}

void findings_for(std::string& out, const DoctorReport& r, const std::string& area) {
  for (const auto& f : r.findings) {
    if (f.area != area) continue;
    out += fmt::format("  {:<8} {}\n", std::string(severity_name(f.severity)) + ":", f.cause);
    if (!f.fix.empty()) out += fmt::format("  {:<8} fix: {}\n", "", f.fix);
  }
}

void kv(std::string& out, const std::string& k, const std::string& v) { out += fmt::format("  {:<16}{}\n", k, v); }

}  // namespace

namespace {

// The CUDA toolkit: the root kiln uses, each place its version is written, other installs.
void cuda_section(std::string& o, const DoctorReport& r) {
  // CUDA toolkit
  const auto& c = r.cuda;
  o += "CUDA toolkit\n";
  if (c.found) {
    kv(o, "root", fmt::format("{} (via {})", c.root, c.how));
    kv(o, "nvcc", c.nvcc.empty() ? "missing" : c.nvcc);
    for (const auto& v : c.versions)
      kv(o, "version",
         fmt::format("{:<8} from {} ({}{})", v.version ? v.version->str() : "?", v.source, v.where,
                     v.raw.empty() || (v.version && v.raw == v.version->str()) ? "" : ": " + v.raw));
    for (const auto& k : c.candidates)
      if (k.path != c.root)
        kv(o, "also",
           fmt::format("{} (via {}{}{})", k.path, k.how, k.version ? ", CUDA " + k.version->str() : "",
                       k.has_nvcc ? "" : ", no nvcc"));
  } else {
    kv(o, "root", "not found");
  }
  findings_for(o, r, "cuda");
}

// Each optional library: what is installed, where, and whether it loads.
void libraries_section(std::string& o, const DoctorReport& r) {
  o += "\nLibraries\n";
  for (const auto& l : r.libraries) {
    std::string state;
    if (l.library.empty() && l.header.empty())
      state = "not installed";
    else if (l.library.empty())
      state = "header only";
    else if (!l.load_checked)
      state = "found (load not checked)";
    else
      state = l.loads ? "loads" : "DOES NOT LOAD";
    o += fmt::format("  {:<11} {}\n", l.name, state);
    if (!l.header.empty())
      o += fmt::format("  {:<11}   header  {} {} [{}]\n", "", l.header, l.header_version ? l.header_version->str() : "",
                       l.header_how);
    if (!l.library.empty())
      o += fmt::format("  {:<11}   library {}{}{} [{}]\n", "", l.library, l.soname.empty() ? "" : " soname " + l.soname,
                       l.file_version ? " file version " + l.file_version->str() : "", l.library_how);
    if (l.load_checked && !l.loads) o += fmt::format("  {:<11}   error   {}\n", "", l.load_error);
  }
  findings_for(o, r, "libraries");
}

// The compilers, what nvcc accepts, and the --deep test compiles (first line only; --json has all).
void compilers_section(std::string& o, const DoctorReport& r) {
  const auto& t = r.toolchain;
  o += "\nCompilers\n";
  kv(o, "gcc", tool_line(t.gcc));
  kv(o, "g++", tool_line(t.gxx));
  kv(o, "clang", tool_line(t.clang));
  kv(o, "clang++", tool_line(t.clangxx));
  kv(o, "nvcc host", fmt::format("{} (via {})", tool_line(t.nvcc_host), t.nvcc_host_how));
  if (t.limits.max_gcc || t.limits.max_clang)
    kv(o, "nvcc accepts",
       fmt::format("gcc <= {}, clang <= {} (from {}){}", t.limits.max_gcc ? std::to_string(*t.limits.max_gcc) : "?",
                   t.limits.max_clang ? std::to_string(*t.limits.max_clang) : "?", t.limits.source,
                   t.nvcc_accepts_host
                       ? (*t.nvcc_accepts_host ? ": host compiler accepted" : ": host compiler REJECTED")
                       : ""));
  kv(o, "C++17", t.cxx17 ? (*t.cxx17 ? "yes" : "no") : "unknown");
  // The first line only; --json has the whole compiler output.
  if (t.deep_cxx.ran)
    kv(o, "test c++", t.deep_cxx.ok ? "compiled a C++17 file" : "FAILED: " + first_line(t.deep_cxx.output));
  if (t.deep_nvcc.ran)
    kv(o, "test nvcc", t.deep_nvcc.ok ? "compiled a C++17 kernel" : "FAILED: " + first_line(t.deep_nvcc.output));
  findings_for(o, r, "compilers");
}

// CMake, Ninja, make and ccache (with its cache).
void tools_section(std::string& o, const DoctorReport& r) {
  const auto& t = r.toolchain;
  o += "\nBuild tools\n";
  kv(o, "cmake", tool_line(t.cmake));
  kv(o, "ninja", tool_line(t.ninja));
  kv(o, "make", tool_line(t.make));
  kv(o, "ccache", tool_line(t.ccache));
  const auto& ci = t.ccache_info;
  if (t.ccache.found())
    kv(o, "",
       fmt::format("dir {}, size {} of {}, {}", ci.cache_dir.empty() ? "?" : ci.cache_dir,
                   ci.size_bytes ? gib(*ci.size_bytes) : "?", ci.max_size.empty() ? "?" : ci.max_size,
                   ci.hit_rate
                       ? fmt::format("hit rate {:.1f}% ({} hits, {} misses)", *ci.hit_rate * 100, *ci.hits, *ci.misses)
                       : "no cacheable calls yet"));
  findings_for(o, r, "tools");
}

// The interpreter and the torch it would build against.
void python_section(std::string& o, const DoctorReport& r) {
  const auto& p = r.python;
  o += "\nPython\n";
  if (p.path.empty())
    kv(o, "python", "not found");
  else
    kv(o, "python", fmt::format("{} {} (via {})", p.version.empty() ? "?" : p.version, p.path, p.how));
  if (p.torch) {
    const auto& tt = *p.torch;
    kv(o, "torch", fmt::format("{} {}", tt.version, tt.path));
    kv(o, "torch CUDA", tt.cuda.empty() ? "none (CPU build)" : tt.cuda);
    if (!tt.git_version.empty() || tt.debug)
      kv(o, "torch build",
         fmt::format("git {}{}", tt.git_version.empty() ? "?" : tt.git_version.substr(0, 12),
                     tt.debug && *tt.debug ? ", debug" : ""));
    kv(o, "C++11 ABI",
       tt.cxx11_abi ? fmt::format("{} (from {})", *tt.cxx11_abi ? "1" : "0", tt.cxx11_abi_source)
                    : std::string("unknown"));
    std::string archs;
    for (const auto& a : tt.arch_list) archs += (archs.empty() ? "" : " ") + a;
    kv(o, "arch list",
       archs.empty() ? (tt.cuda.empty() ? "none" : "unknown") : fmt::format("{} (from {})", archs, tt.arch_source));
    for (const auto& n : tt.notes) kv(o, "", n);
  } else if (!p.path.empty()) {
    kv(o, "torch", "not installed");
  }
  findings_for(o, r, "python");
}

// Local GPUs and the driver's CUDA.
void gpus_section(std::string& o, const DoctorReport& r) {
  o += "\nGPUs\n";
  if (r.gpus.source.empty()) kv(o, "gpus", "none (" + r.gpus.note + ")");
  for (const auto& g : r.gpus.gpus)
    kv(o, fmt::format("gpu {}", g.index),
       fmt::format("{}, cc {}.{} (sm_{}), {} MiB, driver {} [{}]", g.name, g.cc / 10, g.cc % 10, g.cc, g.memory_mib,
                   g.driver_version, r.gpus.source));
  if (r.gpus.driver_cuda)
    kv(o, "driver CUDA", fmt::format("{}.{}", r.gpus.driver_cuda / 1000, r.gpus.driver_cuda % 1000 / 10));
  findings_for(o, r, "gpus");
}

// Cores, memory and the jobs they allow, disks.
void machine_section(std::string& o, const DoctorReport& r) {
  const auto& m = r.machine;
  o += "\nMachine\n";
  kv(o, "cores",
     fmt::format("{} usable{}", m.info.usable_cores(),
                 m.info.cgroup_cpus ? fmt::format(" (cgroup cpu.max allows {})", *m.info.cgroup_cpus) : ""));
  kv(o, "memory",
     fmt::format("{} total, {} available{}", gib(m.info.mem_total), gib(m.info.mem_available),
                 m.info.cgroup_limit
                     ? fmt::format(", cgroup limit {} ({})", gib(*m.info.cgroup_limit), m.info.cgroup_source)
                     : ", no cgroup memory limit"));
  kv(o, "C++ jobs", fmt::format("{} = {}", m.jobs_cxx.jobs, m.jobs_cxx.arithmetic));
  kv(o, "nvcc jobs", fmt::format("{} = {}", m.jobs_cuda.jobs, m.jobs_cuda.arithmetic));
  for (const auto& d : m.disks)
    kv(o, "disk " + std::string(probe::to_string(d.role)),
       d.space ? fmt::format("{} free of {} at {}", gib(d.space->free_bytes), gib(d.space->total_bytes), d.checked)
               : "unknown (" + d.checked + ")");
  findings_for(o, r, "machine");
}

// An existing CMake cache, when one was given.
void cmake_cache_section(std::string& o, const DoctorReport& r) {
  if (r.cmake_cache || !r.cmake_cache_error.empty()) {
    o += "\nCMake cache\n";
    if (!r.cmake_cache) {
      kv(o, "error", r.cmake_cache_error);
    } else {
      const auto& a = *r.cmake_cache;
      kv(o, "file", a.path);
      kv(o, "build type", a.build_type.empty() ? "(empty)" : a.build_type);
      kv(o, "generator", a.generator);
      if (!a.cuda_architectures.empty()) kv(o, "CUDA archs", a.cuda_architectures);
      if (!a.torch_cuda_arch_list.empty()) kv(o, "TORCH archs", a.torch_cuda_arch_list);
      kv(o, "C++", a.cxx_compiler);
      if (!a.cuda_compiler.empty()) kv(o, "CUDA", a.cuda_compiler);
      if (!a.cuda_host_compiler.empty()) kv(o, "CUDA host", a.cuda_host_compiler);
      kv(o, "launcher",
         a.cxx_launcher.empty() && a.cuda_launcher.empty()
             ? "(none)"
             : fmt::format("C++ {}, CUDA {}", a.cxx_launcher.empty() ? "-" : a.cxx_launcher,
                           a.cuda_launcher.empty() ? "-" : a.cuda_launcher));
      std::string on;
      for (const auto& f : a.features)
        if (f.on) on += (on.empty() ? "" : " ") + f.flag;
      if (!on.empty()) kv(o, "features on", on);
      int loaded = 0, checked = 0;
      for (const auto& l : a.libraries)
        if (l.load_checked) ++checked, loaded += l.loads;
      kv(o, "libraries", fmt::format("{} recorded, {} of {} shared ones load", a.libraries.size(), loaded, checked));
    }
    findings_for(o, r, "cmake-cache");
  }
}

}  // namespace

std::string doctor_text(const DoctorReport& r) {
  std::string o;
  cuda_section(o, r);
  libraries_section(o, r);
  compilers_section(o, r);
  tools_section(o, r);
  python_section(o, r);
  gpus_section(o, r);
  machine_section(o, r);
  cmake_cache_section(o, r);

  int counts[3] = {0, 0, 0};
  for (const auto& f : r.findings) ++counts[static_cast<int>(f.severity)];
  o += fmt::format("\n{}: {} error{}, {} warning{}, {} note{} ({} ms)\n", counts[2] ? "FAIL" : "OK", counts[2],
                   counts[2] == 1 ? "" : "s", counts[1], counts[1] == 1 ? "" : "s", counts[0],
                   counts[0] == 1 ? "" : "s", r.elapsed_ms);
  return o;
}

}  // namespace kiln::report
