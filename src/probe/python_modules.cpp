#include "probe/python_modules.hpp"

#include <cctype>
#include <sstream>

#include "io/isolated_python.hpp"

namespace kiln::probe {

const char* find_python_modules_script() {
  // signal.alarm: the process seam has no timeout; a site hook that hangs must not hang the plan.
  return "import importlib.util, signal, sys\n"
         "signal.alarm(10)\n"
         "for n in sys.argv[1:]:\n"
         "    try:\n"
         "        print(n, 1 if importlib.util.find_spec(n) is not None else 0)\n"
         "    except Exception:\n"
         "        pass\n";
}

namespace {

bool is_module_name(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

std::map<std::string, bool> find_python_modules(const io::Seams& s, const std::string& python,
                                                const std::vector<std::string>& names) {
  std::map<std::string, bool> found;
  std::vector<std::string> args;
  for (const auto& n : names)
    if (is_module_name(n)) args.push_back(n);
  if (python.empty() || args.empty()) return found;
  const auto spec = io::isolated_python(python, find_python_modules_script(), io::PythonSite::needed, args);
  auto r = s.proc.run(spec);
  if (!r.ok()) return found;
  std::istringstream in(r.out);
  std::string name, flag;
  while (in >> name >> flag)
    if (is_module_name(name) && (flag == "0" || flag == "1")) found[name] = flag == "1";
  return found;
}

}  // namespace kiln::probe
