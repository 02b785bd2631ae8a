#include "io/isolated_python.hpp"

namespace kiln::io {
namespace {

// One line, so that a traceback's line numbers are off by one at most.
constexpr const char* kUserPaths =
    "import os as _o, sys as _s, site as _t; "
    "_s.path[1:1] = [p for p in _o.environ.get('PYTHONPATH', '').split(_o.pathsep) if _o.path.isabs(p)]; "
    "_u = _t.getusersitepackages() if _s.prefix == _s.base_prefix else ''; "
    "_o.path.isdir(_u) and _t.addsitedir(_u); del _o, _s, _t, _u\n";

}  // namespace

ProcessSpec isolated_python(const std::string& python, const std::string& script, PythonSite site,
                            const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {python, "-I"};
  if (site == PythonSite::skipped) spec.argv.push_back("-S");
  spec.argv.push_back("-c");
  spec.argv.push_back(site == PythonSite::needed ? kUserPaths + script : script);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = "/";
  return spec;
}

std::string isolated_python_line(const std::string& python, const std::string& script, PythonSite site,
                                 const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : isolated_python(python, script, site, args).argv) line += (line.empty() ? "" : " ") + a;
  return line;
}

}  // namespace kiln::io
