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
echo ok
