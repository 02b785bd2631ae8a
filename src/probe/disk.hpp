#pragma once
// Free space where the build, the caches and temporary files will go. statvfs is behind an
// interface so the doctor can be tested with chosen numbers.
#include <cstdint>
#include <optional>
#include <string>

namespace kiln::probe {

struct DiskSpace {
  std::uint64_t free_bytes = 0;  // available to an unprivileged user (f_bavail)
  std::uint64_t total_bytes = 0;
};

class DiskQuery {
public:
  virtual ~DiskQuery() = default;
  virtual std::optional<DiskSpace> space(const std::string& path) const = 0;
};

class StatvfsDiskQuery final : public DiskQuery {
public:
  std::optional<DiskSpace> space(const std::string& path) const override;
};

}  // namespace kiln::probe
