#pragma once
// Is a stream a terminal, and how wide is it: a progress line must fit on one row, or every
// redraw scrolls a new line on a narrow terminal.
#include <cstddef>
#include <optional>

#include "io/environment.hpp"

namespace kiln::io {

struct Terminal {
  bool tty = false;
  std::size_t columns = 80;
};

// For file descriptor `fd`: ioctl(TIOCGWINSZ) for the width, COLUMNS when that gives nothing
// (as ls and cargo do), else 80. Asked again at each redraw, so a resized window is followed.
Terminal terminal_for(int fd, const Environment& env);

// The width from COLUMNS alone (tests, and terminals that report 0 columns).
std::optional<std::size_t> columns_from_env(const Environment& env);

}  // namespace kiln::io
