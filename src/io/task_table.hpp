#pragma once
// The threads of a process tree and their nice values, as Linux keeps them per thread: a process's
// children (/proc/PID/task/TID/children), its threads with their state and nice (/proc/PID/task/
// TID/stat), and setpriority(PRIO_PROCESS, tid) on one thread. A seam with a fake, for the watcher
// that shares a compile's CPU weight among its running threads (launch/thread_share).
#include <string>
#include <vector>

namespace kiln::io {

struct TaskState {
  long tid = 0;
  char state = '?';  // 'R' running or runnable, 'S' sleeping, ...
  int nice = 0;
};

class TaskTable {
public:
  virtual ~TaskTable() = default;
  virtual std::vector<long> children(long pid) const = 0;      // of every thread of pid
  virtual std::vector<TaskState> threads(long pid) const = 0;  // empty: gone
  virtual bool set_nice(long tid, int nice) = 0;               // absolute, -20..19
};

class SystemTaskTable final : public TaskTable {
public:
  std::vector<long> children(long pid) const override;
  std::vector<TaskState> threads(long pid) const override;
  bool set_nice(long tid, int nice) override;
};

// The state (field 3) and nice (field 19) of a /proc/PID/task/TID/stat line, read after the
// parenthesised command name, which may hold spaces and parentheses. False when malformed.
bool parse_task_stat(const std::string& stat, char& state, int& nice);

// Whether this process may lower a thread's nice value again after raising it (root with
// CAP_SYS_NICE, or an RLIMIT_NICE that allows it): tried on a thread of its own, raised by one
// and set back.
bool can_lower_nice();

}  // namespace kiln::io
