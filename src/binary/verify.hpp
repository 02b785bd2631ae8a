#pragma once
// The gate before shipping: for every CUDA-bearing file, does some kernel image run on each named
// GPU (core::coverage), do its libraries resolve, does its C++ ABI match the libtorch it loads?
// `kiln verify` prints this; `kiln build` calls verify_files after a build.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/extension_torch.hpp"
#include "binary/kernel_coverage.hpp"
#include "core/compat.hpp"
#include "core/gpu_table.hpp"
#include "io/seams.hpp"

namespace kiln::binary {

struct VerifyOptions {
  std::string root;        // resolve libraries inside an unpacked image
  bool undefined = false;  // undefined symbols for every library (always on for Python extensions)
  bool deps = true;        // check dependencies at all
  // Library folders already loaded when the files are. Python extension modules are checked as
  // loaded after `import torch`, with the torch of the interpreter that imports them
  // (binary/extension_torch): `python` when given, else found from where the module sits.
  std::vector<std::string> preloaded;
  std::string python;
  bool per_kernel = true;        // judge each kernel by name (reads every entry); off: the file's union
  bool objects = false;          // inside folders, check object files (.o) too
  std::size_t kernel_names = 5;  // missing kernels named per problem (0: all)
};

// Files a build system makes for itself inside a folder: CMake's compiler-id programs and probes
// under CMakeFiles/. Not products, so a folder verify skips them (object files too, unless asked).
bool build_system_file(const std::string& path);

// What a problem is about. Serialised only through to_string (the JSON's "kind": "no-kernel", ...).
enum class ProblemKind {
  no_kernel,         // no kernel image runs on the GPU
  kernel_missing,    // some kernels have no image that runs on it
  missing_library,   // a library it needs is not found
  abi_mismatch,      // its C++ string ABI is not the libtorch's it loads
  symbol_version,    // needs a symbol version its provider does not define
  undefined_symbol,  // undefined symbols no resolved library defines
  unreadable,        // not there, or not parseable
  no_cuda,           // no file holds CUDA code
  wrong_cpu,         // x86-64 code for a GPU that comes only with an Arm CPU
};
std::string_view to_string(ProblemKind k);
std::optional<ProblemKind> problem_kind_from(std::string_view s);  // to_string's inverse
inline constexpr ProblemKind kProblemKinds[] = {
    ProblemKind::no_kernel,    ProblemKind::kernel_missing, ProblemKind::missing_library,
    ProblemKind::abi_mismatch, ProblemKind::symbol_version, ProblemKind::undefined_symbol,
    ProblemKind::unreadable,   ProblemKind::no_cuda,        ProblemKind::wrong_cpu};

struct Problem {
  std::string file;
  std::string gpu;  // "" when the problem is not about a GPU
  ProblemKind kind = ProblemKind::unreadable;
  std::string why;           // one sentence
  std::string fix;           // what to rebuild or install
  std::string line() const;  // "FILE: GPU: WHY; FIX"
};

struct GpuVerdict {
  std::string gpu;  // as named
  core::GpuModel model;
  core::Coverage coverage;                // by the union of the file's targets: which image the driver would pick
  std::optional<KernelCoverage> kernels;  // per kernel (VerifyOptions::per_kernel)
  bool no_kernels = false;                // every entry read and none holds a kernel: nothing is ever launched
};

struct FileVerdict {
  std::string file;
  core::TargetSet targets;
  std::vector<GpuVerdict> gpus;
  std::string cxx_abi;
  std::size_t kernels = 0;  // __global__ kernels found (per_kernel)
};

struct VerifyReport {
  std::vector<FileVerdict> files;  // the CUDA-bearing ones
  std::vector<Problem> problems;
  std::size_t files_checked = 0;
  std::vector<std::string> skipped;     // build-system files and objects inside folders
  std::vector<std::string> notes;       // FIFOs, sockets and devices skipped inside folders
  std::vector<ExtensionTorch> torches;  // the torch each extension module was checked against, and why
  bool ok() const { return problems.empty(); }
};

VerifyReport verify_files(const std::vector<std::string>& paths,
                          const std::vector<std::pair<std::string, core::GpuModel>>& gpus, const VerifyOptions& opt,
                          const io::Seams& s);

// TORCH_CUDA_ARCH_LIST that keeps the file's SASS architectures torch can spell and adds the GPU's
// (kiln's CMake form when torch cannot spell the GPU's), and the whole advice line.
std::string rebuild_arch_list(const core::TargetSet& have, int cc);
std::string rebuild_hint(const core::TargetSet& have, int cc);

}  // namespace kiln::binary
