#include "probe/finding.hpp"

namespace kiln::probe {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::note:
      return "note";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "note";
}

}  // namespace kiln::probe
