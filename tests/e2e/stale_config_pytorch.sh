#!/usr/bin/env bash
# The PyTorch path: a stand-in checkout whose setup.py behaves like PyTorch's (tools/setup_helpers/
# cmake.py: CMake runs only when build/CMakeCache.txt or build.ninja is missing; the environment's
# USE_*/BUILD_*/CMAKE_* become -D values). A changed USE_* after the first build must reach the
# next one: through CMAKE_FRESH=1 where setup.py reads it, else by removing the cache.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
need cmake ninja c++ python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

make_checkout() {  # $1 folder, $2 "fresh" when setup.py reads CMAKE_FRESH
  local P=$1
  mkdir -p "$P/torchgen"
  cat > "$P/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(standin CXX)
include(CMakeDependentOption)
option(USE_CUDA "Use CUDA" ON)
option(USE_DISTRIBUTED "Use distributed" ON)
cmake_dependent_option(USE_GLOO "Use Gloo" ON "USE_DISTRIBUTED" OFF)
add_executable(probe probe.cpp)
target_compile_definitions(probe PRIVATE DIST=$<BOOL:${USE_DISTRIBUTED}> GLOO=$<BOOL:${USE_GLOO}>)
CM
  echo '#include <cstdio>
int main() { std::printf("distributed=%d gloo=%d\n", DIST, GLOO); }' > "$P/probe.cpp"
  local fresh='RERUN = False'
  [ "$2" = fresh ] && fresh='RERUN = os.environ.pop("CMAKE_FRESH", "0").upper() in ("1", "ON", "TRUE", "YES")'
  cat > "$P/setup.py" <<PY
# Stand-in for PyTorch's setup.py develop: configure once, then only build.
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
build = os.path.join(here, "build")
$fresh
RERUN = RERUN or "--cmake" in sys.argv
cache = os.path.join(build, "CMakeCache.txt")
if RERUN and os.path.isfile(cache):
    os.remove(cache)
os.makedirs(build, exist_ok=True)
if not (os.path.exists(cache) and os.path.exists(os.path.join(build, "build.ninja"))):
    args = ["cmake", "-GNinja", here]
    for k, v in sorted(os.environ.items()):
        if k.startswith(("BUILD_", "USE_", "CMAKE_")) and k != "CMAKE_GENERATOR":
            args.append("-D%s=%s" % (k, v))
    subprocess.check_call(args, cwd=build)
subprocess.check_call(["cmake", "--build", ".", "--", "-j", os.environ.get("MAX_JOBS", "2")], cwd=build)
PY
}

for variant in fresh remove; do
  P=$T/$variant
  make_checkout "$P" $variant
  build() { "$KILN" build "$P" --no-ccache --no-governor --set USE_CUDA=0 "$@" > "$T/out" 2>&1 || fail "$variant: kiln build $*: $(tail -20 "$T/out")"; }
  build --set USE_DISTRIBUTED=1
  [ "$("$P/build/probe")" = "distributed=1 gloo=1" ] || fail "$variant first: $("$P/build/probe")"
  # The control: setup.py alone does not take the change.
  (cd "$P" && USE_CUDA=0 USE_DISTRIBUTED=0 python3 setup.py develop > /dev/null) || fail "$variant: control build"
  [ "$("$P/build/probe")" = "distributed=1 gloo=1" ] || fail "$variant: the stand-in did not keep its stale cache"
  build --set USE_DISTRIBUTED=0
  [ "$("$P/build/probe")" = "distributed=0 gloo=0" ] || fail "$variant: the change was not taken: $("$P/build/probe")"
  grep -Eq "USE_DISTRIBUTED is (ON|1) in .*CMakeCache.txt, planned OFF" "$T/out" || fail "$variant: kiln did not say what differs: $(cat "$T/out")"
  if [ $variant = fresh ]; then grep -q "CMAKE_FRESH=1" "$T/out" || fail "fresh: not through CMAKE_FRESH"; fi
  if [ $variant = remove ]; then grep -q "kiln removes .*CMakeCache.txt" "$T/out" || fail "remove: kiln did not say it removes the cache"; fi
  build --set USE_DISTRIBUTED=0
  grep -q "^config" "$T/out" && fail "$variant: an unchanged plan was reported stale: $(grep ^config "$T/out")"
done
echo ok
