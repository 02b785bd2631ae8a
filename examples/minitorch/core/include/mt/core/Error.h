#pragma once
// Error reporting for minitorch, in the spirit of c10/util/Exception.h:
// every failure is an mt::Error carrying a message and the source location.
#include <sstream>
#include <stdexcept>
#include <string>

namespace mt {

class Error : public std::runtime_error {
 public:
  Error(std::string message, const char* file, int line);
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

namespace detail {
// Concatenates anything streamable; the analogue of c10::str.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_error(const std::string& message, const char* file, int line);
}  // namespace detail

}  // namespace mt

// MT_CHECK(cond, "message parts", ...): throws mt::Error when cond is false.
#define MT_CHECK(cond, ...)                                                                   \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      ::mt::detail::throw_error(::mt::detail::str("check failed: " #cond ": ", __VA_ARGS__),  \
                                __FILE__, __LINE__);                                          \
    }                                                                                         \
  } while (0)

// MT_ERROR("message parts", ...): throws unconditionally.
#define MT_ERROR(...) ::mt::detail::throw_error(::mt::detail::str(__VA_ARGS__), __FILE__, __LINE__)
