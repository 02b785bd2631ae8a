#pragma once
// What `kiln diagnose` found in a log: findings ranked so the root cause comes first.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/signature.hpp"

namespace kiln::diagnose {

// What `kiln build` knows about the build whose log is diagnosed, so a fix can speak in the plan's
// terms ("kiln used -j16 with 64 GiB; next time use --jobs 6") instead of generic advice.
struct PlanContext {
  std::optional<int> jobs;           // parallel compile jobs the build ran
  std::optional<double> memory_gib;  // memory the plan budgeted for the build
  std::optional<int> next_jobs;      // jobs the planner would use next time; default jobs/2
  std::string arch_list;             // targets in the user's spelling, e.g. "8.0;9.0"
  std::string cuda_version;          // nvcc release, e.g. "13.0"
  std::string force_build;           // the project's own force-build switch, e.g. "CAUSAL_CONV1D_FORCE_BUILD=TRUE"
  // The project's git submodules whose folder is empty or missing, relative to it (read/gitmodules).
  std::vector<std::string> empty_submodules;
  // The header files the project holds, relative to it (read/project_headers).
  std::vector<std::string> project_headers;
  // The project's setup.py (read/setup_py_source; "" when unknown): the line of a traceback frame
  // that setuptools ran from setup.py's text, which Python printed without it.
  std::string setup_py;
};

struct LogLine {
  uint64_t number = 0;  // 1-based line number in the log
  std::string text;
};

struct Finding {
  const Signature* signature = nullptr;
  uint64_t first_line = 0;
  uint64_t count = 0;                                         // lines this signature matched
  std::vector<std::pair<std::string, std::string>> captures;  // in first-seen order
  std::vector<LogLine> evidence;                              // matched lines (and `follow` lines), by line number
  std::vector<LogLine> context;                               // the lines around the first match
  std::string cause, fix;                                     // with captures (and the plan) filled in

  bool is_error() const { return signature->severity == Severity::error; }
  const std::string* capture(std::string_view name) const;
};

struct Diagnosis {
  uint64_t lines = 0;
  uint64_t bytes = 0;
  // Errors ranked by priority then first line, then warnings; the root cause is findings[0] when
  // it is an error.
  std::vector<Finding> findings;

  const Finding* root_cause() const {
    return !findings.empty() && findings.front().is_error() ? &findings.front() : nullptr;
  }
  bool failed() const { return root_cause() != nullptr; }
  const Finding* find(std::string_view id) const;
};

// Replaces {name} with the capture `name` and {plan.x} with the plan's value; a value that is not
// known stays visible as <name>.
std::string fill(std::string_view text, const std::vector<std::pair<std::string, std::string>>& captures,
                 const std::optional<PlanContext>& plan);
// True when every {plan.x} in `text` has a value in `plan`.
bool plan_can_fill(std::string_view text, const PlanContext& plan);

}  // namespace kiln::diagnose
