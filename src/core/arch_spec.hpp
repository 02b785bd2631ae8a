#pragma once
// Reading and writing the three spellings of a target set: TORCH_CUDA_ARCH_LIST, CMake's
// CUDA_ARCHITECTURES and nvcc's -gencode/-arch/-code flags.
#include <string>
#include <string_view>
#include <utility>
#include <optional>
#include <vector>

#include <tl/expected.hpp>

#include "core/arch.hpp"

namespace kiln::core {

enum class Syntax { automatic, torch, cmake, nvcc };
std::optional<Syntax> parse_syntax(std::string_view name);  // "torch", "cmake", "nvcc", "auto"
// The names parse_syntax takes, in that order (completion offers them; "auto" reads a spec, never
// writes one).
std::vector<std::string> syntax_names(bool with_auto);
std::string to_string(Syntax s);

// What `all`, `all-major`, `native` and CMake's `OFF` resolve against, and whose grammar applies.
struct SpecContext {
  bool nvcc_known = false;
  std::vector<Arch> nvcc_sass;      // nvcc --list-gpu-code
  std::vector<Arch> nvcc_ptx;       // nvcc --list-gpu-arch
  std::optional<int> nvcc_default;  // what nvcc builds with no architecture flag (CMake's OFF)
  std::string torch_version;        // whose TORCH_CUDA_ARCH_LIST grammar to check ("": newest known)
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

// Each parser reads what the tool itself reads, with the tool's meaning (checked against the real
// nvcc, CMake and torch by tests/differential/). What the tool refuses is an error naming the token,
// except input kiln normalises on purpose (torch lists with commas or stray spaces, `f` variants
// and architectures torch's table lacks): that is read, and a line in `warnings` names the tool
// that would refuse it.
using Warnings = std::vector<std::string>;
tl::expected<TargetSet, SpecError> parse_spec(std::string_view spec, Syntax syntax, const SpecContext& ctx,
                                              Warnings* warnings = nullptr);
tl::expected<TargetSet, SpecError> parse_torch(std::string_view spec, const SpecContext& ctx = {},
                                               Warnings* warnings = nullptr);
tl::expected<TargetSet, SpecError> parse_cmake(std::string_view spec, const SpecContext& ctx);
tl::expected<TargetSet, SpecError> parse_nvcc(std::string_view spec, const SpecContext& ctx);
// nvcc flags already split into argv elements (what a compiler wrapper sees).
tl::expected<TargetSet, SpecError> parse_nvcc_args(const std::vector<std::string>& args, const SpecContext& ctx);

// Printing. TORCH_CUDA_ARCH_LIST cannot say "PTX without SASS", nor `f` variants, nor entries
// missing from the torch release's table (torch_version "": the newest known): an error naming
// the target.
tl::expected<std::string, SpecError> format_torch(const TargetSet& set, std::string_view torch_version = "");
// The targets torch can spell, and the rest (handed to nvcc by kiln's launcher instead).
std::pair<TargetSet, TargetSet> split_for_torch(const TargetSet& set, std::string_view torch_version = "");
// kiln's own list in CMake's shape ("80-real;100f-real;90-virtual"): lossless, read back by
// parse_cmake. CMake itself is given format_cmake_strict, which refuses `f` targets (CMake 4
// rejects `100f` in CUDA_ARCHITECTURES).
std::string format_cmake(const TargetSet& set);
tl::expected<std::string, SpecError> format_cmake_strict(const TargetSet& set);
std::string format_nvcc(const TargetSet& set);
std::vector<std::string> nvcc_args(const TargetSet& set);  // one "-gencode=..." element per target
tl::expected<std::string, SpecError> format_spec(const TargetSet& set, Syntax syntax);

}  // namespace kiln::core
