#!/usr/bin/env bash
# A C++ torch extension that setup.py builds only with an opt-in switch (ColossalAI's pattern,
# hpcaitech/ColossalAI 4f9953be setup.py:16,70-95: BUILD_EXT=1 or ext_modules = []), built
# CPU-only against Debian's torch in a --system-site-packages venv (issue 33):
#  1. `--profile cpu` alone (kiln leaves an opt-in off when CUDA is off in the plan; a missed switch
#     is the same): ext_modules is empty and the build compiles nothing: exit 1, naming that nothing
#     was compiled, the sources and the switch (it had said "built ... 0 compile steps", exit 0);
#  2. with the switch set as that message says: compiled, installed, the module answers;
#  3. the same inputs again: a wheel-cache hit, nothing compiled, still a success.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/torch_venv.sh"
kiln=$1
need c++ ninja
work=$(mktemp -d); [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
torch_venv "$work" --without-pip
proj=$work/gx
mkdir -p "$proj/gx"
: > "$proj/gx/__init__.py"
cat > "$proj/setup.py" <<'PY'
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

BUILD_GX = int(os.environ.get("GX_BUILD_EXT", "0")) == 1
ext_modules = []
if BUILD_GX:
    ext_modules.append(CppExtension("gx._C", ["gx/a.cpp"]))
setup(name="gx", version="0.1", packages=["gx"], ext_modules=ext_modules, cmdclass={"build_ext": BuildExtension})
PY
answer_module "$proj/gx/a.cpp" _C
export CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg
unset GX_BUILD_EXT
field() { python3 -c "import json,sys; d=json.load(open('$1')); print(eval('d' + sys.argv[1]))" "$2"; }

# 1. The switch left off: nothing compiled is a failure that says why.
"$kiln" build "$proj" --profile cpu --python "$py" > "$work/b1.txt" 2> "$work/b1.err"
rc=$?
[ "$rc" = 1 ] || fail "a build that compiled nothing exited $rc: $(cat "$work/b1.txt" "$work/b1.err")"
grep -q "failed: nothing was compiled: .* has C/C++/CUDA sources (1 file (gx/a.cpp))" "$work/b1.err" \
  || fail "the failure does not name what was not compiled: $(cat "$work/b1.err")"
grep -q "GX_BUILD_EXT was '0' (the project's default, setup.py:5).*--knob GX_BUILD_EXT=1 (kiln left it: CUDA is off" "$work/b1.err" \
  || fail "the switch is not named: $(cat "$work/b1.err")"
# Again with --no-knobs: the same inputs, so the (empty) wheel comes from kiln's wheel cache, and a
# kept wheel without the library is the same failure.
"$kiln" build "$proj" --profile cpu --python "$py" --no-knobs --json > "$work/b1.json" 2>/dev/null
[ "$(field "$work/b1.json" "['outcome']['failed_step']")" = nothing-compiled ] || fail "JSON failed_step: $(cat "$work/b1.json")"
grep -q "installed from kiln's wheel cache" "$work/b1.json" || fail "the JSON cause does not say the wheel was a cache hit"

# 2. The switch set as the message says: compiled, installed, imports.
"$kiln" build "$proj" --profile cpu --python "$py" --knob GX_BUILD_EXT=1 > "$work/b2.txt" 2> "$work/b2.err" \
  || fail "build 2: $(cat "$work/b2.err")"
grep -q "1 compile step" "$work/b2.txt" || fail "build 2 compiled nothing: $(cat "$work/b2.txt")"
[ "$(cd "$work" && "$py" -c 'import gx._C; print(gx._C.answer())')" = 42 ] || fail "the module does not answer"

# 3. The same inputs: installed from kiln's wheel cache, nothing compiled, a success.
"$kiln" build "$proj" --profile cpu --python "$py" --knob GX_BUILD_EXT=1 --json > "$work/b3.json" 2> "$work/b3.err" \
  || fail "build 3 (a wheel-cache hit) failed: $(cat "$work/b3.json" "$work/b3.err")"
[ "$(field "$work/b3.json" "['outcome']['wheel_cache']['hit']")" = True ] || fail "build 3 was not a wheel-cache hit"
echo "a build that compiled nothing fails naming GX_BUILD_EXT; with it set: compiled, then a wheel-cache hit"
