#include "io/environment.hpp"

#include <cstdlib>
#include <cstring>

extern char** environ;

namespace kiln::io {
std::optional<std::string> RealEnvironment::get(const std::string& name) const {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}
std::map<std::string, std::string> RealEnvironment::all() const {
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) out.emplace(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  return out;
}
}  // namespace kiln::io
