#pragma once
// Dependency resolution the way ld.so does it, without running anything: each DT_NEEDED through
// DT_RPATH (when there is no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache and the
// default folders, with $ORIGIN/$LIB/$PLATFORM expanded, recursively; optionally inside a container
// image unpacked at `root`. Plus what the symbols say about ABI: the C++ string ABI, the GLIBC and
// GLIBCXX versions needed (and whether the resolved libraries define them), undefined symbols.
#include <optional>
#include <string>
#include <vector>

#include "binary/resolved_library.hpp"
#include "io/seams.hpp"

namespace kiln::binary {

struct VersionProblem {
  std::string version;   // "GLIBCXX_3.4.32"
  std::string library;   // "libstdc++.so.6"
  std::string provider;  // the resolved path that lacks it
  std::string needed_by;
};

struct AbiReport {
  std::string cxx_abi = "none";  // "cxx11", "pre-cxx11", "both" or "none" (no std::string in its symbols)
  std::vector<std::pair<std::string, std::vector<std::string>>> version_needs;  // file -> versions
  std::string max_glibc, max_glibcxx;  // highest GLIBC_/GLIBCXX_ version needed ("" if none)
};

struct DepsReport {
  std::string path;
  std::optional<std::string> soname, rpath, runpath;
  std::vector<std::string> needed;
  std::vector<ResolvedLibrary> libraries;  // breadth first, each soname once
  AbiReport abi;
  std::vector<VersionProblem> version_problems;
  std::vector<std::string> undefined;  // when asked: symbols no resolved library defines
  std::optional<std::string> error;
  bool is_elf = false;
  std::size_t missing() const;
};

DepsReport resolve_deps(const std::string& path, const DepsOptions& opt, const io::Seams& s);
// The ABI of one ELF file's dynamic symbols (exposed for verify's extension-vs-libtorch check).
// `path` is inside `root` when root is not empty ("" for this machine).
std::string cxx_abi_of_path(const std::string& path, const io::Seams& s, const std::string& root = "");

}  // namespace kiln::binary
