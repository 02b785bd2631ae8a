#pragma once
// Text and JSON renderings of binary::FileReport / DepsReport for `kiln inspect` (and reused by
// `kiln verify --json`). The JSON schema is documented in docs/cli/inspect.md.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "binary/deps.hpp"
#include "binary/inspect.hpp"

namespace kiln::cli {

struct RenderOptions {
  bool sizes = false, kernels = false, deps = false, undefined = false;
};

nlohmann::ordered_json file_json(const binary::FileReport& f, const std::optional<binary::DepsReport>& d,
                                 const RenderOptions& o);
void print_file(std::ostream& out, const binary::FileReport& f, const std::optional<binary::DepsReport>& d,
                const RenderOptions& o);
std::string human_bytes(std::uint64_t n);
// Each part's share of their sum in tenths of a percent, rounded so that the shares add up to
// exactly 1000 (largest remainder): a --sizes table whose rows sum to 100.0%.
std::vector<int> tenths_of_percent(const std::vector<std::uint64_t>& parts);
std::string arch_name(const core::Target& t);  // "sm_90a" for SASS and PTX alike, as cuobjdump names them

}  // namespace kiln::cli
