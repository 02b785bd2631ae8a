#include "fakes/task_table.hpp"

namespace kiln::io {

std::vector<long> FakeTaskTable::children(long pid) const {
  auto it = kids.find(pid);
  return it == kids.end() ? std::vector<long>{} : it->second;
}

std::vector<TaskState> FakeTaskTable::threads(long pid) const {
  auto it = tasks.find(pid);
  return it == tasks.end() ? std::vector<TaskState>{} : it->second;
}

bool FakeTaskTable::set_nice(long tid, int nice) {
  set.emplace_back(tid, nice);
  for (auto& [pid, ts] : tasks)
    for (auto& t : ts)
      if (t.tid == tid) t.nice = nice;
  return true;
}
}  // namespace kiln::io
