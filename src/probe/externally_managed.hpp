#pragma once
// PEP 668: an interpreter whose distribution manages its packages (Debian's and Ubuntu's
// /usr/bin/python3) carries an EXTERNALLY-MANAGED file beside its standard library, and pip refuses
// to install into it. A torch extension would compile for minutes and then fail at `pip install`:
// plan and doctor find the marker first and say what to do.
#include <optional>
#include <string>

#include "io/seams.hpp"

namespace kiln::probe {

// The marker's path when `python` is externally managed: outside a venv, with the marker present,
// and pip not told to ignore it (PIP_BREAK_SYSTEM_PACKAGES). nullopt otherwise, or when the
// interpreter does not answer (the build's own error will say more than a guess here).
std::optional<std::string> externally_managed(const io::Seams& s, const std::string& python);

// The one-line advice: a venv that still sees the system's packages (torch included).
std::string externally_managed_fix(const std::string& python);

// The script `python` runs, exposed for tests: prints the marker's path, or nothing.
const char* externally_managed_script();

}  // namespace kiln::probe
