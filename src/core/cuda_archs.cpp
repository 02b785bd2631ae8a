#include "core/cuda_archs.hpp"

#include <toml++/toml.h>

#include <cstdio>
#include <cstdlib>

#include "core/data_toml.hpp"
#include "core/version.hpp"

namespace kiln::core {

std::optional<CudaVersion> parse_cuda_version(std::string_view s) {
  const Version v = leading_version(s);  // "12.9.1" -> 12.9
  if (v.parts.size() < 2) return std::nullopt;
  return CudaVersion{v.major(), v.minor()};
}

static std::optional<CudaVersion> version_at(const toml::table& t, const char* key) {
  if (auto s = t[key].value<std::string>()) return parse_cuda_version(*s);
  return std::nullopt;
}

const ArchCatalog& ArchCatalog::get() {
  static const ArchCatalog catalog = [] {
    ArchCatalog c;
    const toml::table root = data::load_toml("cuda_archs.toml");
    c.newest_ = parse_cuda_version(root["newest_known_cuda"].value_or(std::string("13.0"))).value();
    if (auto arr = root["arch"].as_array())
      for (const auto& node : *arr) {
        const auto& t = *node.as_table();
        ArchInfo a;
        a.number = t["number"].value_or(0);
        a.family = t["family"].value_or(std::string());
        a.first = version_at(t, "first_cuda").value_or(CudaVersion{});
        a.last = version_at(t, "last_cuda");
        a.a_since = version_at(t, "a_since");
        a.f_since = version_at(t, "f_since");
        a.note = t["note"].value_or(std::string());
        c.archs_.push_back(a);
      }
    if (auto arr = root["nvcc_default"].as_array())
      for (const auto& node : *arr) {
        const auto& t = *node.as_table();
        c.nvcc_default_.emplace_back(version_at(t, "since_cuda").value_or(CudaVersion{}), t["arch"].value_or(0));
      }
    c.default_archs_ = root["defaults"]["archs"].value_or(std::string("8.0;9.0+PTX"));
    return c;
  }();
  return catalog;
}

const ArchInfo* ArchCatalog::find(int number) const {
  for (const auto& a : archs_)
    if (a.number == number) return &a;
  return nullptr;
}

bool ArchCatalog::known(const Arch& a) const {
  const ArchInfo* info = find(a.number);
  if (!info) return false;
  if (a.variant == Variant::a) return info->a_since.has_value();
  if (a.variant == Variant::f) return info->f_since.has_value();
  return true;
}

std::optional<int> ArchCatalog::nvcc_default(CudaVersion v) const {
  std::optional<int> out;
  for (const auto& [since, arch] : nvcc_default_)
    if (!(v < since)) out = arch;
  return out;
}

bool ArchCatalog::supported_by(const Arch& a, CudaVersion v) const {
  const ArchInfo* info = find(a.number);
  if (!info) return false;
  std::optional<CudaVersion> first = info->first;
  if (a.variant == Variant::a) first = info->a_since;
  if (a.variant == Variant::f) first = info->f_since;
  if (!first || v < *first) return false;
  return !info->last || v <= *info->last;
}

std::string ArchCatalog::support_range(const Arch& a) const {
  const ArchInfo* info = find(a.number);
  if (!info) return "no CUDA release kiln knows of";
  std::optional<CudaVersion> first = info->first;
  if (a.variant == Variant::a) first = info->a_since;
  if (a.variant == Variant::f) first = info->f_since;
  if (!first) return "no CUDA release (" + a.sm() + " has no `" + a.suffix() + "` variant)";
  std::string s =
      info->last ? "CUDA " + first->str() + " to " + info->last->str() : "CUDA " + first->str() + " and later";
  if (!info->note.empty()) s += "; " + info->note;
  return s;
}

}  // namespace kiln::core
