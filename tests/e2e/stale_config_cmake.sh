#!/usr/bin/env bash
# A CMake project kiln configures: an option changed or dropped after the first configure is taken
# by the next build (plain cmake would keep a dropped -D value in CMakeCache.txt).
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
need cmake ninja c++
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
P=$T/proj
mkdir -p "$P"
cat > "$P/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(stale CXX)
option(FEATURE "a feature switch" OFF)
add_executable(app main.cpp)
target_compile_definitions(app PRIVATE FEATURE_VALUE=$<BOOL:${FEATURE}>)
CM
cat > "$P/main.cpp" <<'CPP'
#include <cstdio>
int main() { std::printf("feature=%d\n", FEATURE_VALUE); }
CPP
build() { "$KILN" build "$P" --profile cpu --no-ccache --no-governor "$@" > "$T/out" 2>&1 || fail "kiln build $*: $(tail -20 "$T/out")"; }
build --set FEATURE=ON
[ "$("$P/build-kiln/app")" = "feature=1" ] || fail "first build: $("$P/build-kiln/app")"
# The control: cmake alone keeps the dropped value.
cmake -S "$P" -B "$P/build-kiln" > /dev/null || fail "plain cmake"
grep -q "^FEATURE:BOOL=ON" "$P/build-kiln/CMakeCache.txt" || fail "control: the cache no longer holds FEATURE=ON"
build
grep -q "FEATURE was passed by the last configure" "$T/out" || fail "kiln did not say FEATURE was dropped: $(cat "$T/out")"
[ "$("$P/build-kiln/app")" = "feature=0" ] || fail "dropped --set still built: $("$P/build-kiln/app")"
build --set FEATURE=ON
[ "$("$P/build-kiln/app")" = "feature=1" ] || fail "third build"
grep -q "FEATURE is OFF in .*CMakeCache.txt, planned ON" "$T/out" || fail "kiln did not name the changed entry: $(cat "$T/out")"
# The build folder moved: CMake itself refuses the cache (the control), kiln's doctor names it, and
# kiln build configures afresh where plain cmake stops.
# (The control runs on a copy: CMake's refusal rewrites CMAKE_CACHEFILE_DIR, and its next configure
# would go through with the moved folder's Ninja files still regenerating into the old one.)
mv "$P/build-kiln" "$T/moved"
cp -r "$T/moved" "$T/control"
cmake -S "$P" -B "$T/control" > "$T/cm" 2>&1 && fail "control: cmake took a cache made in another folder"
grep -q "is different than the directory" "$T/cm" || fail "control: cmake said $(cat "$T/cm")"
"$KILN" doctor --cmake-cache "$T/moved" --json > "$T/doc.json" 2> /dev/null
python3 - "$T/doc.json" "$P/build-kiln" <<'PY' || fail "doctor did not name the moved cache: $(cat "$T/doc.json")"
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["code"] == "cmake-cache.moved"]
assert f and f[0]["severity"] == "error" and sys.argv[2] in f[0]["cause"], f
PY
build --build-dir "$T/moved" --set FEATURE=ON
grep -q "was created in $P/build-kiln (the build folder was moved or copied)" "$T/out" || fail "kiln did not say the cache moved: $(cat "$T/out")"
[ "$("$T/moved/app")" = "feature=1" ] || fail "the moved folder's build: $("$T/moved/app")"
# Another project's build folder is refused (exit 2) and left as it was.
mkdir -p "$T/other" && cp "$P/CMakeLists.txt" "$P/main.cpp" "$T/other/"
"$KILN" build "$T/other" --profile cpu --no-ccache --build-dir "$T/moved" > "$T/out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "another project's build folder: exit $rc, $(cat "$T/out")"
grep -q "another project's build folder" "$T/out" || fail "the refusal does not say why: $(cat "$T/out")"
[ -f "$T/moved/CMakeCache.txt" ] || fail "kiln removed another project's cache"
echo ok
