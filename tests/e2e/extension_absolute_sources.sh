#!/usr/bin/env bash
# An opt-in extension whose sources setup.py writes as absolute paths, in a pyproject project
# (include_package_data on by default). The pattern is frame_analytics cb24bf00's
# (NevermindNilas/frame_analytics setup.py: ROOT = Path(__file__).parent, sources
# str(ROOT / "frame_analytics" / "csrc" / "fa_cpu.cpp") built when FA_BUILD_EXT=1): setuptools
# 67.1+ runs setup.py with __file__ absolute, and build_py then stops with "setup script specifies
# an absolute path" (pip install . too). Written here with Path(__file__).resolve(), which is
# absolute under every setuptools, Debian's 66 included.
#  1. from a folder whose path has no "build" in it, kiln build fails as pip does, and the
#     diagnosis names the setup.py line that built the path;
#  2. from a folder under one named "builds", pip passes (build_py drops absolute paths that contain
#     its relative build folder's name): kiln passes too, and the module answers;
#  3. a setup.py-only project whose setup.py raises (state-spaces/mamba e9594ce's setup.py:28 opens
#     README.md): setuptools 63.2+ runs setup.py's text with exec, so Python prints its frame as
#     File "<string>" without the line; kiln's diagnosis names setup.py:N and the line.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
for tool in c++ ninja; do command -v $tool >/dev/null || skip "$tool not found"; done
/usr/bin/python3 -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null \
  || skip "/usr/bin/python3 has no torch, setuptools or wheel (apt-get install python3-torch python3-wheel)"
work=$(mktemp -d /tmp/kiln-abs.XXXXXX); [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
case $work in *build*) skip "the temporary folder's path contains 'build'";; esac
/usr/bin/python3 -m venv --system-site-packages --without-pip "$work/venv" 2>/dev/null \
  || skip "python3 -m venv does not work here"
py=$work/venv/bin/python
export CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg

write_project() {
  local proj=$1
  mkdir -p "$proj/ab/csrc"
  : > "$proj/ab/__init__.py"
  cat > "$proj/pyproject.toml" <<'TOML'
[build-system]
requires = ["setuptools", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "ab"
version = "0.1"

[tool.setuptools]
packages = ["ab"]

[tool.setuptools.package-data]
ab = ["csrc/*.cpp"]
TOML
  cat > "$proj/setup.py" <<'PY'
import os
from pathlib import Path
from setuptools import setup

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "ab" / "csrc"

ext_modules, cmdclass = [], {}
if os.environ.get("AB_BUILD_EXT", "").lower() in ("1", "on", "true", "yes"):
    from torch.utils.cpp_extension import BuildExtension, CppExtension
    ext_modules = [CppExtension("ab._C", [str(CSRC / "a.cpp")])]
    cmdclass = {"build_ext": BuildExtension}
setup(ext_modules=ext_modules, cmdclass=cmdclass)
PY
  answer_module "$proj/ab/csrc/a.cpp" _C
}

# 1. Fails as pip does, naming setup.py's line.
write_project "$work/p"
AB_BUILD_EXT=1 "$kiln" build "$work/p" --profile cpu --python "$py" --json > "$work/b1.json" 2> "$work/b1.err"
rc=$?
[ "$rc" = 1 ] || fail "kiln build exited $rc, expected 1: $(tail -5 "$work/b1.err")"
python3 - "$work/b1.json" "$work/p/ab/csrc/a.cpp" <<'PY' || fail "the diagnosis does not name setup.py's line: $(head -c 3000 "$work/b1.json")"
import json, sys
d = json.load(open(sys.argv[1]))["outcome"]["diagnosis"]
assert d["id"] == "python.setup-absolute-path-origin", d
assert d["cause"].startswith("setup.py:11 gave setuptools the absolute path " + sys.argv[2]), d["cause"]
assert "In setup.py:11, make the path relative" in d["fix"], d["fix"]
PY

# 2. Under a folder named "builds": pip passes, and kiln too.
write_project "$work/builds/p"
AB_BUILD_EXT=1 "$kiln" build "$work/builds/p" --profile cpu --python "$py" > "$work/b2.out" 2>&1 \
  || fail "kiln build under builds/: $(tail -20 "$work/b2.out")"
answer=$(cd "$work" && "$py" -c "import ab._C as c; print(c.answer())") || fail "the module does not import"
[ "$answer" = 42 ] || fail "answer $answer"

# 3. setup.py raises under setuptools' legacy backend (no pyproject.toml): the diagnosis names its line.
mkdir -p "$work/m/mm"
cat > "$work/m/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

with open("README.md", "r", encoding="utf-8") as fh:
    long_description = fh.read()
setup(name="mm", version="0.1", long_description=long_description,
      ext_modules=[CppExtension("mm._C", ["mm/a.cpp"])], cmdclass={"build_ext": BuildExtension})
PY
answer_module "$work/m/mm/a.cpp" _C
"$kiln" build "$work/m" --profile cpu --python "$py" --json > "$work/b3.json" 2> "$work/b3.err"
rc=$?
[ "$rc" = 1 ] || fail "kiln build of a setup.py that raises exited $rc, expected 1: $(tail -5 "$work/b3.err")"
grep -q '^  File "<string>", line 4, in <module>$' "$work/m/build-kiln/kiln-build.log" \
  || fail "setuptools did not print setup.py's frame as <string>: $(grep -A3 -B3 Traceback "$work/m/build-kiln/kiln-build.log")"
python3 - "$work/b3.json" <<'PY' || fail "the diagnosis does not name setup.py:4 and its line: $(head -c 3000 "$work/b3.json")"
import json, re, sys
d = json.load(open(sys.argv[1]))["outcome"]["diagnosis"]
line = '`with open("README.md", "r", encoding="utf-8") as fh:`'
assert d["id"] == "python.traceback", d
assert "raised at setup.py:4 (in <module>: " + line in d["cause"], d["cause"]
assert d["fix"].startswith("Open setup.py:4: its line " + line + " raised FileNotFoundError"), d["fix"]
assert not re.search(r"<string>:\d|<code>", d["cause"] + d["fix"]), d
PY
echo PASS
