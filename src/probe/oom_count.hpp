#pragma once
// How many processes the kernel's out-of-memory killer has killed since boot (/proc/vmstat
// oom_kill, Linux 4.13 and newer; a cgroup's own OOM kills are counted there too). Read before and
// after a build, it tells a compile the OOM killer ended from one SIGKILLed by anything else (a
// user's kill -9, a CI runner's or scheduler's limit), which fewer jobs would not have saved.
#include <cstdint>
#include <optional>
#include <string_view>

#include "io/fs.hpp"

namespace kiln::probe {

// nullopt when the file or its oom_kill line cannot be read (an older kernel, no /proc).
std::optional<std::uint64_t> oom_kill_count(const io::Filesystem& fs);

// The oom_kill value of /proc/vmstat's text ("name value" lines); nullopt when absent or malformed.
std::optional<std::uint64_t> parse_oom_kill(std::string_view vmstat);

}  // namespace kiln::probe
