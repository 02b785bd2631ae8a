#include "probe/disk.hpp"

#include <sys/statvfs.h>

namespace kiln::probe {

std::optional<DiskSpace> StatvfsDiskQuery::space(const std::string& path) const {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
  return DiskSpace{static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize,
                   static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize};
}

}  // namespace kiln::probe
