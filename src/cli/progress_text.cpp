#include "cli/progress_text.hpp"
#include "core/duration_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::cli {

std::string fit_columns(std::string_view text, size_t columns) {
  // One column per code point: UTF-8 continuation bytes (10xxxxxx) take none, and a cut never
  // lands inside a character.
  size_t used = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (used == columns) return std::string(text.substr(0, i));
    ++used;
  }
  return std::string(text);
}

std::string eta_text(std::optional<std::chrono::seconds> eta) {
  if (!eta) return "";
  if (eta->count() <= 0) return "finishing";
  return core::duration_text(*eta) + " left";
}

namespace {

size_t columns_of(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The last `columns` characters of `text`, never starting inside a UTF-8 sequence.
std::string last_columns(std::string_view text, size_t columns) {
  size_t i = text.size(), used = 0;
  while (i > 0 && used < columns) {
    --i;
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++used;
  }
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  return std::string(text.substr(i));
}

}  // namespace

std::string fit_keeping_end(std::string_view text, size_t columns) {
  if (columns_of(text) <= columns) return std::string(text);
  constexpr std::string_view dots = "...";
  if (columns <= dots.size()) return last_columns(text, columns);
  // Keep the words before the output path ("Building CUDA object ") when the file name still fits
  // after them; otherwise the end alone.
  const auto space = text.rfind(' ');
  const std::string_view head = space == std::string_view::npos ? std::string_view() : text.substr(0, space + 1);
  const std::string_view path = text.substr(head.size());
  const auto slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!head.empty() && columns_of(head) + dots.size() + columns_of(file) <= columns)
    return std::string(head) + std::string(dots) + last_columns(path, columns - columns_of(head) - dots.size());
  return std::string(dots) + last_columns(text, columns - dots.size());
}

std::string step_text(std::string_view description) {
  // CMake's descriptions are words ("Building CUDA object x.o"); a command holds a lone "-o".
  std::vector<std::string_view> words;
  for (size_t at = 0; at < description.size();) {
    const size_t end = std::min(description.find(' ', at), description.size());
    if (end > at) words.push_back(description.substr(at, end - at));
    at = end + 1;
  }
  const auto o = std::find(words.begin(), words.end(), "-o");
  if (o == words.end() || o + 1 == words.end()) return std::string(description);
  std::string_view out = o[1];
  if (out.size() >= 2 && (out.front() == '\'' || out.front() == '"') && out.back() == out.front())
    out = out.substr(1, out.size() - 2);
  const bool compile = std::find(words.begin(), words.end(), "-c") != words.end() ||
                       std::find(words.begin(), words.end(), "--compile") != words.end();
  return (compile ? "compiling " : "linking ") + std::string(out);
}

std::string progress_line(const drive::NinjaStatus& s, std::optional<std::chrono::seconds> eta, size_t width,
                          std::optional<std::chrono::seconds> elapsed) {
  // Never the last column: a row filled to the edge wraps on many terminals, and each \r redraw
  // would then scroll a new line. Width 0: a log, never cut.
  const size_t room = width == 0 ? SIZE_MAX : width > 1 ? width - 1 : 0;
  std::string counts = fmt::format("{}/{}", s.done, s.total);
  if (elapsed) counts += "  " + core::duration_text(*elapsed);
  if (eta) counts += "  " + eta_text(eta);
  std::string line;
  constexpr int bar = 20;
  if (room >= counts.size() + bar + 3 + 20) {  // the bar only when the description keeps some room
    const int filled = s.total ? s.done * bar / s.total : 0;
    line = "[" + std::string(filled, '=') + (filled < bar ? ">" : "") +
           std::string(bar - filled - (filled < bar ? 1 : 0), ' ') + "] ";
  }
  line += counts;
  const std::string what = step_text(s.description);
  const std::string step = s.scope.empty() ? what : s.scope + ": " + what;
  if (width == 0) return line + "  " + step;
  if (columns_of(line) + 2 >= room) return fit_columns(line, room);
  return line + "  " + fit_keeping_end(step, room - columns_of(line) - 2);
}

}  // namespace kiln::cli
