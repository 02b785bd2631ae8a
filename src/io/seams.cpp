#include "io/seams.hpp"

namespace kiln::io {

std::optional<std::string> which(const Seams& s, const std::string& name) {
  if (name.find('/') != std::string::npos)
    return s.fs.is_executable(name) ? std::optional<std::string>(name) : std::nullopt;
  const std::string path = s.env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = end > start ? path.substr(start, end - start) : ".";
    std::string cand = dir + "/" + name;
    if (s.fs.is_executable(cand)) return cand;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace kiln::io
