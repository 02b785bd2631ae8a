#pragma once
// Reading and writing the three spellings of a target set: TORCH_CUDA_ARCH_LIST, CMake's
// CUDA_ARCHITECTURES and nvcc's -gencode/-arch/-code flags.
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "core/arch.hpp"

namespace kiln::core {

enum class Syntax { automatic, torch, cmake, nvcc };
std::optional<Syntax> parse_syntax(std::string_view name);  // "torch", "cmake", "nvcc", "auto"
std::string to_string(Syntax s);

// What `all`, `all-major` and `native` resolve against.
struct SpecContext {
  bool nvcc_known = false;
  std::vector<Arch> nvcc_sass;  // nvcc --list-gpu-code
  std::vector<Arch> nvcc_ptx;   // nvcc --list-gpu-arch
  bool gpus_known = false;
  std::vector<int> local_gpus;  // compute capabilities as numbers (90, 121)
};

struct SpecError {
  std::string token;    // the offending token, quoted in the message
  std::string message;  // one line, naming what to do
};

// Guesses the spelling from its shape: nvcc flags start with '-', dotted numbers or named
// architectures are TORCH_CUDA_ARCH_LIST, plain numbers and -real/-virtual are CMake.
Syntax detect_syntax(std::string_view spec);

tl::expected<TargetSet, SpecError> parse_spec(std::string_view spec, Syntax syntax, const SpecContext& ctx);
tl::expected<TargetSet, SpecError> parse_torch(std::string_view spec);
tl::expected<TargetSet, SpecError> parse_cmake(std::string_view spec, const SpecContext& ctx);
tl::expected<TargetSet, SpecError> parse_nvcc(std::string_view spec, const SpecContext& ctx);
// nvcc flags already split into argv elements (what a compiler wrapper sees).
tl::expected<TargetSet, SpecError> parse_nvcc_args(const std::vector<std::string>& args, const SpecContext& ctx);

// Printing. TORCH_CUDA_ARCH_LIST cannot say "PTX without SASS", so that is an error naming the target.
tl::expected<std::string, SpecError> format_torch(const TargetSet& set);
std::string format_cmake(const TargetSet& set);
std::string format_nvcc(const TargetSet& set);
std::vector<std::string> nvcc_args(const TargetSet& set);  // one "-gencode=..." element per target
tl::expected<std::string, SpecError> format_spec(const TargetSet& set, Syntax syntax);

}  // namespace kiln::core
