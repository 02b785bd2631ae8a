#pragma once
// Which processes exist, and since when. A pid alone does not name a process for long: the kernel
// reuses pids, so whoever records "pid 4242 is mine" also records its start time and checks both.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::io {

class ProcessTable {
public:
  virtual ~ProcessTable() = default;
  // nullopt: no such process. 0: it exists but its start time cannot be read (no /proc).
  virtual std::optional<std::uint64_t> start_time(long pid) const = 0;
  // The user id the process runs as; nullopt when unknown (then nothing is concluded from it).
  virtual std::optional<unsigned> owner(long pid) const {
    (void)pid;
    return std::nullopt;
  }
};

// /proc/PID/stat, else kill(pid, 0) when /proc is not mounted.
class SystemProcessTable final : public ProcessTable {
public:
  std::optional<std::uint64_t> start_time(long pid) const override;
  std::optional<unsigned> owner(long pid) const override;  // /proc/PID's owner
};
const ProcessTable& system_processes();

// The fields of a /proc/PID/stat line after the parenthesised command name, which may itself hold
// spaces and parentheses: element 0 is field 3 (the state). Empty when there is no command name.
std::vector<std::string> proc_stat_fields(const std::string& stat);

// The start time in a /proc/PID/stat line: field 22.
std::optional<std::uint64_t> parse_proc_stat_start(const std::string& stat);

}  // namespace kiln::io
