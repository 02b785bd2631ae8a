#include "drive/wheel_build.hpp"

#include "core/data.hpp"

namespace kiln::drive {

std::string_view wheel_build_script() {
  // Python 3.8+: tomllib is 3.11+, pip vendors tomli since 21.2; a regex reads the one key if neither exists.
  static constexpr std::string_view kScript =
      R"PY(# Written by kiln: builds the wheel with the project's PEP 517 backend.
import importlib, os, re, sys

def build_system():
    if not os.path.exists("pyproject.toml"):
        return {}
    with open("pyproject.toml", "rb") as f:
        data = f.read()
    for name in ("tomllib", "pip._vendor.tomli", "tomli"):
        try:
            toml = importlib.import_module(name)
        except ImportError:
            continue
        return toml.loads(data.decode("utf-8")).get("build-system", {})
    m = re.search(rb'^\s*build-backend\s*=\s*["\']([^"\']+)["\']', data, re.M)
    return {"build-backend": m.group(1).decode()} if m else {}

def parallel_extensions():
    # kiln's helper beside this script builds a cpp_extension project's extensions at once; if it
    # cannot, the project's build runs as it would.
    try:
        with open("setup.py", encoding="utf-8", errors="replace") as f:
            if "cpp_extension" not in f.read():
                return
        import kiln_parallel_extensions
        kiln_parallel_extensions.install()
    except Exception as e:
        print("kiln: parallel extensions: off (%s)" % e, file=sys.stderr, flush=True)

def main():
    wheel_dir = sys.argv[1]
    parallel_extensions()
    bs = build_system()
    spec = bs.get("build-backend", "setuptools.build_meta:__legacy__")
    sys.path[:0] = [os.path.abspath(p) for p in bs.get("backend-path", [])]
    module, _, attr = spec.partition(":")
    try:
        backend = importlib.import_module(module)
    except ImportError as e:
        sys.exit("kiln: cannot import the build backend %r (%s): install it into this interpreter "
                 "(builds run without isolation)" % (spec, e))
    for part in filter(None, attr.split(".")):
        backend = getattr(backend, part)
    os.makedirs(wheel_dir, exist_ok=True)
    name = backend.build_wheel(os.path.abspath(wheel_dir))
    print("KILN-WHEEL " + name, flush=True)

main()
)PY";
  return kScript;
}

std::string_view parallel_extensions_helper() { return data::file("parallel_extensions.py").value_or(""); }

std::optional<std::string> built_wheel_name(std::string_view line) {
  constexpr std::string_view kTag = "KILN-WHEEL ";
  if (line.substr(0, kTag.size()) != kTag) return std::nullopt;
  std::string name(line.substr(kTag.size()));
  while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
  // A file name in the wheel folder, nothing else: the install step joins it to that folder.
  if (name.size() < 5 || name.find('/') != std::string::npos || !name.ends_with(".whl")) return std::nullopt;
  return name;
}

std::vector<std::string> wheel_unpack_argv(const std::string& python, const std::string& wheel,
                                           const std::string& dest) {
  static constexpr const char* kUnpack =
      "import shutil, sys, zipfile\n"
      "shutil.rmtree(sys.argv[2], ignore_errors=True)\n"
      "with zipfile.ZipFile(sys.argv[1]) as z:\n"
      "    for n in z.namelist():\n"
      "        if '.so' in n.rsplit('/', 1)[-1]:\n"
      "            z.extract(n, sys.argv[2])\n";
  return {python, "-c", kUnpack, wheel, dest};
}

}  // namespace kiln::drive
