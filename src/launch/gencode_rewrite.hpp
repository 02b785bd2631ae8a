#pragma once
// Architecture pruning for projects that hard-code their -gencode flags (causal-conv1d builds nine
// architectures whatever TORCH_CUDA_ARCH_LIST says): the launcher replaces nvcc's architecture
// flags with the planned targets.
#include <string>
#include <vector>

#include "core/arch.hpp"

namespace kiln::launch {

struct PruneResult {
  std::vector<std::string> args;
  bool changed = false;
  std::vector<std::string> dropped;  // targets removed, as sm_XX / compute_XX
};

// nvcc's architecture flags (-gencode, --generate-code, -arch, --gpu-architecture, -code,
// --gpu-code, with their values in either "-flag value" or "-flag=value" form) apart from the rest.
struct ArchArgs {
  std::vector<std::string> arch;  // the flags and their values, in order
  std::vector<std::string> rest;
};
ArchArgs split_arch_args(const std::vector<std::string>& args);

// Removes every -gencode / --generate-code / -arch / -code / --gpu-architecture / --gpu-code flag
// and appends the planned targets. A file's own `a`/`f` SASS whose architecture number is planned
// takes the place of the plain planned SASS of that number (flash-attention 3's hopper/setup.py gives
// its _sm90.cu files sm_90a: on an H100 plan of 90-real they build sm_90a alone, the others sm_90),
// so each unit builds one target per planned GPU. The project's PTX (flash-attention 2 adds
// compute_<newest>) goes unless planned. A command with no architecture flag is left alone.
PruneResult prune_arch_args(const std::vector<std::string>& args, const core::TargetSet& planned);

// Appends -gencode flags for the `extra` targets a device compile does not already build: the
// targets torch's TORCH_CUDA_ARCH_LIST cannot spell (`f` variants, architectures missing from the
// torch release's table) reach nvcc this way. Only commands that already carry architecture flags
// (device compilations) are touched.
PruneResult add_arch_args(const std::vector<std::string>& args, const core::TargetSet& extra);

}  // namespace kiln::launch
