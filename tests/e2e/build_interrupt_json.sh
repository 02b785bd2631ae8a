#!/usr/bin/env bash
# `kiln build --json` prints a result on every exit (issue 23: an interrupted build printed
# nothing): SIGTERM during the compile gives a kiln.build object whose outcome names the signal.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja python3
work=$(mktemp -d)
marker="kiln-interrupt-json-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cat > "$work/slowcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in *unit.cpp) exec -a $marker sleep 60;; esac; done
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f() { return 1; }' > "$work/p/unit.cpp"
"$kiln" build "$work/p" --json --no-ccache --no-governor --build-dir "$work/b" -D CMAKE_CXX_COMPILER="$work/slowcc" \
  > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 120); do pgrep -f "^$marker" > /dev/null && break; sleep 0.5; done
pgrep -f "^$marker" > /dev/null || { cat "$work/err"; fail "the slow compile never started"; }
kill -TERM "$pid"
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" -eq 143 ] || { cat "$work/err"; fail "exit $rc, not 143"; }
python3 - "$work/out" <<'PY' || fail "no JSON result: $(cat "$work/out")"
import json, sys
j = json.load(open(sys.argv[1]))
o = j["outcome"]
assert j["schema"].startswith("kiln.build/"), j["schema"]
assert o["ok"] is False and o["failed_step"] == "interrupted", o
assert o["interrupted"]["signal"] == "SIGTERM" and o["interrupted"]["clean"] is True, o
print("interrupted --json:", json.dumps(o["interrupted"]))
PY
