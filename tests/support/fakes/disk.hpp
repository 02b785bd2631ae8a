#pragma once
// A DiskQuery for tests: the free space the test chose, by path.
#include <map>
#include <optional>
#include <string>

#include "probe/disk.hpp"

namespace kiln::probe {

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
