#include "core/gpu_table.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "core/arch.hpp"
#include "core/data_toml.hpp"
#include "core/spelling.hpp"

namespace kiln::core {

std::string GpuTable::normalize(std::string_view name) {
  std::string s;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Vendor and line words that people add or drop at will.
  // "RTX"/"GTX" too, so "4090" and "A6000" find "RTX 4090" and "RTX A6000".
  for (std::string_view w : {"nvidia", "geforce", "tesla", "quadro", "rtx", "gtx"})
    if (s.rfind(w, 0) == 0 && s.size() > w.size()) s.erase(0, w.size());
  return s;
}

const GpuTable& GpuTable::get() {
  static const GpuTable table = [] {
    GpuTable t;
    const toml::table root = data::load_toml("gpus.toml");
    if (auto arr = root["gpu"].as_array())
      for (const auto& node : *arr) {
        const auto& e = *node.as_table();
        GpuModel g;
        g.name = e["name"].value_or(std::string());
        g.cc = parse_compute_capability(e["cc"].value_or(std::string())).value_or(0);
        g.segment = e["segment"].value_or(std::string());
        g.family = e["family"].value_or(std::string());
        if (auto al = e["aliases"].as_array())
          for (const auto& a : *al) g.aliases.push_back(a.value_or(std::string()));
        t.gpus_.push_back(std::move(g));
      }
    if (auto arr = root["not_nvidia"].as_array())
      for (const auto& node : *arr) {
        const auto& e = *node.as_table();
        OtherAccelerator o{e["name"].value_or(std::string()), e["vendor"].value_or(std::string()), {}};
        if (auto al = e["aliases"].as_array())
          for (const auto& a : *al) o.aliases.push_back(a.value_or(std::string()));
        t.others_.push_back(std::move(o));
      }
    if (auto arm = root["aarch64_only"].as_array())
      for (const auto& node : *arm)
        for (auto& g : t.gpus_)
          if (g.name == node.value_or(std::string())) g.aarch64_only = true;
    return t;
  }();
  return table;
}

tl::expected<GpuModel, GpuLookupError> GpuTable::lookup(std::string_view query) const {
  // A compute capability or architecture stands for itself.
  std::string q(query);
  if (auto cc = parse_compute_capability(q); cc) return GpuModel{"cc " + cc_string(*cc), *cc, "", "", {}};
  // "sm_90", "sm90", "cc90", "cc9.0" and a bare "90" name an architecture.
  std::string num = q;
  for (std::string_view prefix : {"sm_", "sm", "cc"})
    if (num.rfind(prefix, 0) == 0) {
      num.erase(0, prefix.size());
      break;
    }
  const bool digits = !num.empty() && num.size() <= 3 && std::all_of(num.begin(), num.end(), ::isdigit);
  if (num != q || digits) {
    auto arch = parse_arch_name(num);
    if (arch && arch->variant == Variant::none)
      return GpuModel{"cc " + cc_string(arch->number), arch->number, "", "", {}};
  }
  const std::string n = normalize(query);
  if (!n.empty()) {
    for (const auto& g : gpus_) {
      if (normalize(g.name) == n) return g;
      for (const auto& a : g.aliases)
        if (normalize(a) == n) return g;
    }
    // nvidia-smi names carry memory sizes and form factors ("NVIDIA H100 80GB HBM3",
    // "A100-SXM4-40GB"): accept the longest table name that prefixes the query when only such
    // words follow, so "rtx 40900" is still unknown.
    static const std::regex extra("^(\\d+gb|sxm\\d?|pcie|nvl|hbm\\d?e?|mig\\w*)+$");
    const GpuModel* hit = nullptr;
    size_t hit_len = 0;
    for (const auto& g : gpus_) {
      std::vector<std::string> names = g.aliases;
      names.push_back(g.name);
      for (const auto& name : names) {
        const std::string nn = normalize(name);
        if (nn.size() > hit_len && n.rfind(nn, 0) == 0 && std::regex_match(n.substr(nn.size()), extra))
          hit = &g, hit_len = nn.size();
      }
    }
    if (hit) return *hit;
  }
  // Not an NVIDIA GPU at all: no look-alike NVIDIA name helps.
  for (const auto& o : others_) {
    std::vector<std::string> names = o.aliases;
    names.push_back(o.name);
    for (const auto& name : names)
      if (!n.empty() && normalize(name) == n)
        return tl::unexpected(
            GpuLookupError{q,
                           {},
                           "'" + q + "' is " +
                               (std::string("AEIOU").find(o.vendor[0]) != std::string::npos ? "an " : "a ") + o.vendor +
                               " accelerator, not an NVIDIA GPU: CUDA code does not run on it, so "
                               "kiln cannot build for it (PyTorch's ROCm, XPU or XLA builds are the way there)"});
  }
  // Unknown: suggest the nearest names.
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& g : gpus_) {
    size_t best = edit_distance(n, normalize(g.name));
    for (const auto& a : g.aliases) best = std::min(best, edit_distance(n, normalize(a)));
    if (!n.empty() && normalize(g.name).find(n) != std::string::npos) best = std::min<size_t>(best, 1);
    scored.emplace_back(best, g.name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first < b.first; });
  GpuLookupError err{q, {}, ""};
  for (size_t i = 0; i < scored.size() && err.suggestions.size() < 3; ++i) err.suggestions.push_back(scored[i].second);
  err.message = "unknown GPU '" + q + "'; did you mean ";
  for (size_t i = 0; i < err.suggestions.size(); ++i)
    err.message += (i ? (i + 1 == err.suggestions.size() ? " or " : ", ") : "") + ("'" + err.suggestions[i] + "'");
  err.message += "? (`kiln gpus` lists all; a compute capability such as 9.0 also works)";
  return tl::unexpected(err);
}

}  // namespace kiln::core
