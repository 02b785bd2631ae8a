#include "probe/externally_managed.hpp"

#include <fmt/format.h>

#include <cctype>

#include "core/text.hpp"
#include "io/isolated_python.hpp"

namespace kiln::probe {

// PEP 668, "Marking an interpreter as using an external package manager": the file is
// sysconfig.get_path("stdlib")/EXTERNALLY-MANAGED, and it does not apply inside a venv
// (sys.prefix != sys.base_prefix).
const char* externally_managed_script() {
  return R"PY(
import os, sys, sysconfig
if sys.prefix == getattr(sys, "base_prefix", sys.prefix):
    m = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
    if os.path.isfile(m):
        print(m)
)PY";
}

std::optional<std::string> externally_managed(const io::Seams& s, const std::string& python) {
  // pip's own switch (its config option break-system-packages, as an environment variable).
  if (auto v = s.env.get("PIP_BREAK_SYSTEM_PACKAGES")) {
    std::string b = core::trim(*v);
    for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (b == "1" || b == "true" || b == "yes" || b == "on") return std::nullopt;
  }
  auto r = s.proc.run(io::isolated_python(python, externally_managed_script(), io::PythonSite::needed));
  if (!r.ok()) return std::nullopt;
  const std::string marker = core::trim(r.out);
  if (marker.empty() || marker.find('\n') != std::string::npos) return std::nullopt;
  return marker;
}

std::string externally_managed_fix(const std::string& python) {
  return fmt::format(
      "make a venv that sees its packages (torch included) and build with it: {} -m venv --system-site-packages "
      "~/kiln-venv, then --python ~/kiln-venv/bin/python",
      python);
}

}  // namespace kiln::probe
