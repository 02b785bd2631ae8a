#pragma once
// A TaskTable for tests: children and threads as the test states them, every set_nice recorded.
#include <map>
#include <utility>
#include <vector>

#include "io/task_table.hpp"

namespace kiln::io {

class FakeTaskTable final : public TaskTable {
public:
  std::map<long, std::vector<long>> kids;
  std::map<long, std::vector<TaskState>> tasks;  // pid -> its threads
  std::vector<std::pair<long, int>> set;         // every set_nice call
  std::vector<long> children(long pid) const override;
  std::vector<TaskState> threads(long pid) const override;
  bool set_nice(long tid, int nice) override;
};
}  // namespace kiln::io
