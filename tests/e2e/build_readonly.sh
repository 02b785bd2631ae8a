#!/usr/bin/env bash
# A build folder on a read-only file system is named as such (issue 23: kiln said "No such file or
# directory"), and a full disk during configure is named as a full disk. Both need a small tmpfs:
# skipped (77) where this user cannot mount one.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
work=$(mktemp -d)
cleanup() { umount "$work/ro" 2>/dev/null || true; umount "$work/full" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/ro" "$work/full" "$work/p"
mount -t tmpfs -o ro,size=1m tmpfs "$work/ro" 2>/dev/null || skip "cannot mount a tmpfs here"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f() { return 1; }' > "$work/p/unit.cpp"

set +e; "$kiln" build "$work/p" --no-ccache --build-dir "$work/ro/b" > "$work/out" 2> "$work/err"; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "a build into a read-only folder succeeded"
grep -q "Read-only file system" "$work/err" || fail "the read-only folder was not named: $(cat "$work/err")"
echo "read-only build folder: $(grep -o 'cannot create.*' "$work/err" | head -1)"

# 120 KiB: enough for CMake's files, not for its test link ("final link failed: No space left on device").
mount -t tmpfs -o size=120k tmpfs "$work/full"
set +e; "$kiln" build "$work/p" --no-ccache --build-dir "$work/full/b" > "$work/out" 2> "$work/err"; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "a build onto a full disk succeeded"
grep -qi "resources.no-space\|the disk filled up" "$work/err" || fail "the full disk was not named: $(tail -20 "$work/err")"
echo "full disk during configure: named"
