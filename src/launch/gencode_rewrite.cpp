#include "launch/gencode_rewrite.hpp"

#include <set>

#include "core/arch_spec.hpp"

namespace kiln::launch {
namespace {

// Flags that carry a value, in both the "-flag value" and "-flag=value" forms.
const char* const kArchFlags[] = {"-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code"};

bool is_arch_flag(const std::string& a, bool* value_follows) {
  for (const char* f : kArchFlags) {
    const std::string flag = f;
    if (a == flag) {
      *value_follows = true;
      return true;
    }
    if (a.rfind(flag + "=", 0) == 0) {
      *value_follows = false;
      return true;
    }
  }
  return false;
}

}  // namespace

ArchArgs split_arch_args(const std::vector<std::string>& args) {
  ArchArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    bool value_follows = false;
    if (is_arch_flag(args[i], &value_follows)) {
      out.arch.push_back(args[i]);
      if (value_follows && i + 1 < args.size()) out.arch.push_back(args[++i]);
      continue;
    }
    out.rest.push_back(args[i]);
  }
  return out;
}

PruneResult prune_arch_args(const std::vector<std::string>& args, const core::TargetSet& planned) {
  PruneResult r;
  // The flags removed, to learn which targets they named.
  auto [arch_args, rest] = split_arch_args(args);
  r.args = std::move(rest);
  if (arch_args.empty()) {
    r.args = args;
    return r;
  }
  std::set<int> planned_numbers;
  for (const auto& t : planned) planned_numbers.insert(t.arch.number);
  // A file's own `a`/`f` SASS for a planned architecture number runs on the same GPUs as the plain
  // one, so it takes that one's place: one target per planned GPU in every unit.
  core::TargetSet variants;
  if (auto original = core::parse_nvcc_args(arch_args, {})) {
    for (const auto& t : *original) {
      const bool own = t.arch.variant != core::Variant::none && t.kind == core::CodeKind::sass &&
                       planned_numbers.count(t.arch.number);
      if (own)
        variants.add(t);
      else if (!planned.contains(t))
        r.dropped.push_back(t.name());
    }
  }
  core::TargetSet keep;
  for (const auto& t : planned) {
    bool replaced = false;
    for (const auto& v : variants)
      replaced = replaced || (t.kind == core::CodeKind::sass && t.arch.variant == core::Variant::none &&
                              t.arch.number == v.arch.number);
    if (!replaced) keep.add(t);
  }
  keep.add(variants);
  for (const auto& a : core::nvcc_args(keep)) r.args.push_back(a);
  r.changed = r.args != args;
  return r;
}

PruneResult add_arch_args(const std::vector<std::string>& args, const core::TargetSet& extra) {
  PruneResult r;
  r.args = args;
  auto arch_args = split_arch_args(args).arch;
  if (arch_args.empty() || extra.empty()) return r;
  core::TargetSet have;
  if (auto original = core::parse_nvcc_args(arch_args, {})) have = *original;
  core::TargetSet add;
  for (const auto& t : extra)
    if (!have.contains(t)) add.add(t);
  for (const auto& a : core::nvcc_args(add)) r.args.push_back(a);
  r.changed = !add.empty();
  return r;
}

}  // namespace kiln::launch
