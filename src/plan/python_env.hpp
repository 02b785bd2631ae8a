#pragma once
// The environment that steers a PyTorch checkout's setup.py or a torch.utils.cpp_extension build:
// the variables the seeds describe, derived from the plan.
#include <map>
#include <string>

#include <tl/expected.hpp>

#include "plan/plan.hpp"

namespace kiln::plan {

// `sets` are the user's --set KEY=VALUE, exported as given (after the plan's own variables, so
// they win). Fails when the targets cannot be spelled as TORCH_CUDA_ARCH_LIST (PTX without SASS).
// The folder of the interpreter's torch package (…/site-packages/torch), found without importing
// torch; "" when the interpreter has none.
std::string torch_package_dir(const Plan& p, const io::Seams& s);

// The version of the torch whose cpp_extension (or, for a checkout, whose CMake) reads
// TORCH_CUDA_ARCH_LIST: a checkout's version.txt, else p.torch_package's version.py,
// found without importing torch. "" when neither is found.
std::string torch_version_for(const Plan& p, const io::Seams& s);

tl::expected<std::map<std::string, std::string>, std::string> python_build_env(
    const Plan& p, const std::map<std::string, std::string>& sets);

}  // namespace kiln::plan
