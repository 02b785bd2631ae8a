#pragma once
// A ProcessRunner for tests: answers scripted by command line, every call recorded.
#include <map>
#include <string>
#include <vector>

#include "io/process.hpp"

namespace kiln::io {

// Answers by argv[0] + args joined with spaces; records every call.
class FakeProcessRunner final : public ProcessRunner {
public:
  void on(const std::string& command_line, ProcessResult result);
  ProcessResult run(const ProcessSpec& spec) override;
  const std::vector<ProcessSpec>& calls() const { return calls_; }

private:
  std::map<std::string, ProcessResult> answers_;
  std::vector<ProcessSpec> calls_;
};

// Convenience: a result that ran and printed `out`.
ProcessResult ran(std::string out, int exit_code = 0);

}  // namespace kiln::io
