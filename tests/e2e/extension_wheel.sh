#!/usr/bin/env bash
# A torch extension's build as kiln runs it (run/wheel_build): the project's own PEP 517 backend
# (here an in-tree one, found through backend-path, so no torch or wheel package is needed) runs
# once and builds the wheel into BUILD/wheel, pip installs that file into the interpreter given with
# --python (a venv), and a second build replaces the installed copy. The backend compiles through
# $CXX, which kiln points at its launcher. A fresh copy with the same inputs installs the wheel kept
# in kiln's wheel cache (the backend does not run); with --no-wheel-cache the backend runs and its
# compile hits ccache; a changed source or compiler flag is a miss.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
export PATH=/usr/local/cuda/bin:$PATH
need python3 nvcc c++ ccache
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv" >/dev/null 2>&1 || skip "python3 -m venv does not work here"
py=$work/venv/bin/python

mkdir -p "$work/proj/backend"
# What makes it a torch extension to kiln; the backend below never runs it.
printf 'from torch.utils.cpp_extension import CppExtension, BuildExtension\n' > "$work/proj/setup.py"
cat > "$work/proj/pyproject.toml" <<'TOML'
[build-system]
requires = []
build-backend = "demo_backend"
backend-path = ["backend"]
TOML
echo 'extern "C" int demo_answer() { return 42; }' > "$work/proj/ext.cpp"
cat > "$work/proj/backend/demo_backend.py" <<'PY'
import base64, hashlib, os, subprocess, zipfile

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(os.environ["DEMO_CALLS"], "a") as f:
        f.write("build_wheel\n")
    os.makedirs("build/temp", exist_ok=True)
    os.makedirs("build/lib/wheeldemo", exist_ok=True)
    cxx = os.environ.get("CXX", "c++")
    subprocess.check_call([cxx, "-fPIC", "-O2", "-c", os.path.abspath("ext.cpp"), "-o", "build/temp/ext.o"])
    subprocess.check_call([cxx, "-shared", "build/temp/ext.o", "-o", "build/lib/wheeldemo/_C.so"])
    files = {
        "wheeldemo/__init__.py": b"import ctypes, os\nlib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), '_C.so'))\n",
        "wheeldemo/_C.so": open("build/lib/wheeldemo/_C.so", "rb").read(),
        "wheeldemo-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: wheeldemo\nVersion: 0.1\n",
        "wheeldemo-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: kiln-e2e\nRoot-Is-Purelib: false\nTag: py3-none-any\n",
    }
    record = ""
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (path, digest, len(data))
    record += "wheeldemo-0.1.dist-info/RECORD,,\n"
    name = "wheeldemo-0.1-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
        z.writestr("wheeldemo-0.1.dist-info/RECORD", record)
    return name
PY

export DEMO_CALLS=$work/calls CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg
one() {  # copy build-dir
  cp -r "$work/proj" "$work/$1"
  (cd "$work/$1" && "$kiln" build . --python "$py" --gpu h100 --build-dir "$work/$2" 2>&1)
}
out=$(one a ba); rc=$?
echo "$out" | tail -8
[ $rc -eq 0 ] || { tail -30 "$work/ba/kiln-build.log"; fail "first build exited $rc"; }
echo "$out" | grep -q "^command   $py $work/ba/.kiln/wheel_build.py $work/ba/wheel" || fail "plan does not show the backend command"
echo "$out" | grep -q "^install   $py -m pip install --no-deps --no-index --no-build-isolation --force-reinstall $work/ba/wheel/\*.whl" \
  || fail "plan does not show the install command"
[ "$(wc -l < "$work/calls")" -eq 1 ] || fail "the backend ran $(wc -l < "$work/calls") times, want once"
[ -f "$work/ba/wheel/wheeldemo-0.1-py3-none-any.whl" ] || fail "no wheel in the build folder"
grep -q "^KILN-WHEEL wheeldemo-0.1-py3-none-any.whl" "$work/ba/kiln-build.log" || fail "log lacks the backend's wheel line"
(cd / && "$py" -c "import wheeldemo; assert wheeldemo.lib.demo_answer() == 42") || fail "the installed module does not load"
grep -q '"output":"build/temp/ext.o"\|ext.o"' "$work/ba/kiln-exec.jsonl" || fail "the compile did not go through kiln's launcher"

grep -q "^kiln: wheel cache: kept as [0-9a-f]\{32\} in $work/xdg/kiln/wheels" "$work/ba/kiln-build.log" || fail "the wheel was not kept"
calls() { wc -l < "$work/calls"; }

# A fresh copy, same inputs: the kept wheel is installed, the backend does not run, the checks read
# the libraries out of the wheel.
out=$(one b bb); rc=$?
echo "$out" | head -3
[ $rc -eq 0 ] || { tail -30 "$work/bb/kiln-build.log"; fail "second build exited $rc"; }
[ "$(calls)" -eq 1 ] || fail "the backend ran on a wheel-cache hit"
echo "$out" | grep -q "^installed $work/b in .*: its wheel was built before from the same inputs (kiln's wheel cache" || fail "no hit line"
grep -q "Successfully installed wheeldemo-0.1" "$work/bb/kiln-build.log" || fail "pip did not replace the installed copy"
echo "$out" | grep -q "^  $work/bb/wheel/contents/wheeldemo/_C.so" || fail "the checks did not read the kept wheel's library"
(cd / && "$py" -c "import wheeldemo; assert wheeldemo.lib.demo_answer() == 42") || fail "the module from the kept wheel does not load"
# kiln report on what that build printed says it compiled nothing and names the kept wheel's key.
r=$("$kiln" report "$work/bb" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "kiln report after a wheel-cache hit exited $rc, want 1: $r"
echo "$r" | grep -q "the last build compiled nothing: it installed a wheel kept by an earlier build from the same inputs (hit [0-9a-f]\{32\}" \
  || fail "kiln report does not say the build was installed from the wheel cache: $r"

# --no-wheel-cache: the backend runs, and its compile is a ccache hit.
out=$(cp -r "$work/proj" "$work/c" && cd "$work/c" && "$kiln" build . --python "$py" --gpu h100 --no-wheel-cache --build-dir "$work/bc" 2>&1); rc=$?
[ $rc -eq 0 ] || { tail -30 "$work/bc/kiln-build.log"; fail "--no-wheel-cache build exited $rc"; }
[ "$(calls)" -eq 2 ] || fail "--no-wheel-cache did not run the backend"
echo "$out" | grep -q "^ccache    1 hits, 0 misses" || fail "fresh copy did not hit ccache: $(echo "$out" | grep ccache)"

# Changed inputs miss: a source file, then a compiler flag from the environment.
cp -r "$work/proj" "$work/d" && echo 'extern "C" int demo_other() { return 7; }' >> "$work/d/ext.cpp"
(cd "$work/d" && "$kiln" build . --python "$py" --gpu h100 --build-dir "$work/bd" >/dev/null 2>&1) || fail "changed-source build failed"
[ "$(calls)" -eq 3 ] || fail "a changed source file hit the wheel cache"
(cd "$work/d" && CXXFLAGS=-DDEMO=1 "$kiln" build . --python "$py" --gpu h100 --build-dir "$work/bd" >/dev/null 2>&1) || fail "CXXFLAGS build failed"
[ "$(calls)" -eq 4 ] || fail "a changed CXXFLAGS hit the wheel cache"

# A backend that fails: the build fails at the build step, and no stale wheel is installed.
cp -r "$work/proj" "$work/e"
printf 'def build_wheel(*a, **k):\n    raise SystemExit("demo backend: broken on purpose")\n' > "$work/e/backend/demo_backend.py"
out=$(cd "$work/e" && "$kiln" build . --python "$py" --gpu h100 --build-dir "$work/bb" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "broken backend exited $rc, want 1"
[ ! -e "$work/bb/wheel/wheeldemo-0.1-py3-none-any.whl" ] || fail "the old wheel was left in place"
grep -q "broken on purpose" "$work/bb/kiln-build.log" || fail "the backend's error is not in the log"
echo "ok"
