#include "core/arch.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <charconv>

namespace kiln::core {

std::string to_string(CodeKind k) { return k == CodeKind::sass ? "sass" : "ptx"; }
std::string to_string(Variant v) { return v == Variant::a ? "a" : v == Variant::f ? "f" : ""; }

std::string Arch::suffix() const { return to_string(variant); }
std::string Arch::sm() const { return "sm_" + std::to_string(number) + suffix(); }
std::string Arch::compute() const { return "compute_" + std::to_string(number) + suffix(); }
std::string Arch::dotted() const { return std::to_string(major()) + "." + std::to_string(minor()) + suffix(); }

static std::optional<int> to_int(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  const auto v = core::parse_int(s);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> parse_compute_capability(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = to_int(text.substr(0, dot));
  auto minor = to_int(text.substr(dot + 1));
  if (!major || !minor || *major < 1 || *minor > 9 || text.size() - dot - 1 != 1) return std::nullopt;
  return *major * 10 + *minor;
}

std::string cc_string(int number) { return std::to_string(number / 10) + "." + std::to_string(number % 10); }

std::optional<Arch> parse_arch_name(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"})
    if (text.substr(0, prefix.size()) == prefix) {
      if (prefix == "lto_") return std::nullopt;  // LTO IR is not a runnable target
      text.remove_prefix(prefix.size());
      break;
    }
  Arch a;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    a.variant = text.back() == 'a' ? Variant::a : Variant::f;
    text.remove_suffix(1);
  }
  if (text.find('.') != std::string_view::npos) {
    auto cc = parse_compute_capability(text);
    if (!cc) return std::nullopt;
    a.number = *cc;
    return a;
  }
  auto n = to_int(text);
  // Two or three digits: 75 .. 121. A single digit is a compute capability major, not an arch.
  if (!n || text.size() < 2 || *n < 10) return std::nullopt;
  a.number = *n;
  return a;
}

TargetSet::TargetSet(std::vector<Target> targets) : targets_(std::move(targets)) {
  std::sort(targets_.begin(), targets_.end());
  targets_.erase(std::unique(targets_.begin(), targets_.end()), targets_.end());
}

void TargetSet::add(Target t) {
  auto it = std::lower_bound(targets_.begin(), targets_.end(), t);
  if (it == targets_.end() || *it != t) targets_.insert(it, t);
}

void TargetSet::add(const TargetSet& other) {
  for (const auto& t : other) add(t);
}

bool TargetSet::contains(const Target& t) const { return std::binary_search(targets_.begin(), targets_.end(), t); }

}  // namespace kiln::core
