#include "probe/toolchain.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "core/text.hpp"
#include "core/data_toml.hpp"
#include "core/size_text.hpp"
#include "probe/ccache_folder.hpp"
#include "probe/ccache_text.hpp"
#include "probe/run_tool.hpp"

namespace kiln::probe {
namespace {

std::optional<Version> data_version(const toml::table& t, const char* table, const char* key) {
  if (auto v = t[table][key].value<std::string>()) return parse_version(*v);
  return std::nullopt;
}

const toml::table& tools_data() {
  static const toml::table t = data::load_toml("build_tools.toml");
  return t;
}

// Finds `name` on PATH and asks it for its version with `args`.
Tool probe_tool(const io::Seams& s, const std::string& name, std::vector<std::string> args) {
  Tool t;
  t.name = name;
  auto p = io::which(s, name);
  if (!p) return t;
  t.path = *p;
  t.how = "PATH";
  args.insert(args.begin(), t.path);
  auto r = run_tool(s.proc, args);
  std::string text = r.out.empty() ? r.err : r.out;
  t.version_text = first_line(text);
  t.version = find_version(text);
  return t;
}

Tool probe_compiler(const io::Seams& s, const std::string& name, const std::string& how_path = "") {
  Tool t;
  t.name = name;
  std::optional<std::string> p = how_path.empty() ? io::which(s, name) : io::which(s, how_path);
  if (!p) return t;
  t.path = *p;
  t.how = "PATH";
  auto r = run_tool(s.proc, {t.path, "--version"});
  std::string text = r.out.empty() ? r.err : r.out;
  t.version_text = first_line(text);
  // "g++ (Debian 12.2.0-14) 12.2.0", "clang version 14.0.6": the version after the parenthesis.
  std::string line = t.version_text;
  if (auto close = line.rfind(')'); close != std::string::npos && line.find("clang") == std::string::npos)
    line = line.substr(close + 1);
  t.version = find_version(line);
  if (!t.version) t.version = find_version(text);
  return t;
}

bool is_clang(const Tool& t) { return t.version_text.find("clang") != std::string::npos; }

}  // namespace

HostCompilerLimits parse_host_config(const std::string& text) {
  HostCompilerLimits l;
  std::smatch m;
  static const std::regex gnu(R"(#if\s+__GNUC__\s*>\s*(\d+))");
  static const std::regex clang(R"(__clang_major__\s*>=\s*(\d+))");
  // A version as nvcc's host_config.h writes it: a few digits (0 for a number too long to be one).
  const auto version = [](const std::string& digits) {
    return static_cast<int>(std::clamp(core::parse_int(digits).value_or(0), 0LL, 1000000LL));
  };
  if (std::regex_search(text, m, gnu)) l.max_gcc = version(m[1].str());
  // The Grace clang check comes first in the file; take the plain clang check (the last one).
  for (auto it = std::sregex_iterator(text.begin(), text.end(), clang); it != std::sregex_iterator(); ++it)
    l.max_clang = version((*it)[1].str()) - 1;
  return l;
}

HostCompilerLimits table_limits(const Version& cuda) {
  static const toml::table t = data::load_toml("host_compilers.toml");
  HostCompilerLimits best;
  std::optional<Version> best_v;
  if (auto* rows = t["cuda"].as_array())
    for (const auto& node : *rows) {
      toml::node_view<const toml::node> row{node};
      auto v = parse_version(row["version"].value_or(std::string()));
      if (!v || compare(*v, Version{{cuda.major(), cuda.minor()}}) > 0) continue;
      if (best_v && compare(*v, *best_v) <= 0) continue;
      best_v = v;
      best.max_gcc = row["max_gcc"].value<int>();
      best.max_clang = row["max_clang"].value<int>();
      best.min_gcc = row["min_gcc"].value<int>();
      best.source = "data/host_compilers.toml (CUDA " + v->str() + " row)";
    }
  return best;
}

void parse_ccache_print_stats(const std::string& text, CcacheInfo& info) {
  auto c = parse_print_stats(text);
  if (!c) return;
  const long long hits = ccache_hits(*c), misses = ccache_misses(*c);
  if (c->count("cache_size_kibibyte"))
    info.size_bytes = static_cast<std::uint64_t>(ccache_counter(*c, "cache_size_kibibyte")) * 1024;
  info.hits = hits;
  info.misses = misses;
  if (hits + misses > 0) info.hit_rate = static_cast<double>(hits) / static_cast<double>(hits + misses);
  info.stats_source = "ccache --print-stats";
}

void parse_ccache_s(const std::string& text, CcacheInfo& info) {
  // ccache 3.x: "cache hit (direct)  12", "cache miss  5", "cache size  1.2 GB".
  std::istringstream in(text);
  std::string line;
  long long hits = 0, misses = 0;
  bool any = false;
  static const std::regex num(R"(^(cache hit \(direct\)|cache hit \(preprocessed\)|cache miss)\s+(\d+))");
  static const std::regex size(R"(^cache size\s+([\d.]+)\s*([KMGT]?)B)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, num)) {
      any = true;
      (m[1].str() == "cache miss" ? misses : hits) += core::parse_int(m[2].str()).value_or(0);
    } else if (std::regex_search(line, m, size)) {
      // ccache 3 used binary units; a bare number is bytes there.
      if (auto b = core::parse_size_bytes(m[1].str() + m[2].str(), core::SizeBase::binary, 1)) info.size_bytes = *b;
    }
  }
  if (!any) return;
  info.hits = hits;
  info.misses = misses;
  if (hits + misses > 0) info.hit_rate = static_cast<double>(hits) / static_cast<double>(hits + misses);
  info.stats_source = "ccache -s";
}

void parse_ccache_config(const std::string& text, CcacheInfo& info) {
  const auto config = parse_show_config(text);
  if (auto it = config.find("cache_dir"); it != config.end()) info.cache_dir = it->second.value;
  if (auto it = config.find("max_size"); it != config.end()) info.max_size = it->second.value;
}

namespace {

// The compilers and tools on PATH, and the host compiler nvcc will call.
Toolchain probe_tools(const io::Seams& s) {
  Toolchain tc;
  tc.gcc = probe_compiler(s, "gcc");
  tc.gxx = probe_compiler(s, "g++");
  tc.clang = probe_compiler(s, "clang");
  tc.clangxx = probe_compiler(s, "clang++");
  tc.cmake = probe_tool(s, "cmake", {"--version"});
  tc.ninja = probe_tool(s, "ninja", {"--version"});
  tc.make = probe_tool(s, "make", {"--version"});
  tc.ccache = probe_tool(s, "ccache", {"--version"});

  // The compiler nvcc calls: CMake's CUDAHOSTCXX, nvcc's own NVCC_CCBIN, else g++ from PATH
  // (nvcc looks for gcc/g++ on PATH when no -ccbin is given).
  if (auto v = s.env.get("CUDAHOSTCXX"); v && !v->empty()) {
    tc.nvcc_host = probe_compiler(s, "CUDAHOSTCXX", *v);
    tc.nvcc_host_how = "CUDAHOSTCXX";
  } else if (auto c = s.env.get("NVCC_CCBIN"); c && !c->empty()) {
    tc.nvcc_host = probe_compiler(s, "NVCC_CCBIN", *c);
    tc.nvcc_host_how = "NVCC_CCBIN";
  } else {
    tc.nvcc_host = tc.gxx;
    tc.nvcc_host_how = "g++ on PATH";
  }

  return tc;
}

void check_compilers(Toolchain& tc) {
  const auto& data = tools_data();
  if (!tc.gxx.found() && !tc.clangxx.found())
    tc.findings.push_back({Severity::error, "compilers", "compilers.no-cxx",
                           "No C++ compiler (g++ or clang++) is on PATH, so nothing can be built.",
                           "apt-get install g++ (or build-essential)"});

  // C++17, which PyTorch and cpp_extension compile with.
  auto gcc17 = data_version(data, "gcc", "cxx17"), clang17 = data_version(data, "clang", "cxx17");
  if (tc.gxx.version && gcc17)
    tc.cxx17 = compare(*tc.gxx.version, *gcc17) >= 0;
  else if (tc.clangxx.version && clang17)
    tc.cxx17 = compare(*tc.clangxx.version, *clang17) >= 0;
  if (tc.cxx17 && !*tc.cxx17)
    tc.findings.push_back({Severity::error, "compilers", "compilers.no-cxx17",
                           fmt::format("{} is too old for C++17 (needs GCC {} or Clang {}).", tc.gxx.version_text,
                                       gcc17 ? gcc17->str() : "?", clang17 ? clang17->str() : "?"),
                           "install a newer compiler: apt-get install g++-12"});
  if (auto min = data_version(data, "gcc", "pytorch");
      min && tc.gxx.version && !is_clang(tc.gxx) && compare(*tc.gxx.version, *min) < 0)
    tc.findings.push_back(
        {Severity::warning, "compilers", "compilers.gcc-old-for-pytorch",
         fmt::format("g++ {} is older than the GCC {} PyTorch requires on Linux.", tc.gxx.version->str(), min->str()),
         fmt::format("install g++-{} or newer and export CXX=g++-<n> CC=gcc-<n>", min->major() + 1)});
}

void check_nvcc_host(const io::Seams& s, const CudaToolkit& tk, Toolchain& tc) {
  // nvcc's accepted host compiler range.
  if (tk.found && !tk.include_dir.empty()) {
    const std::string hc = tk.include_dir + "/crt/host_config.h";
    if (auto text = s.fs.read(hc)) {
      tc.limits = parse_host_config(*text);
      tc.limits.source = hc;
    }
  }
  if (tk.version) {
    auto table = table_limits(*tk.version);
    if (!tc.limits.max_gcc && !tc.limits.max_clang) tc.limits = table;
    tc.limits.min_gcc = table.min_gcc;
    if (table.max_gcc && tc.limits.max_gcc && *table.max_gcc != *tc.limits.max_gcc && tc.limits.source != table.source)
      tc.findings.push_back(
          {Severity::note, "compilers", "compilers.table-stale",
           fmt::format("{} allows gcc up to {} but kiln's table ({}) says {}; the toolkit's header wins.",
                       tc.limits.source, *tc.limits.max_gcc, table.source, *table.max_gcc),
           "update data/host_compilers.toml"});
  }
  if (tk.found && !tk.nvcc.empty() && tc.nvcc_host.found() && tc.nvcc_host.version) {
    const bool clang = is_clang(tc.nvcc_host);
    const int major = tc.nvcc_host.version->major();
    std::optional<int> max = clang ? tc.limits.max_clang : tc.limits.max_gcc;
    if (max) {
      tc.nvcc_accepts_host = major <= *max && (clang || !tc.limits.min_gcc || major >= *tc.limits.min_gcc);
      if (!*tc.nvcc_accepts_host)
        tc.findings.push_back(
            {Severity::error, "compilers", "compilers.nvcc-rejects-host",
             fmt::format("nvcc {} accepts {} up to {} ({}), but the host compiler it will use ({} via {}) is {}: every "
                         ".cu compile stops with \"unsupported {} version\".",
                         tk.version ? tk.version->str() : "?", clang ? "clang" : "gcc", *max, tc.limits.source,
                         tc.nvcc_host.path, tc.nvcc_host_how, tc.nvcc_host.version->str(), clang ? "clang" : "GNU"),
             fmt::format("install {0}-{1} and export CUDAHOSTCXX=/usr/bin/{0}-{1} NVCC_CCBIN=/usr/bin/{0}-{1}",
                         clang ? "clang++" : "g++", *max)});
    }
  }
}

void check_build_tools(const io::Seams& s, Toolchain& tc) {
  const auto& data = tools_data();
  // Build tools.
  auto need = [&](const Tool& t, const char* key, Severity missing_sev, const std::string& missing_cause,
                  const std::string& install) {
    if (!t.found()) {
      tc.findings.push_back({missing_sev, "tools", "tools." + t.name + "-missing", missing_cause, install});
      return;
    }
    auto min = data_version(data, key, "minimum");
    if (min && t.version && compare(*t.version, *min) < 0)
      tc.findings.push_back(
          {Severity::error, "tools", "tools." + t.name + "-too-old",
           fmt::format("{} {} is older than the {} a PyTorch/CUDA build needs.", t.name, t.version->str(), min->str()),
           install});
  };
  need(tc.cmake, "cmake", Severity::warning,
       "cmake is not on PATH: PyTorch and CMake-based extensions cannot configure.",
       "pip install cmake (or apt-get install cmake)");
  if (auto recent = data_version(data, "cmake", "recent_pytorch");
      recent && tc.cmake.version && compare(*tc.cmake.version, *recent) < 0)
    tc.findings.push_back(
        {Severity::warning, "tools", "tools.cmake-old-for-recent-pytorch",
         fmt::format("cmake {} is older than the {} recent PyTorch requires; only older releases will "
                     "configure.",
                     tc.cmake.version->str(), recent->str()),
         "pip install 'cmake>=" + recent->str() + "'"});
  // An error, as kiln build treats it: it refuses a CMake project without ninja (plan/plan.cpp).
  need(tc.ninja, "ninja", Severity::error,
       "ninja is not on PATH: kiln build refuses CMake projects without it, cpp_extension falls back to a slow "
       "serial setuptools build and PyTorch to make.",
       "pip install ninja (or apt-get install ninja-build)");
  if (!tc.make.found())
    tc.findings.push_back({Severity::note, "tools", "tools.make-missing",
                           "make is not on PATH (only needed without ninja).", "apt-get install make"});
  if (!tc.ccache.found()) {
    tc.findings.push_back({Severity::note, "tools", "tools.ccache-missing",
                           "ccache is not on PATH, so every rebuild compiles from scratch (the seeds measured 92% less "
                           "time on a warm cache).",
                           "apt-get install ccache"});
  } else {
    auto r = run_tool(s.proc, {tc.ccache.path, "--print-stats"});
    if (r.ok()) parse_ccache_print_stats(r.out, tc.ccache_info);
    if (!tc.ccache_info.hits) {
      auto r2 = run_tool(s.proc, {tc.ccache.path, "-s"});
      if (r2.ok()) parse_ccache_s(r2.out, tc.ccache_info);
    }
    auto cfg = run_tool(s.proc, {tc.ccache.path, "-p"});
    if (cfg.ok()) parse_ccache_config(cfg.out, tc.ccache_info);
    need(tc.ccache, "ccache", Severity::warning, "", "pip install ccache or a newer distribution package");
    if (auto problem = ccache_folder_problem(s.fs, tc.ccache_info.cache_dir))
      tc.findings.push_back(
          {Severity::error, "tools", "tools.ccache-folder-unusable",
           fmt::format("ccache's folder {} {}, so every compile made through ccache fails (\"ccache: error: Failed "
                       "to create ...\"); kiln build builds without ccache then.",
                       tc.ccache_info.cache_dir, *problem),
           fmt::format("give it back to this user (sudo chown -R $USER {0}) or point ccache at a folder you can "
                       "write: export CCACHE_DIR=/path/to/folder, or kiln build --cache-dir /path/to/folder",
                       tc.ccache_info.cache_dir)});
    if (tc.ccache_info.size_bytes && !tc.ccache_info.max_size.empty()) {
      const auto max = core::parse_ccache_size(tc.ccache_info.max_size).value_or(0);
      if (max > 0 && *tc.ccache_info.size_bytes > max / 10 * 9)
        tc.findings.push_back(
            {Severity::note, "tools", "tools.ccache-full",
             fmt::format("The ccache at {} is over 90% of its {} limit, so a PyTorch build will evict "
                         "its own objects.",
                         tc.ccache_info.cache_dir, tc.ccache_info.max_size),
             "ccache -M 50G"});
    }
  }
}

// --deep: compile small test files with the C++ compiler and with nvcc and its host compiler.
void deep_compiles(const io::Seams& s, const CudaToolkit& tk, Toolchain& tc, const ToolchainOptions& o) {
  const std::string dir = o.work_dir.empty() ? "/tmp/kiln-doctor" : o.work_dir;
  s.fs.make_dirs(dir);
  // C++17 on both sides: `if constexpr` in a kernel (device front end), std::optional and
  // structured bindings in host code (the host compiler behind nvcc).
  const std::string src =
      "#include <optional>\n#include <utility>\n"
      "template <class T> __global__ void k(T* p) { if constexpr (sizeof(T) == 4) *p = 1; }\n"
      "template __global__ void k<int>(int*);\n"
      "int host() { std::optional<int> o = 1; auto [a, b] = std::pair<int, int>{1, 2}; return *o + a + b; }\n";
  if (tc.gxx.found() || tc.clangxx.found()) {
    const Tool& cxx = tc.gxx.found() ? tc.gxx : tc.clangxx;
    s.fs.write(dir + "/probe.cpp", "#include <optional>\nint main() { std::optional<int> o = 1; return *o - 1; }\n");
    tc.deep_cxx.argv = {cxx.path, "-std=c++17", "-fsyntax-only", dir + "/probe.cpp"};
    auto r = run_tool(s.proc, tc.deep_cxx.argv);
    tc.deep_cxx.ran = true;
    tc.deep_cxx.ok = r.ok();
    tc.deep_cxx.output = trim(r.started ? r.err + r.out : r.spawn_error);
    tc.cxx17 = r.ok();
    if (!r.ok())
      tc.findings.push_back(
          {Severity::error, "compilers", "compilers.cxx17-compile-failed",
           fmt::format("{} could not compile a C++17 test file: {}", cxx.path, first_line(tc.deep_cxx.output)),
           "install a C++17 compiler (apt-get install g++)"});
  }
  if (tk.found && !tk.nvcc.empty()) {
    s.fs.write(dir + "/probe.cu", src);
    tc.deep_nvcc.argv = {tk.nvcc, "-std=c++17", "-c", dir + "/probe.cu", "-o", dir + "/probe.o"};
    if (tc.nvcc_host_how != "g++ on PATH" && tc.nvcc_host.found()) {
      tc.deep_nvcc.argv.push_back("-ccbin");
      tc.deep_nvcc.argv.push_back(tc.nvcc_host.path);
    }
    auto r = run_tool(s.proc, tc.deep_nvcc.argv);
    tc.deep_nvcc.ran = true;
    tc.deep_nvcc.ok = r.ok();
    tc.deep_nvcc.output = trim(r.started ? r.err + r.out : r.spawn_error);
    // The test compile is the stronger evidence: nvcc.profile or a wrapper may allow the compiler.
    if (r.ok() && tc.nvcc_accepts_host && !*tc.nvcc_accepts_host) {
      tc.nvcc_accepts_host = true;
      for (auto& f : tc.findings)
        if (f.code == "compilers.nvcc-rejects-host") {
          f.severity = Severity::warning;
          f.cause +=
              " Yet the --deep test compile passed, so something (-allow-unsupported-compiler?) overrides the check.";
        }
    }
    if (!r.ok())
      tc.findings.push_back({Severity::error, "compilers", "compilers.nvcc-test-compile-failed",
                             fmt::format("nvcc could not compile a tiny C++17 kernel with {}: {}", tc.nvcc_host.path,
                                         first_line(tc.deep_nvcc.output)),
                             "fix the host compiler nvcc uses (export CUDAHOSTCXX=/usr/bin/g++-<supported>)"});
  }
}

}  // namespace

Toolchain detect_toolchain(const io::Seams& s, const CudaToolkit& tk, const ToolchainOptions& o) {
  Toolchain tc = probe_tools(s);
  check_compilers(tc);
  check_nvcc_host(s, tk, tc);
  check_build_tools(s, tc);
  if (o.deep) deep_compiles(s, tk, tc, o);
  return tc;
}

}  // namespace kiln::probe
