#pragma once
// Optional libraries (cuDNN, NCCL, CUPTI, cuSPARSELt, TensorRT, MKL, OpenBLAS; the list is
// data/libraries.toml): header, library file, SONAME, version from each, and whether the library
// loads. A header without a loadable library is the seeds' CUPTI trap: CMake enables the feature
// from the header, the build succeeds, and the program fails at run time.
#include <optional>
#include <string>
#include <vector>

#include "io/seams.hpp"
#include "probe/cuda_toolkit.hpp"
#include "probe/finding.hpp"
#include "probe/version_text.hpp"

namespace kiln::probe {

struct LibrarySpec {
  std::string key, name;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> version_macros;
  std::string version_string_macro;
  std::string version_encoding;  // "xxyyzz": one number holding major, minor and update (CUPTI)
  std::string library;           // base name, "libcudnn.so"
  std::vector<std::string> env_roots, extra_include, extra_lib, cmake_vars;
  std::string pip_dir, use_flag, disable, install;
  bool blas = false;
  bool file_version_is_release = false;
};
const std::vector<LibrarySpec>& library_specs();
const LibrarySpec* find_library_spec(const std::string& key);

struct LibraryReport {
  std::string key, name;
  std::string header, header_how;  // empty when not found
  std::optional<Version> header_version;
  std::string library, library_how;        // the file a build would link (and kiln loads)
  std::vector<std::string> library_files;  // every matching name in that folder
  std::optional<Version> file_version;     // from the longest versioned file name
  std::string soname;
  bool load_checked = false;
  bool loads = false;
  std::string load_error;
  struct Copy {
    std::string path, how;
    std::optional<Version> file_version;
  };
  std::vector<Copy> other_copies;  // the same library in folders searched later
  bool usable() const { return !library.empty() && load_checked && loads; }
};

struct LibraryOptions {
  std::string sysroot;                     // prefixes /usr/include, /usr/lib..., for tests
  std::string self_exe;                    // kiln, for the child that loads libraries
  std::vector<std::string> site_packages;  // pip wheels' nvidia/<x>/{include,lib}
  bool check_loads = true;
};

std::vector<LibraryReport> detect_libraries(const io::Seams& s, const CudaToolkit& tk, const LibraryOptions& o,
                                            Findings& findings);

// "libcudnn.so.9.1.0" with base "libcudnn.so" -> 9.1.0; nullopt for the bare name or another library.
std::optional<Version> version_from_file_name(const std::string& file, const std::string& base);

}  // namespace kiln::probe
