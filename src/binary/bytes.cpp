#include "binary/bytes.hpp"

#include <fmt/format.h>

namespace kiln::binary {

std::string ParseError::to_string() const { return fmt::format("{}: offset {:#x}: {}", file, offset, message); }

}  // namespace kiln::binary
