#pragma once
// A profile as terminal tables, as JSON (schema in docs/cli/report.md) and as one self-contained
// HTML page (inline SVG, CSS and a few lines of JS; nothing fetched from the network).
#include <nlohmann/json.hpp>
#include <string>

#include "report/profile.hpp"

namespace kiln::report {

std::string render_text(const Profile& p, size_t top);
nlohmann::ordered_json to_json(const Profile& p, size_t top);
std::string render_html(const Profile& p, size_t top);

// "1.2s", "3m05s", "1h02m": durations as a person reads them.
std::string human_ms(double ms);
std::string human_kib(double kib);

}  // namespace kiln::report
