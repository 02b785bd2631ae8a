#include "io/task_table.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "io/fs.hpp"
#include "io/process_table.hpp"

namespace kiln::io {
namespace {

// A whole decimal number (a pid, a nice value), or nullopt.
std::optional<long> whole_number(std::string_view s) {
  long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::vector<long> task_ids(long pid) {
  std::vector<long> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d))
    if (auto n = whole_number(e->d_name); n && *n > 0) out.push_back(*n);
  ::closedir(d);
  return out;
}

// /proc files: read whole through the filesystem seam's reader; "" when gone.
std::string read_small(const std::string& path) { return RealFilesystem().read(path).value_or(""); }

}  // namespace

bool parse_task_stat(const std::string& stat, char& state, int& nice) {
  const auto fields = proc_stat_fields(stat);  // [0] is field 3, the state; [16] field 19, nice
  if (fields.size() < 19 - 2 || fields[0].size() != 1) return false;
  const auto n = whole_number(fields[19 - 3]);
  if (!n || *n < -20 || *n > 19) return false;
  state = fields[0][0];
  nice = static_cast<int>(*n);
  return true;
}

std::vector<long> SystemTaskTable::children(long pid) const {
  std::vector<long> out;
  for (long tid : task_ids(pid)) {
    std::istringstream in(read_small("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/children"));
    for (long c; in >> c;) out.push_back(c);
  }
  return out;
}

std::vector<TaskState> SystemTaskTable::threads(long pid) const {
  std::vector<TaskState> out;
  for (long tid : task_ids(pid)) {
    TaskState t{tid, '?', 0};
    if (parse_task_stat(read_small("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat"), t.state,
                        t.nice))
      out.push_back(t);
  }
  return out;
}

bool SystemTaskTable::set_nice(long tid, int nice) {
  return ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) == 0;
}

bool can_lower_nice() {
  bool ok = false;
  try {
    std::thread probe([&ok] {
      const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
      errno = 0;
      const int own = ::getpriority(PRIO_PROCESS, tid);
      if (errno != 0 || own >= 19) return;
      if (::setpriority(PRIO_PROCESS, tid, own + 1) != 0) return;
      ok = ::setpriority(PRIO_PROCESS, tid, own) == 0;
    });
    probe.join();
  } catch (const std::system_error&) {
    return false;  // no thread to try it on: then kiln does not count on it
  }
  return ok;
}

}  // namespace kiln::io
