#!/usr/bin/env bash
# SIGINT and SIGTERM while CMake configures (held in the issue-23 audit; kept tested): CMake and
# what it runs stop, kiln exits 128 + signal, nothing is left running.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
work=$(mktemp -d)
marker="kiln-configure-int-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/p"
cat > "$work/p/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.24)
project(i LANGUAGES NONE)
execute_process(COMMAND bash -c "exec -a $marker sleep 60")
CM
for sig in INT TERM; do
  "$kiln" build "$work/p" --no-ccache --build-dir "$work/b-$sig" > "$work/out" 2> "$work/err" &
  pid=$!
  for _ in $(seq 1 120); do pgrep -f "^$marker" > /dev/null && break; sleep 0.25; done
  pgrep -f "^$marker" > /dev/null || { cat "$work/err"; fail "the configure step never started"; }
  kill -"$sig" "$pid"
  set +e; wait "$pid"; rc=$?; set -e
  want=$([ "$sig" = INT ] && echo 130 || echo 143)
  echo "SIG$sig during configure: kiln build exited $rc"
  [ "$rc" -eq "$want" ] || { cat "$work/err"; fail "exit $rc, not $want"; }
  if pgrep -f "^$marker" > /dev/null; then fail "the configure step outlived kiln (SIG$sig)"; fi
done
