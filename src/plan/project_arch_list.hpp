#pragma once
// A project's own architecture list (role arch-list: FLASH_ATTN_CUDA_ARCHS, NVTE_CUDA_ARCHS) is set
// in the spelling of its default, which has no room for a suffixed target (90a): kiln gives it the
// plain numbers and its nvcc launcher adds the suffixed ones, as for a TORCH_CUDA_ARCH_LIST the
// project converts with int() (python_env.hpp). Where the project's own int() of that variable is
// known (data/read_setup.py's arch_parsers), the note names it with file:line. With pruning (the
// default) the launcher compiles exactly the planned targets in each unit instead, and the note says
// what of the project's list is not compiled (flash-attention 2's sm_90 and compute_90 PTX beside
// the planned sm_90a, issue 35).
#include <vector>

#include "plan/plan.hpp"
#include "read/project_knobs_read.hpp"

namespace kiln::plan {

// `cmake_call`: where setup.py or a module it imports runs CMake ("" when it does not): that build picks its own nvcc,
// which kiln's launcher does not reach.
void route_suffixed_targets_of_project_lists(Plan& p, const std::vector<read::ArchParser>& parsers,
                                             const std::string& cmake_call = "");

}  // namespace kiln::plan
