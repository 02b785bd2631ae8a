#!/usr/bin/env bash
# A setup.py with three CppExtensions, built by Debian's torch (python3-torch) with its real
# BuildExtension and Ninja. kiln builds the extensions at once (data/parallel_extensions.py): from
# kiln's launcher records, compile units of different extensions overlap in time; each extension's
# Ninja keeps its own folder, so no build.ninja is shared; the progress line counts the units of
# all extensions; kiln report on the project or on kiln's build folder profiles them together, and its --simulate
# projects the extensions' links and the build's serial time, which no .ninja_log has. The same folder built serially (KILN_PARALLEL_EXTENSIONS=0) gives byte-identical
# objects and a wheel with the same members, byte for byte. Each extension's units are ordered
# longest first by kiln's weights (checked in the Ninja file and the launcher's records). A project
# that sets build_ext's parallel from its own switch gets it set to 1 by kiln's plan, and its
# extensions are still built at once. A compile error in one extension stops
# the build with that error and names the extension.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need c++ ninja
. "$(dirname "$0")/lib/torch_venv.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
torch_venv "$work"
export XDG_CACHE_HOME=$work/xdg CCACHE_DIR=$work/ccache

p=$work/proj
mkdir -p "$p/multiext" && touch "$p/multiext/__init__.py"
for e in alpha beta gamma; do
  mkdir -p "$p/src/$e"
  for u in 1 2; do
    cat > "$p/src/$e/u$u.cpp" <<CPP
// Some template work, so that a unit takes a moment and the extensions' units can overlap.
#include <map>
#include <sstream>
#include <string>
int ${e}_unit$u(const char* s) {
  std::map<std::string, int> m;
  std::ostringstream o;
  o << s << $u;
  m[o.str()] = $u;
  return m.begin()->second;
}
CPP
  done
  cat > "$p/src/$e/mod.cpp" <<CPP
#include <Python.h>
int ${e}_unit1(const char*);
int ${e}_unit2(const char*);
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(${e}_unit1("x") + ${e}_unit2("y")); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "$e", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_$e() { return PyModule_Create(&module); }
CPP
done
# alpha's last source is its largest file, but its first includes a larger project header: kiln
# weighs a unit with its headers (launch/unit_weight, as its thread grants do), so u1 goes first in
# alpha's Ninja file; by source bytes alone u2 would.
# (Code, not comments: kiln's estimate leaves comments out.)
for i in $(seq 1 60); do echo "static const int alpha_u2_pad_$i = $i;  // the largest source file of its extension"; done >> "$p/src/alpha/u2.cpp"
for i in $(seq 1 200); do echo "static const int alpha_heavy_$i = $i;  // a project header that makes u1 the heaviest unit"; done > "$p/src/alpha/heavy.h"
sed -i '1i #include "heavy.h"' "$p/src/alpha/u1.cpp"
cat > "$p/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

exts = [CppExtension("multiext." + e, ["src/%s/mod.cpp" % e, "src/%s/u1.cpp" % e, "src/%s/u2.cpp" % e])
        for e in ("alpha", "beta", "gamma")]
setup(name="multiext", version="0.1", packages=["multiext"], ext_modules=exts, cmdclass={"build_ext": BuildExtension})
PY

build() {  # [env...]: a clean build of $p without ccache or the wheel cache, so every unit compiles
  rm -rf "$p/build" "$p/build-kiln" "$p"/multiext.egg-info
  (cd "$p" && env "$@" "$kiln" build . --python "$py" --no-ccache --no-wheel-cache 2>&1)
}
overlapping() {  # from kiln's launcher records: all 9 units compiled, two of different extensions at once
  "$py" - "$p/build-kiln/kiln-exec.jsonl" <<'PY'
import json, re, sys
units = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = re.search(r"/src/(\w+)/", r["source"])
    if m:
        units.append((m.group(1), r["start_ms"], r["start_ms"] + r["wall_ms"]))
assert len(units) == 9, units
overlaps = [(a, b) for a in units for b in units if a[0] < b[0] and a[1] < b[2] and b[1] < a[2]]
print("units of different extensions overlapping:", len(overlaps))
sys.exit(0 if overlaps else 1)
PY
}
keep() {  # DEST: the objects, the libraries and the wheel of the last build
  mkdir -p "$1" && (cd "$p/build-kiln/setuptools" && find . -name '*.o' -o -name '*.so' | xargs -I{} cp --parents {} "$1/")
  cp "$p"/build-kiln/wheel/*.whl "$1/"
}

out=$(build KILN_PARALLEL_EXTENSIONS=1); rc=$?
echo "$out" | tail -5
[ $rc -eq 0 ] || { tail -40 "$p/build-kiln/kiln-build.log"; fail "parallel build exited $rc"; }
log=$p/build-kiln/kiln-build.log
grep -q "^KILN-EXTENSIONS multiext.alpha multiext.beta multiext.gamma" "$log" || fail "the extensions were not built at once"
for e in alpha beta gamma; do
  ls "$p"/build-kiln/setuptools/temp.*/kiln-ninja/multiext.$e/build.ninja >/dev/null 2>&1 || fail "no Ninja folder of its own for $e"
done
ls "$p"/build-kiln/setuptools/temp.*/build.ninja >/dev/null 2>&1 && fail "a build.ninja shared by the extensions was written"
# The build's unit plan (for kiln exec's thread grants): every unit listed, each marked done.
plan=$(ls "$p"/build-kiln/setuptools/temp.*/kiln-units.plan) || fail "no unit plan was written"
[ "$(grep -c '^unit' "$plan")" = 9 ] && [ "$(grep -c '^done' "$plan")" = 9 ] \
  || fail "the unit plan does not list and close the 9 units: $(cat "$plan")"
echo "$out" | grep -q "9/9 .*(3/3 extensions)" || fail "the progress line does not count the units of all extensions"
(cd / && "$py" -c "
import multiext.alpha as a, multiext.beta as b, multiext.gamma as g
assert a.answer() == b.answer() == g.answer() == 3") || fail "the built modules do not import"
overlapping || fail "no two units of different extensions overlapped in time"
grep -q "multiext.alpha: units longest first (kiln's weights, estimate): u1.o=" "$log" \
  || fail "the order kiln gave alpha's units is not in the log: $(grep 'longest first' "$log")"
grep -m1 "^build " "$p"/build-kiln/setuptools/temp.*/kiln-ninja/multiext.alpha/build.ninja | grep -q "src/alpha/u1.cpp$" \
  || fail "alpha's heaviest unit (with its header) is not first in its Ninja file"
"$py" - "$p/build-kiln/kiln-exec.jsonl" <<'PY' || fail "alpha's heaviest unit did not launch among the first"
import json, sys
starts = sorted((r["start_ms"], r["source"]) for r in map(json.loads, open(sys.argv[1])) if "/src/alpha/" in r["source"])
sys.exit(0 if any(s.endswith("/u1.cpp") for _, s in starts[:2]) else 1)
PY
# kiln report on what kiln build printed (the project, kiln's build folder) profiles all extensions.
for d in "$p/build-kiln" "$p"; do
  r=$("$kiln" report "$d" 2>&1) || fail "kiln report $d failed: $r"
  echo "$r" | grep -q "9 jobs" || fail "kiln report $d did not profile the 9 units: $r"
  echo "$r" | grep -q "3 Ninja folders of one build" || fail "kiln report $d did not join the extensions' Ninja logs"
done
# --simulate projects what the build did outside Ninja too (issue 35): the three links setuptools
# ran (kiln-exec.jsonl has them, no .ninja_log does) and the serial time before the first compile
# and after the last, from kiln build's record of the build step.
[ -s "$p/build-kiln/.kiln/compile-span.json" ] || fail "kiln build kept no .kiln/compile-span.json"
"$kiln" report "$p/build-kiln" --simulate 1x2x8G --json > "$work/sim.json" || fail "kiln report --simulate failed"
"$py" - "$work/sim.json" <<'PY' || fail "the projection does not include the links and the serial time: $(cat "$work/sim.json")"
import json, sys
s = json.load(open(sys.argv[1]))["simulate"][0]
assert s["links"] == 3 and s["links_s"] > 0 and s["serial_s"] > 0 and s["left_out"] == [], s
assert s["wall_s"] >= s["serial_s"] + s["links_s"] / 3, s
PY
keep "$work/parallel"

# One pool for the build (issue 35: pytorch_scatter's 7 units ran at once on 2 cores): each
# extension's Ninja runs at -j 2 (MAX_JOBS), and still no more than the plan's 2 jobs compile at
# once across the three Ninjas, from kiln exec's records, while units of different extensions
# still overlap. Before the pool, the three Ninjas ran up to 6 at once.
out=$(build KILN_PARALLEL_EXTENSIONS=1 KILN_JOBS=2); rc=$?
[ $rc -eq 0 ] || { tail -40 "$log"; fail "the build with --jobs 2 exited $rc"; }
grep -q "^KILN-EXTENSIONS multiext.alpha multiext.beta multiext.gamma" "$log" || fail "with --jobs 2 the extensions were not built at once"
"$py" - "$p/build-kiln/kiln-exec.jsonl" <<'PY' || fail "more compiles ran at once than the plan's 2 jobs"
import json, re, sys
events = []
for r in map(json.loads, open(sys.argv[1])):
    if re.search(r"/src/\w+/", r["source"]):
        events += [(r["start_ms"], 1), (r["start_ms"] + r["wall_ms"], -1)]
most = now = 0
for _, d in sorted(events):  # an end before a start at the same millisecond
    now += d
    most = max(most, now)
print("compiles at once, at most:", most, "of", len(events) // 2)
sys.exit(0 if len(events) == 18 and most <= 2 else 1)
PY
overlapping || fail "with --jobs 2 no two units of different extensions overlapped in time"

out=$(build KILN_PARALLEL_EXTENSIONS=0); rc=$?
[ $rc -eq 0 ] || { tail -40 "$log"; fail "serial build exited $rc"; }
grep -q "^KILN-EXTENSIONS" "$log" && fail "KILN_PARALLEL_EXTENSIONS=0 still built the extensions at once"
keep "$work/serial"
# build-kiln (and its history) was removed: what the launcher expected of each unit came from the
# user's cache, keyed by the unit's place in the project and its source (a fresh clone reads it too).
"$py" - "$p/build-kiln/kiln-exec.jsonl" <<'PY' || fail "the second build did not use what the first learned"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
learned = [r for r in recs if r["source"].endswith(".cpp") and r["expected_kib"] != 2097152]
print("units whose expected peak was learned:", len(learned), "of", len(recs))
sys.exit(0 if learned else 1)
PY
n=0
for f in $(cd "$work/serial" && find . -name '*.o' -o -name '*.so'); do
  cmp -s "$work/serial/$f" "$work/parallel/$f" || fail "$f differs between the serial and the parallel build"
  n=$((n + 1))
done
[ $n -eq 12 ] || fail "compared $n objects and libraries, want 12"
"$py" - "$work"/serial/*.whl "$work"/parallel/*.whl <<'PY' || fail "the wheels differ"
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:3])
assert sorted(a.namelist()) == sorted(b.namelist()), (a.namelist(), b.namelist())
for n in a.namelist():
    assert a.read(n) == b.read(n), n
print("wheel members equal:", len(a.namelist()))
PY

# A project that hands its own switch to build_ext's parallel, in finalize_options of a
# BuildExtension subclass (written for kiln after NVIDIA/apex 6424da3b setup.py:855-877,
# APEX_PARALLEL_BUILD, and thu-ml/SageAttention d1a57a54 setup.py:227-249, EXT_PARALLEL). kiln's plan
# sets it to 1 (extension-parallel), which setuptools builds one extension after another: kiln's
# helper still builds them side by side (before, it left a parallel of 1 to setuptools, and apex's
# 11 extensions compiled one after another).
cp "$p/setup.py" "$work/setup.plain.py"
cat > "$p/setup.py" <<'PY'
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

at_once = None
if "MULTIEXT_PARALLEL_BUILD" in os.environ:
    at_once = int(os.environ["MULTIEXT_PARALLEL_BUILD"])


class BuildAtOnce(BuildExtension):
    def finalize_options(self):
        if at_once is not None:
            self.parallel = at_once
        super().finalize_options()


exts = [CppExtension("multiext." + e, ["src/%s/mod.cpp" % e, "src/%s/u1.cpp" % e, "src/%s/u2.cpp" % e])
        for e in ("alpha", "beta", "gamma")]
setup(name="multiext", version="0.1", packages=["multiext"], ext_modules=exts, cmdclass={"build_ext": BuildAtOnce})
PY
env=$(cd "$p" && "$kiln" plan . --python "$py" --emit env 2>&1) || fail "kiln plan failed: $env"
echo "$env" | grep -qx "MULTIEXT_PARALLEL_BUILD='1'" || fail "kiln plan does not set the parallel switch to 1: $env"
out=$(build); rc=$?
[ $rc -eq 0 ] || { tail -40 "$log"; fail "the build with the project's parallel switch exited $rc"; }
grep -q "the project's parallel=1 builds one extension at a time: kiln builds them side by side" "$log" \
  || fail "the project's parallel=1 was not taken over: $(grep 'parallel extensions' "$log")"
grep -q "^KILN-EXTENSIONS multiext.alpha multiext.beta multiext.gamma" "$log" \
  || fail "with the project's parallel=1 the extensions were not built at once"
overlapping || fail "with the project's parallel=1 no two units of different extensions overlapped in time"
(cd / && "$py" -c "
import multiext.alpha as a, multiext.beta as b, multiext.gamma as g
assert a.answer() == b.answer() == g.answer() == 3") || fail "the modules built with the project's parallel=1 do not import"
# What setuptools builds one extension at a time (distutils' build_ext: a false parallel, or a
# ThreadPoolExecutor of that many workers; a string only when the project set it after
# finalize_options) is kiln's; more at once stays the project's.
PYTHONPATH=$2/data "$py" -c "
import os, parallel_extensions as pe
for v in (None, False, 0, 1, '1', ' 1', '0', 1.0):
    assert pe._one_at_a_time(v), v
for v in (2, '4', -1, 1.5, 'x', [1]):
    assert not pe._one_at_a_time(v), v
assert pe._one_at_a_time(True) == ((os.cpu_count() or 1) <= 1)" || fail "the parallel values taken as one at a time are wrong"
cp "$work/setup.plain.py" "$p/setup.py"

# A compile error in one extension: the build fails with that error, the others are stopped.
echo 'int broken( {' >> "$p/src/beta/u2.cpp"
out=$(build KILN_PARALLEL_EXTENSIONS=1); rc=$?
[ $rc -eq 1 ] || fail "a broken extension's build exited $rc, want 1"
grep -q "^KILN-EXTENSION-FAILED multiext.beta" "$log" || fail "the failed extension is not named"
grep -q "u2.cpp.*error" "$log" || fail "the compile error is not in the log"
echo "$out" | grep -qi "error" || fail "kiln printed no diagnosis: $out"
echo "ok"
