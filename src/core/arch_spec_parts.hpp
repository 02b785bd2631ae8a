#pragma once
// What the readers of the three spellings of a target set share (core/arch_spec_torch, _cmake,
// _nvcc): the error that quotes its token, the refusal of an architecture no CUDA release has, and
// the keywords all / all-major / native resolved against what nvcc and the local GPUs say.
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "core/arch_spec.hpp"

namespace kiln::core::spec_parts {

SpecError bad(const std::string& token, const std::string& why);
// An architecture that no CUDA release has (sm_99, sm_89a) is refused by nvcc, CMake's nvcc and torch.
std::optional<SpecError> unknown_arch(const Arch& a, const std::string& token);
tl::expected<TargetSet, SpecError> resolve_keyword(const std::string& word, const SpecContext& ctx);
bool is_keyword(std::string_view w);

}  // namespace kiln::core::spec_parts
