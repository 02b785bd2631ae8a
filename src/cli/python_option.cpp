#include "cli/python_option.hpp"

#include "cli/command.hpp"

namespace kiln::cli {

std::string python_interpreter(const io::Seams& s, const std::string& given) {
  if (given.empty()) return "";
  if (auto exe = io::which(s, given)) return *exe;
  throw UsageError("--python '" + given +
                   "' is not an interpreter found on PATH or at that path; name the python that imports the modules");
}

}  // namespace kiln::cli
