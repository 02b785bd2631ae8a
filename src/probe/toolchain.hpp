#pragma once
// Host compilers and build tools: gcc, g++, clang, clang++, cmake, ninja, make, ccache. For the
// host compiler nvcc will call, whether this nvcc accepts it: the limit is read from the toolkit's
// own crt/host_config.h (what nvcc enforces), falling back to data/host_compilers.toml, and with
// --deep confirmed by compiling a tiny .cu file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/finding.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {

struct Tool {
  std::string name;
  std::string path, how;     // empty path: not found
  std::string version_text;  // first line of its version output
  std::optional<Version> version;
  bool found() const { return !path.empty(); }
};

struct HostCompilerLimits {
  std::optional<int> max_gcc, max_clang, min_gcc;
  std::string source;  // "<cuda>/include/crt/host_config.h" or "data/host_compilers.toml (CUDA 13.0)"
};

struct CcacheInfo {
  std::string cache_dir, max_size;
  std::optional<std::uint64_t> size_bytes;
  std::optional<long long> hits, misses;
  std::optional<double> hit_rate;  // hits / (hits + misses), when any call was cacheable
  std::string stats_source;        // "ccache --print-stats" or "ccache -s"
};

struct DeepCompile {
  bool ran = false, ok = false;
  std::vector<std::string> argv;
  std::string output;  // compiler messages, trimmed
};

struct Toolchain {
  Tool gcc, gxx, clang, clangxx, cmake, ninja, make, ccache;
  Tool nvcc_host;             // the C++ compiler nvcc will use
  std::string nvcc_host_how;  // "CUDAHOSTCXX", "NVCC_CCBIN", "g++ on PATH"
  HostCompilerLimits limits;
  std::optional<bool> nvcc_accepts_host;  // by the limits; nullopt when unknown
  std::optional<bool> cxx17;              // the C++ compiler supports -std=c++17 (by version or --deep)
  CcacheInfo ccache_info;
  DeepCompile deep_cxx, deep_nvcc;
  Findings findings;
};

struct ToolchainOptions {
  bool deep = false;
  std::string work_dir;  // where --deep writes its test sources
};

Toolchain detect_toolchain(const io::Seams& s, const CudaToolkit& tk, const ToolchainOptions& o);

// Parsers, exposed for tests.
HostCompilerLimits parse_host_config(const std::string& host_config_h);
HostCompilerLimits table_limits(const Version& cuda);  // the newest row not newer than `cuda`
void parse_ccache_print_stats(const std::string& text, CcacheInfo& info);
void parse_ccache_s(const std::string& text, CcacheInfo& info);
void parse_ccache_config(const std::string& text, CcacheInfo& info);

}  // namespace kiln::probe
