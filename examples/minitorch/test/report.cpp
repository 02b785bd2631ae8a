#include "report.h"

#include <cstdio>
#include <exception>

namespace selftest {

bool Report::compare(const std::string& backend, const std::string& op, const std::string& what,
                     double max_error, double tolerance) {
  const bool ok = max_error <= tolerance;
  ++checks_;
  if (!ok) ++failures_;
  std::printf("[%-4s] %-12s %-34s max_err=%-10.3g tol=%-8.1g %s\n", backend.c_str(), op.c_str(),
              what.c_str(), max_error, tolerance, ok ? "PASS" : "FAIL");
  std::fflush(stdout);
  return ok;
}

bool Report::expect(const std::string& backend, const std::string& op, const std::string& what,
                    bool ok, const std::string& note) {
  ++checks_;
  if (!ok) ++failures_;
  std::printf("[%-4s] %-12s %-34s %s%s%s\n", backend.c_str(), op.c_str(), what.c_str(),
              ok ? "PASS" : "FAIL", note.empty() ? "" : ": ", note.c_str());
  std::fflush(stdout);
  return ok;
}

void Report::guarded(const std::string& backend, const std::string& op,
                     const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    ++checks_;
    ++failures_;
    std::printf("[%-4s] %-12s FAIL: %s\n", backend.c_str(), op.c_str(), e.what());
    std::fflush(stdout);
  }
}

}  // namespace selftest
