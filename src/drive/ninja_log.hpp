#pragma once
// .ninja_log: one line per finished edge output, appended build after build (and rewritten in
// arbitrary order when CMake re-configures: ninja -t recompact / restat). kiln report profiles
// the latest build that ran something: its records are picked by their mtime timestamps (see
// parse_ninja_log), else by file order where time goes backwards (each run starts its clock at 0).
#include <map>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::drive {

// One edge that ran: ninja writes a line per output, all with the same start, end and hash.
struct Job {
  std::vector<std::string> outputs;
  long start_ms = 0;  // since the ninja run started
  long end_ms = 0;
  std::string hash;
  long duration_ms() const { return end_ms - start_ms; }
  const std::string& name() const { return outputs.front(); }
};

struct NinjaLog {
  int version = 0;
  int builds = 0;           // ninja runs recorded in the log
  std::vector<Job> jobs;    // the latest run's, by start time
  bool from_mtime = false;  // the latest run was told apart by mtime, not by file order
};

// Versions 5, 6 and 7 (start, end, mtime, output, hash, tab-separated). An error names the line.
tl::expected<NinjaLog, std::string> parse_ninja_log(const std::string& text);

}  // namespace kiln::drive

namespace kiln::drive {

// What each output took the last time it was built (ninja's rule: the last record per output
// wins), for estimating the next build. Unreadable lines are skipped: this only guides an ETA.
std::map<std::string, long> last_durations(const std::string& text);

}  // namespace kiln::drive
