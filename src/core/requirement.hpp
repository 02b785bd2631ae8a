#pragma once
// A Python requirement on one package, as projects declare torch ("torch>=2.0", "torch >=2.1,<2.6",
// "torch==2.4.*", "torch~=2.3"): PEP 440's version specifiers over release numbers, enough to say
// whether an installed version ("1.13.1", "2.11.0+cu130") meets them. Pre-release and local parts
// are ignored: 2.6.0a0 counts as 2.6.0.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.hpp"

namespace kiln::core {

struct Requirement {
  std::string name;       // as written, e.g. "torch"
  std::string specifier;  // ">=2.0,<2.6" (spaces removed); "" when any version does
  struct Clause {
    std::string op;         // ==, !=, <=, >=, <, >, ~=, ===
    Version release;        // leading_version of what follows the operator
    bool wildcard = false;  // ==2.4.* / !=2.4.*
  };
  std::vector<Clause> clauses;
};

// "torch>=2.0; python_version>'3.8'" -> torch, >=2.0 (the marker is dropped); extras ("torch[cuda]")
// and a URL ("torch @ https://...") are read as no version. nullopt when it is no requirement.
std::optional<Requirement> parse_requirement(std::string_view text);

// Whether `version` meets every clause; nullopt when `version` has no release number.
std::optional<bool> requirement_met(const Requirement& r, std::string_view version);

}  // namespace kiln::core
