#pragma once
// Coverage per kernel: a file can hold sm_90 images of half its kernels and a 128-byte compute_75
// PTX stub of one, and the union of its architectures then says "runs on 11.0" while almost every
// launch there fails with "no kernel image is available". So each __global__ kernel is followed by
// name across every fat binary of the file (SASS cubin entry symbols, PTX `.entry` lines), and a
// GPU is judged by the kernels that have no image able to run on it.
#include <map>
#include <string>
#include <vector>

#include "binary/inspect.hpp"
#include "core/arch.hpp"

namespace kiln::binary {

struct KernelImages {
  std::string name;        // mangled, as in the symbol table / PTX
  core::TargetSet images;  // every image holding it: sm_90 SASS, compute_90 PTX ...
};

struct KernelTable {
  std::vector<KernelImages> kernels;   // sorted by name
  std::size_t unreadable_entries = 0;  // entries whose kernels could not be read (corrupt payload)
};
// From a report made with InspectOptions::kernels. Device functions (not entries) are left out.
KernelTable kernel_table(const FileReport& f);

// Libraries specialise: cuBLAS builds a tile kernel for sm_80 and sm_86 only and never launches it
// on an H100, which gets its own. Absent there is not missing. A kernel is missing on a GPU when it
// has no image that runs there although it is built for every other architecture family the file
// targets (its plain SASS covers all of them but the GPU's major): the library meant it to run
// everywhere, and a launch on this GPU fails with "no kernel image is available". On a GPU the file
// builds no SASS for at all, only PTX can serve, so every kernel without usable PTX is missing.
struct KernelCoverage {
  int cc = 0;
  std::size_t total = 0, runnable = 0;
  std::vector<std::string> missing;  // sorted names: built for all other families, nothing runs here
  std::size_t specialised = 0;       // absent here but built only for some architectures (by design)
};
KernelCoverage kernel_coverage(const KernelTable& t, int cc);

// Where one kernel can run, as compute-capability ranges, e.g. "8.0-8.9 (sm_80)", ">=9.0 (compute_90, JIT)".
std::vector<std::string> runs_on(const core::TargetSet& images);

}  // namespace kiln::binary
