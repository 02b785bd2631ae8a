#pragma once
// What doctor reports: findings (something wrong or worth knowing, with its fix) and the evidence
// behind each detected item (where it was found and how), so no verdict rests on one unstated signal.
#include <string>
#include <vector>

namespace kiln::probe {

enum class Severity { note, warning, error };
const char* severity_name(Severity s);

struct Finding {
  Severity severity = Severity::note;
  std::string area;   // "cuda", "libraries", "compilers", "tools", "python", "gpus", "machine", "cmake-cache"
  std::string code;   // stable id, e.g. "cuda.version-mismatch", for scripts and tests
  std::string cause;  // one sentence
  std::string fix;    // the command or setting that fixes it; empty when nothing needs doing
};

// One observation: `what` was `value`, found at `where` by `how` (e.g. "version", "13.0.88",
// "/usr/local/cuda/bin/nvcc", "nvcc --version").
struct Evidence {
  std::string what, value, where, how;
};

using Findings = std::vector<Finding>;

inline bool has_error(const Findings& f) {
  for (const auto& x : f)
    if (x.severity == Severity::error) return true;
  return false;
}

}  // namespace kiln::probe
