#pragma once
// A ProcessTable for tests: the processes alive are the ones the test lists.
#include <cstdint>
#include <map>
#include <optional>

#include "io/process_table.hpp"

namespace kiln::io {

class FakeProcessTable final : public ProcessTable {
public:
  std::map<long, std::uint64_t> started;  // pid -> start time
  std::map<long, unsigned> owners;        // pid -> uid, where a test says
  std::optional<std::uint64_t> start_time(long pid) const override {
    auto it = started.find(pid);
    if (it == started.end()) return std::nullopt;
    return it->second;
  }
  std::optional<unsigned> owner(long pid) const override {
    auto it = owners.find(pid);
    if (it == owners.end()) return std::nullopt;
    return it->second;
  }
};
}  // namespace kiln::io
