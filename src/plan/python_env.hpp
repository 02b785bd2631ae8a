#pragma once
// The environment that steers a PyTorch checkout's setup.py or a torch.utils.cpp_extension build:
// the variables the seeds describe, derived from the plan.
#include <map>
#include <string>

#include <tl/expected.hpp>

#include "plan/plan.hpp"
#include "read/project_knobs_read.hpp"

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

// `parser`: the project's own reading of TORCH_CUDA_ARCH_LIST, when data/read_setup.py found one;
// the list is then fitted to it (fit_to_parser) and `notes` say what changed and why.
tl::expected<std::map<std::string, std::string>, std::string> python_build_env(
    const Plan& p, const std::map<std::string, std::string>& sets, const read::ArchParser* parser = nullptr,
    std::vector<std::string>* notes = nullptr);

// A project that int()s the parts of each TORCH_CUDA_ARCH_LIST entry cannot read 9.0a or 10.0f
// (nor 9.0+PTX unless it cuts '+' off first): those targets leave the list (`extra`, for kiln's nvcc
// launcher to add) and their plain X.Y, which runs on the same GPU, takes their place in `passed`.
struct FittedArchList {
  core::TargetSet passed, extra;
};
FittedArchList fit_to_parser(const core::TargetSet& spellable, const read::ArchParser& parser);

}  // namespace kiln::plan
