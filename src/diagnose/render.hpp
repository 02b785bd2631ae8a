#pragma once
// Turns a Diagnosis into what `kiln diagnose` prints: text for people, JSON for scripts.
#include <nlohmann/json.hpp>

#include <ostream>
#include <string_view>

#include "diagnose/diagnosis.hpp"

namespace kiln::diagnose {

struct RenderOptions {
  bool all = false;      // every finding, not only the root cause
  bool context = false;  // print the lines around each shown finding
};

// `source` names the log in "source:line" references ("-" reads as <stdin>).
void render_text(std::ostream& out, const Diagnosis& d, std::string_view source, const RenderOptions& opts);
nlohmann::ordered_json to_json(const Diagnosis& d, std::string_view source);

}  // namespace kiln::diagnose
