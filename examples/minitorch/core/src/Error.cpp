#include "mt/core/Error.h"

namespace mt {

namespace {
std::string with_location(const std::string& message, const char* file, int line) {
  return detail::str(message, " (", file, ":", line, ")");
}
}  // namespace

Error::Error(std::string message, const char* file, int line)
    : std::runtime_error(with_location(message, file, line)), message_(std::move(message)) {}

namespace detail {
void throw_error(const std::string& message, const char* file, int line) {
  throw Error(message, file, line);
}
}  // namespace detail

}  // namespace mt
