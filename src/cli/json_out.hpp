#pragma once
// One envelope for every command's --json output (docs/cli/json.md): the object starts with
// "schema": "kiln.<command>/<version>", bytes that are not UTF-8 are escaped (core/json_text),
// and errors under --json are JSON objects too (schema kiln.error/1).
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <string_view>

namespace kiln::cli {

// "kiln.build/2". A command's version is bumped whenever its JSON changes shape (a field renamed,
// removed or retyped); within one version fields are only added.
std::string schema_for(std::string_view command);

// `body` for `command`: the schema first, then body's fields, escaped, indented, a newline at the end.
std::string json_text(std::string_view command, nlohmann::ordered_json body);
inline void print_json(std::ostream& out, std::string_view command, nlohmann::ordered_json body) {
  out << json_text(command, std::move(body));
}

// {"schema": "kiln.error/1", "command": ..., "error": {"kind": "usage"|"failure"|"interrupted", "message": ...},
//  "exit_code": N}: what --json prints instead of the command's object when it cannot run.
nlohmann::ordered_json error_json(std::string_view command, int exit_code, std::string_view message);

}  // namespace kiln::cli
