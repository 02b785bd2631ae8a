#include "binary/vendor.hpp"

#include <set>
#include <vector>

#include <fmt/format.h>

#include "core/arch.hpp"
#include "core/data_toml.hpp"

namespace kiln::binary {
namespace {

struct VendorTable {
  std::set<std::string> names;
  std::vector<std::string> prefixes;
};

const VendorTable& table() {
  static const VendorTable t = [] {
    VendorTable v;
    auto root = data::load_toml("vendor_libraries.toml");
    if (auto* a = root["names"].as_array())
      for (auto& n : *a) v.names.insert(n.value_or(std::string()));
    if (auto* a = root["prefixes"].as_array())
      for (auto& n : *a) v.prefixes.push_back(n.value_or(std::string()));
    return v;
  }();
  return t;
}

// The folder after site-packages/nvidia/ ("cufft", "cu13"), or "" outside an NVIDIA wheel.
std::string nvidia_wheel_folder(const std::string& path) {
  for (const char* root : {"/site-packages/nvidia/", "/dist-packages/nvidia/"}) {
    const auto at = path.find(root);
    if (at == std::string::npos) continue;
    const auto from = at + std::string(root).size();
    return path.substr(from, path.find('/', from) - from);
  }
  return "";
}

}  // namespace

std::optional<std::string> vendor_library(const std::string& path) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  const std::string stem = base.substr(0, base.find(".so"));
  const auto& t = table();
  if (t.names.count(stem)) return stem;
  for (const auto& p : t.prefixes)
    if (stem.rfind(p, 0) == 0) return stem;
  if (!nvidia_wheel_folder(path).empty()) return stem;
  return std::nullopt;
}

std::string vendor_fix(const std::string& path, const std::string& library, int cc) {
  const std::string wheel = nvidia_wheel_folder(path);
  // The CUDA 13 wheels share one folder (nvidia/cu13) and name no single package.
  const bool one_package = !wheel.empty() && !(wheel.size() > 2 && wheel.rfind("cu", 0) == 0 &&
                                               wheel.find_first_not_of("0123456789", 2) == std::string::npos);
  return fmt::format(
      "{} is NVIDIA's library, not built from your code: install a release of it that supports compute "
      "capability {} ({}; NVIDIA's release notes list the architectures each release supports)",
      library, core::cc_string(cc),
      one_package ? "a newer nvidia-" + wheel + "* wheel" : std::string("a newer CUDA toolkit or nvidia-* wheel"));
}

}  // namespace kiln::binary
