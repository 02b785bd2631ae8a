#include "drive/project_progress.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace kiln::drive {
namespace {

bool take_prefix(std::string_view& line, std::string_view prefix) {
  if (line.substr(0, prefix.size()) != prefix) return false;
  line.remove_prefix(prefix.size());
  return true;
}

std::string_view first_word(std::string_view& rest) {
  auto end = rest.find(' ');
  std::string_view w = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  return w;
}

}  // namespace

int ProjectProgress::extensions_done() const {
  int n = 0;
  for (const auto& [_, e] : exts_) n += e.finished;
  return n;
}

NinjaStatus ProjectProgress::total(std::string_view name, std::string_view description) const {
  NinjaStatus s;
  for (const auto& [_, e] : exts_) {
    s.done += e.finished ? e.total : e.done;
    s.total += e.total;
  }
  s.scope = fmt::format("{} ({}/{} extensions)", name, extensions_done(), extensions());
  s.description = std::string(description);
  return s;
}

// An extension not announced by KILN-EXTENSIONS (its Ninja spoke first) counts all the same.
ProjectProgress::Extension& ProjectProgress::extension(std::string_view name) {
  auto [it, fresh] = exts_.try_emplace(std::string(name));
  if (fresh) order_.emplace_back(name);
  return it->second;
}

ProjectProgress::Fed ProjectProgress::feed(std::string_view line) {
  std::string_view rest = line;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (take_prefix(rest, "KILN-EXTENSIONS ")) {
    while (!rest.empty()) {
      const std::string_view w = first_word(rest);
      if (!w.empty() && exts_.emplace(std::string(w), Extension{}).second) order_.emplace_back(w);
    }
    return {std::nullopt, true};
  }
  if (take_prefix(rest, "KILN-EXT-UNITS ")) {
    const std::string_view name = first_word(rest);
    const auto units = core::parse_count(rest);
    if (name.empty() || !units) return {std::nullopt, true};
    Extension& e = extension(name);
    if (!e.reported) e.total = *units;
    return {total(name, "starting"), true};
  }
  if (take_prefix(rest, "KILN-EXTENSION-DONE ")) {
    auto it = exts_.find(first_word(rest));
    if (it == exts_.end()) return {std::nullopt, true};
    it->second.finished = true;
    return {total(it->first, "done"), true};
  }
  if (take_prefix(rest, "KILN-EXT ")) {
    const std::string_view name = first_word(rest);
    auto st = parse_ninja_status(rest);
    if (name.empty() || !st) return {std::nullopt, false};
    Extension& e = extension(name);
    e.done = st->done;
    e.total = st->total;  // Ninja's own count wins over the helper's
    e.reported = true;
    return {total(name, st->description), false};
  }
  return {parse_ninja_status(line), false};
}

}  // namespace kiln::drive
