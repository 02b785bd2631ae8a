#!/usr/bin/env bash
# A stop during verification is honoured (issue 23: SIGTERM during verify, exit 0). The build
# itself is quick, so the signal is delivered exactly there: gdb stops kiln where verify_files
# starts and continues it with SIGTERM. Both outputs: text (exit 143) and --json (an interrupted
# kiln.build object). Skips without gdb or where it cannot trace (a container without ptrace).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja python3
need gdb
gdb -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot trace here"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(v LANGUAGES CXX)\nadd_library(v SHARED unit.cpp)\n' \
  > "$work/p/CMakeLists.txt"
echo 'int f() { return 1; }' > "$work/p/unit.cpp"
# Prints kiln's exit code; kiln's own output goes to $work/out.$1 and err.$1 (gdb's `run` takes the
# arguments and the redirections; mktemp's paths have no spaces).
under_gdb() {
  local mode=$1; shift
  gdb -batch -nx -ex 'set breakpoint pending on' -ex 'handle SIGTERM nostop noprint pass' \
    -ex 'break kiln::binary::verify_files' \
    -ex "run build $work/p --no-ccache --no-governor --build-dir $work/b.$mode $* > $work/out.$mode 2> $work/err.$mode" \
    -ex delete -ex 'signal SIGTERM' -ex 'print $_exitcode' "$kiln" 2>&1 | tail -1
}
rc=$(under_gdb text)
[ "$rc" = "\$1 = 143" ] || { cat "$work/err.text"; fail "text: kiln's exit was '$rc', not 143"; }
grep -q "stopped by SIGTERM" "$work/err.text" || fail "text: no 'stopped by SIGTERM' line"
rc=$(under_gdb json --json)
[ "$rc" = "\$1 = 143" ] || { cat "$work/err.json"; fail "--json: kiln's exit was '$rc', not 143"; }
python3 - "$work/out.json" <<'PY' || fail "--json: no interrupted result: $(cat "$work/out.json")"
import json, sys
o = json.load(open(sys.argv[1]))["outcome"]
assert o["failed_step"] == "interrupted" and o["interrupted"]["signal"] == "SIGTERM", o
PY
echo "SIGTERM during verify: exit 143, text and --json"
