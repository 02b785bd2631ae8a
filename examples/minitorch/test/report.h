#pragma once
// One printed line per check, and the tally that decides the exit status.
#include <functional>
#include <string>

namespace selftest {

class Report {
 public:
  // Prints "[backend] op  what  max_err=... tol=...  PASS|FAIL".
  // A NaN error fails (the comparison err <= tol is false).
  bool compare(const std::string& backend, const std::string& op, const std::string& what,
               double max_error, double tolerance);
  // Prints "[backend] op  what  PASS|FAIL" with a note.
  bool expect(const std::string& backend, const std::string& op, const std::string& what, bool ok,
              const std::string& note = "");
  // Runs body; an exception (an mt::Error from a CUDA call, say) is reported
  // as a FAIL line carrying its message, and the run continues.
  void guarded(const std::string& backend, const std::string& op, const std::function<void()>& body);

  int checks() const { return checks_; }
  int failures() const { return failures_; }

 private:
  int checks_ = 0;
  int failures_ = 0;
};

}  // namespace selftest
