#include "core/terminal_text.hpp"

#include <cstdio>

namespace kiln::core {
namespace {

std::string hex(const char* spelling, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, spelling, value);
  return buf;
}

// Where the string that starts at `i` (just past ESC ] / P / ^ / _) ends: after BEL or ESC '\'.
size_t string_end(std::string_view t, size_t i) {
  for (; i < t.size(); ++i) {
    if (t[i] == '\a') return i + 1;
    if (t[i] == '\033' && i + 1 < t.size() && t[i + 1] == '\\') return i + 2;
  }
  return t.size();
}

// Where the CSI sequence that starts at `i` (just past ESC [) ends: after its final byte.
size_t csi_end(std::string_view t, size_t i) {
  while (i < t.size() && static_cast<unsigned char>(t[i]) >= 0x20 && static_cast<unsigned char>(t[i]) <= 0x3f) ++i;
  return i < t.size() && static_cast<unsigned char>(t[i]) >= 0x40 && static_cast<unsigned char>(t[i]) <= 0x7e ? i + 1
                                                                                                              : i;
}

}  // namespace

std::string terminal_safe(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size();) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c == '\033' && i + 1 < t.size()) {
      const char k = t[i + 1];
      if (k == '[') {
        i = csi_end(t, i + 2);
        continue;
      }
      if (k == ']' || k == 'P' || k == '^' || k == '_' || k == 'X') {
        i = string_end(t, i + 2);
        continue;
      }
    }
    if (c == 0xc2 && i + 1 < t.size() && static_cast<unsigned char>(t[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(t[i + 1]) <= 0x9f) {
      out += hex("\\u%04x", static_cast<unsigned char>(t[i + 1]));
      i += 2;
      continue;
    }
    if (c == '\r' && i + 1 < t.size() && t[i + 1] == '\n') {  // a CRLF line end: the LF is enough
      ++i;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      out += hex("\\x%02x", c);
    else
      out += static_cast<char>(c);
    ++i;
  }
  return out;
}

}  // namespace kiln::core
