#pragma once
// .ninja_log: one line per finished edge output, appended build after build. kiln report profiles
// the latest build only, so the parser splits the log where time goes backwards (each ninja run
// starts its clock at zero) and keeps the last record of each output.
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace kiln::report {

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
  int builds = 0;         // ninja runs recorded in the log
  std::vector<Job> jobs;  // the latest run's, by start time
};

// Versions 5, 6 and 7 (start, end, mtime, output, hash, tab-separated). An error names the line.
tl::expected<NinjaLog, std::string> parse_ninja_log(const std::string& text);

}  // namespace kiln::report
