#pragma once
// Free space where the build, the caches and temporary files will go. statvfs is behind an
// interface so the doctor can be tested with chosen numbers.
#include <cstdint>
#include <map>
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

// Answers by exact path; unknown paths have no answer.
class FakeDiskQuery final : public DiskQuery {
public:
  void set(const std::string& path, DiskSpace d) { m_[path] = d; }
  std::optional<DiskSpace> space(const std::string& path) const override {
    auto it = m_.find(path);
    if (it == m_.end()) return std::nullopt;
    return it->second;
  }

private:
  std::map<std::string, DiskSpace> m_;
};

}  // namespace kiln::probe
