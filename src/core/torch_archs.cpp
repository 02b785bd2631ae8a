#include "core/torch_archs.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdlib>

#include "core/data_toml.hpp"
#include "core/version.hpp"

namespace kiln::core {
namespace {

const std::vector<TorchArchTable>& tables() {
  static const std::vector<TorchArchTable> all = [] {
    std::vector<TorchArchTable> out;
    const toml::table root = data::load_toml("torch_archs.toml");
    if (auto arr = root["torch"].as_array())
      for (const auto& node : *arr) {
        const auto& t = *node.as_table();
        TorchArchTable tt;
        tt.version = t["version"].value_or(std::string());
        if (auto named = t["named"].as_array())
          for (const auto& pair : *named)
            if (auto p = pair.as_array(); p && p->size() == 2)
              tt.named.emplace_back((*p)[0].value_or(std::string()), (*p)[1].value_or(std::string()));
        if (auto sup = t["supported"].as_array())
          for (const auto& e : *sup) tt.supported.push_back(e.value_or(std::string()));
        out.push_back(std::move(tt));
      }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return compare(leading_version(a.version), leading_version(b.version)) < 0;
    });
    return out;
  }();
  return all;
}

}  // namespace

bool TorchArchTable::accepts_entry(std::string_view entry) const {
  std::string_view base = entry;
  if (base.size() > 4 && base.substr(base.size() - 4) == "+PTX") base.remove_suffix(4);
  return std::find(supported.begin(), supported.end(), base) != supported.end();
}

bool TorchArchTable::can_spell(const Arch& a) const {
  return std::find(supported.begin(), supported.end(), a.dotted()) != supported.end();
}

const TorchArchTable& torch_arch_table(std::string_view torch_version) {
  const auto& all = tables();
  if (all.empty()) {
    static const TorchArchTable none;
    return none;  // data/torch_archs.toml is compiled in; an empty table is a build bug caught by tests
  }
  const Version want = leading_version(torch_version);
  if (want.empty()) return all.back();
  const TorchArchTable* best = &all.front();
  for (const auto& t : all) {
    if (compare(want, leading_version(t.version)) < 0) break;
    best = &t;
  }
  return *best;
}

TorchVerdict torch_reads(std::string_view list, const TorchArchTable& table) {
  std::string s(list);
  std::replace(s.begin(), s.end(), ' ', ';');
  for (const auto& [name, value] : table.named)
    for (std::size_t pos = 0; (pos = s.find(name, pos)) != std::string::npos; pos += value.size())
      s.replace(pos, name.size(), value);
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(';', start);
    const std::string piece = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!table.accepts_entry(piece)) return {false, piece};
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

}  // namespace kiln::core
