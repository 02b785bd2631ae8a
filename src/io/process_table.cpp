#include "io/process_table.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace kiln::io {

std::vector<std::string> proc_stat_fields(const std::string& stat) {
  std::vector<std::string> out;
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return out;
  std::istringstream in(stat.substr(close + 1));
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

std::optional<std::uint64_t> parse_proc_stat_start(const std::string& stat) {
  const auto fields = proc_stat_fields(stat);
  if (fields.size() < 22 - 2) return std::nullopt;
  const std::string& field = fields[22 - 3];
  try {
    size_t used = 0;
    auto v = std::stoull(field, &used);
    if (used != field.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<unsigned> SystemProcessTable::owner(long pid) const {
  struct stat st {};
  if (pid <= 0 || ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0) return std::nullopt;
  return static_cast<unsigned>(st.st_uid);
}

std::optional<std::uint64_t> SystemProcessTable::start_time(long pid) const {
  if (pid <= 0) return std::nullopt;
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n > 0) {
      const std::string stat(buf, static_cast<size_t>(n));
      // A zombie has exited; only its parent has not collected it yet.
      auto close = stat.rfind(')');
      if (close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X'))
        return std::nullopt;
      if (auto t = parse_proc_stat_start(stat)) return t;
    }
    return std::nullopt;
  }
  if (::access("/proc/self/stat", R_OK) == 0) return std::nullopt;  // /proc works: the pid is gone
  if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) return 0;
  return std::nullopt;
}

const ProcessTable& system_processes() {
  static const SystemProcessTable table;
  return table;
}

}  // namespace kiln::io
