#include "binary/kernel_coverage.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/compat.hpp"

namespace kiln::binary {

KernelTable kernel_table(const FileReport& f) {
  std::map<std::string, core::TargetSet> by_name;
  KernelTable t;
  for (const auto& e : f.entries) {
    if (e.error) {
      ++t.unreadable_entries;
      continue;
    }
    for (const auto& k : e.kernels)
      if (k.entry) by_name[k.name].add(e.target);
  }
  for (auto& [name, images] : by_name) t.kernels.push_back({name, std::move(images)});
  return t;
}

namespace {

// The families (majors) a kernel has plain SASS for.
std::set<int> plain_sass(const core::TargetSet& s) {
  std::set<int> out;
  for (const auto& x : s)
    if (x.kind == core::CodeKind::sass && x.arch.variant == core::Variant::none) out.insert(x.arch.major());
  return out;
}

}  // namespace

KernelCoverage kernel_coverage(const KernelTable& t, int cc) {
  KernelCoverage c;
  c.cc = cc;
  c.total = t.kernels.size();
  // The other families the file builds for: what a kernel meant to run everywhere is built for.
  std::set<int> others;
  for (const auto& k : t.kernels)
    for (int n : plain_sass(k.images))
      if (n != cc / 10) others.insert(n);
  // A GPU whose family the file builds no SASS for is served by PTX alone: no dispatcher can pick
  // a specialised kernel for it, so every kernel that cannot JIT there is missing.
  const bool sass_for_gpu = std::any_of(t.kernels.begin(), t.kernels.end(), [&](const KernelImages& k) {
    return std::any_of(k.images.begin(), k.images.end(), [&](const core::Target& x) {
      return x.kind == core::CodeKind::sass && core::sass_runs_on(x.arch, cc);
    });
  });
  for (const auto& k : t.kernels) {
    const bool runs = std::any_of(k.images.begin(), k.images.end(), [&](const core::Target& x) {
      return x.kind == core::CodeKind::sass ? core::sass_runs_on(x.arch, cc) : core::ptx_jits_on(x.arch, cc);
    });
    if (runs) {
      ++c.runnable;
      continue;
    }
    const auto mine = plain_sass(k.images);
    if (!sass_for_gpu || std::includes(mine.begin(), mine.end(), others.begin(), others.end()))
      c.missing.push_back(k.name);
    else
      ++c.specialised;
  }
  return c;
}

std::vector<std::string> runs_on(const core::TargetSet& images) {
  std::vector<std::string> out;
  for (const auto& x : images) {
    const std::string lo = core::cc_string(x.arch.number);
    const std::string top = std::to_string(x.arch.major()) + ".9";
    if (x.kind == core::CodeKind::sass)
      out.push_back(x.arch.variant == core::Variant::a ? fmt::format("{} ({})", lo, x.name())
                                                       : fmt::format("{}-{} ({})", lo, top, x.name()));
    else if (x.arch.variant == core::Variant::a)
      out.push_back(fmt::format("{} ({}, JIT)", lo, x.name()));
    else if (x.arch.variant == core::Variant::f)
      out.push_back(fmt::format("{}-{} ({}, JIT)", lo, top, x.name()));
    else
      out.push_back(fmt::format(">={} ({}, JIT)", lo, x.name()));
  }
  return out;
}

}  // namespace kiln::binary
