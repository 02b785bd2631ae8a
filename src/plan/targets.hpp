#pragma once
// Which CUDA targets a build compiles for, and why. The first of these that says anything wins:
// --archs, the profile's own list, the GPUs named with --gpu, the profile's "gpus"/"local", then
// TORCH_CUDA_ARCH_LIST, this machine's GPUs, and last kiln's default (data/cuda_archs.toml).
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "core/arch.hpp"
#include "core/gpu_table.hpp"
#include "io/seams.hpp"
#include "plan/plan.hpp"
#include "probe/local_gpus.hpp"
#include "probe/nvcc.hpp"

namespace kiln::plan {

struct TargetRequest {
  std::string archs;                                  // --archs ("" none)
  std::string archs_from = "auto";                    // --from: the spelling of --archs
  std::string profile;                                // the profile's name ("" none)
  std::string profile_archs;                          // its archs: a torch-style list, "gpus", "local" or "" (none)
  std::vector<core::GpuModel> gpus;                   // named with --gpu
  std::optional<std::string> env_arch_list;           // TORCH_CUDA_ARCH_LIST from the environment (or CUDAARCHS)
  std::string env_arch_var = "TORCH_CUDA_ARCH_LIST";  // which variable env_arch_list is
  std::string archs_source = "--archs";               // or "-D CMAKE_CUDA_ARCHITECTURES", which is the plan
};

struct TargetChoice {
  core::TargetSet targets;
  std::string source;  // "--archs", "--gpu", "TORCH_CUDA_ARCH_LIST", "local GPUs", "default", "profile NAME"
  std::string reason;
  std::vector<core::GpuModel> gpus;  // what verification checks against: the named GPUs, else the local ones
  std::vector<std::string> notes;
};

// The fewest targets that run each GPU natively; when the toolkit is older than a GPU, the newest
// SASS of its major that nvcc builds, else PTX of the newest architecture below it (said in notes).
core::TargetSet targets_for_gpus(const std::vector<int>& ccs, const probe::NvccInfo& nvcc,
                                 std::vector<std::string>& notes);

tl::expected<TargetChoice, PlanError> choose_targets(const TargetRequest& r, const probe::NvccInfo& nvcc,
                                                     probe::GpuQuery& local, const io::Seams& s);

// Every target is one this nvcc builds, and every named GPU runs one of them: caught before hours
// of compiling.
tl::expected<void, PlanError> check_targets(const core::TargetSet& targets, const std::vector<core::GpuModel>& gpus,
                                            const probe::NvccInfo& nvcc);

}  // namespace kiln::plan
