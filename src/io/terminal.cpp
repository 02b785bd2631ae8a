#include "io/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <string>

namespace kiln::io {

std::optional<std::size_t> columns_from_env(const Environment& env) {
  auto v = env.get("COLUMNS");
  if (!v || v->empty()) return std::nullopt;
  std::size_t n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || p != v->data() + v->size() || n < 10 || n > 10000) return std::nullopt;
  return n;
}

Terminal terminal_for(int fd, const Environment& env) {
  Terminal t;
  t.tty = ::isatty(fd) == 1;
  struct winsize ws {};
  if (t.tty && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 10) {
    t.columns = ws.ws_col;
  } else if (auto c = columns_from_env(env)) {
    t.columns = *c;
  }
  return t;
}

}  // namespace kiln::io
