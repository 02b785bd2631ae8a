#pragma once
// The CUDA architecture model: a target is an architecture (number such as 90 or 100, with an
// optional `a` arch-specific or `f` family-specific variant) and a code kind (SASS machine code or
// PTX to be JIT-compiled by the driver). Every spelling kiln reads or prints maps onto this.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

enum class Variant : std::uint8_t { none, a, f };
enum class CodeKind : std::uint8_t { sass, ptx };

struct Arch {
  int number = 0;  // major * 10 + minor: 75, 90, 100, 121
  Variant variant = Variant::none;

  int major() const { return number / 10; }
  int minor() const { return number % 10; }
  std::string suffix() const;   // "", "a" or "f"
  std::string sm() const;       // "sm_90a"
  std::string compute() const;  // "compute_90a"
  std::string dotted() const;   // "9.0a", as TORCH_CUDA_ARCH_LIST spells it
  auto operator<=>(const Arch&) const = default;
};

struct Target {
  Arch arch;
  CodeKind kind = CodeKind::sass;
  // As nvcc and cuobjdump name it: "sm_90a" for SASS, "compute_90a" for PTX.
  std::string name() const { return kind == CodeKind::sass ? arch.sm() : arch.compute(); }
  auto operator<=>(const Target&) const = default;
};

std::string to_string(CodeKind k);  // "sass" / "ptx"
std::string to_string(Variant v);   // "" / "a" / "f"

// "sm_90a", "compute_90", "90a", "9.0a", "12.1": the architecture part only. nullopt if malformed.
std::optional<Arch> parse_arch_name(std::string_view text);

// A compute capability as a GPU reports it ("9.0", "12.1"), as an architecture number (90, 121).
std::optional<int> parse_compute_capability(std::string_view text);
std::string cc_string(int number);  // 90 -> "9.0"

// A sorted, duplicate-free set of targets: by number, then variant, then kind (SASS before PTX).
class TargetSet {
public:
  TargetSet() = default;
  explicit TargetSet(std::vector<Target> targets);
  void add(Target t);
  void add(const TargetSet& other);
  bool contains(const Target& t) const;
  bool empty() const { return targets_.empty(); }
  size_t size() const { return targets_.size(); }
  const std::vector<Target>& targets() const { return targets_; }
  auto begin() const { return targets_.begin(); }
  auto end() const { return targets_.end(); }
  bool operator==(const TargetSet&) const = default;

private:
  std::vector<Target> targets_;
};

}  // namespace kiln::core
