#include "core/torch_index.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>

#include "core/data_toml.hpp"

#include "core/version.hpp"

namespace kiln::core {

std::string torch_cuda_tag(std::string_view v) {
  // The release exactly: "12.4" of "12.4.131" ("12.4a", "12" and "12." are none).
  const auto release = parse_version(v.substr(0, v.find('.', v.find('.') + 1)));
  if (!release || release->parts.size() != 2 || release->major() > 999 || release->minor() > 999) return {};
  return fmt::format("cu{}{}", release->major(), release->minor());
}

const std::vector<TorchIndex>& torch_indexes() {
  static const std::vector<TorchIndex> indexes = [] {
    std::vector<TorchIndex> out;
    const toml::table t = data::load_toml("torch_indexes.toml");
    if (const auto* rows = t["index"].as_array())
      for (const auto& node : *rows) {
        toml::node_view<const toml::node> row{node};
        auto cuda = parse_cuda_version(row["cuda"].value_or(std::string()));
        if (!cuda) continue;
        out.push_back({row["tag"].value_or(std::string()), *cuda, row["first"].value_or(std::string()),
                       row["last"].value_or(std::string())});
      }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cuda < b.cuda; });
    return out;
  }();
  return indexes;
}

std::optional<TorchIndex> torch_index_for(std::string_view nvcc_version) {
  if (torch_cuda_tag(nvcc_version).empty()) return std::nullopt;
  const auto v = parse_cuda_version(nvcc_version);
  if (!v) return std::nullopt;
  std::optional<TorchIndex> best;
  for (const auto& i : torch_indexes())
    if (i.cuda.major == v->major && i.cuda <= *v) best = i;
  return best;
}

namespace {

std::string releases(const TorchIndex& i) {
  if (i.last.empty()) return "torch " + i.first + " and later";
  return i.first == i.last ? "torch " + i.first + " only" : "torch " + i.first + " to " + i.last;
}

}  // namespace

std::string cuda_torch_install(std::string_view nvcc_version) {
  const std::string tag = torch_cuda_tag(nvcc_version);
  if (tag.empty())
    return "kiln found no nvcc, so which CUDA build of torch fits is not known: install the CUDA toolkit, then torch "
           "from https://download.pytorch.org/whl/cuXYZ for its release (CUDA 12.4: cu124)";
  const std::string release = parse_cuda_version(nvcc_version)->str();
  const auto index = torch_index_for(nvcc_version);
  if (!index) {
    const int major = parse_cuda_version(nvcc_version)->major;
    std::string same_major;
    for (const auto& i : torch_indexes())
      if (i.cuda.major == major) same_major += (same_major.empty() ? "" : ", ") + i.tag;
    return fmt::format(
        "PyTorch publishes no CUDA wheel index that the nvcc kiln found (CUDA {}) can build against (its CUDA {} "
        "indexes: {}); install the toolkit of one of them and torch from its index "
        "(https://download.pytorch.org/whl/cuXYZ), or build torch from source",
        release, major, same_major.empty() ? std::string("none") : same_major + ", all newer");
  }
  if (index->tag == tag)
    return fmt::format("pip install torch --index-url {} (the index for CUDA {}, the nvcc kiln found; {})",
                       index->url(), release, releases(*index));
  return fmt::format(
      "pip install torch --index-url {} (PyTorch publishes no {} index for the nvcc kiln found, CUDA {}; {} is its "
      "newest of CUDA {} not newer than that, which cpp_extension builds against with nvcc {}; {})",
      index->url(), tag, release, index->tag, index->cuda.major, release, releases(*index));
}

}  // namespace kiln::core
