#include "cli/json_out.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/json_text.hpp"

namespace kiln::cli {
namespace {

using json = nlohmann::ordered_json;

// The one list of schema versions; docs/cli/json.md mirrors it. doctor is at 2: its sizes and
// durations moved to bytes and seconds (memory_gib -> memory_bytes, elapsed_ms -> elapsed_s).
// build is at 2: its outcome.verify took kiln verify's shape (files[].path and targets, problems
// as objects).
constexpr std::array<std::pair<std::string_view, int>, 12> kVersions{{
    {"archs", 1},
    {"bench", 1},
    {"build", 2},
    {"cache", 1},
    {"diagnose", 1},
    {"doctor", 2},
    {"gpus", 1},
    {"inspect", 1},
    {"plan", 1},
    {"report", 1},
    {"verify", 1},
    {"error", 1},
}};

}  // namespace

std::string schema_for(std::string_view command) {
  for (const auto& [name, version] : kVersions)
    if (name == command) return fmt::format("kiln.{}/{}", name, version);
  return fmt::format("kiln.{}/1", command);
}

std::string json_text(std::string_view command, json body) {
  json j = json::object();
  j["schema"] = schema_for(command);
  if (body.is_object()) {
    for (auto it = body.begin(); it != body.end(); ++it)
      if (it.key() != "schema") j[it.key()] = std::move(it.value());
  } else {
    j["result"] = std::move(body);
  }
  return core::dump_json(std::move(j), 2) + "\n";
}

json error_json(std::string_view command, int exit_code, std::string_view message) {
  json j = json::object();
  j["schema"] = schema_for("error");
  j["command"] = command.empty() ? json(nullptr) : json(std::string(command));
  // 128 + signal: a stop signal (SIGINT, SIGTERM, SIGHUP) ended the command before it had a result.
  const char* kind = exit_code == 2 ? "usage" : exit_code > 128 ? "interrupted" : "failure";
  j["error"] = {{"kind", kind}, {"message", std::string(message)}};
  j["exit_code"] = exit_code;
  return j;
}

}  // namespace kiln::cli
