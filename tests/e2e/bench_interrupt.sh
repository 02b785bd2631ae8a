#!/usr/bin/env bash
# SIGINT of `kiln bench` stops the running row's build tree and starts no other row (issue 23: kiln
# bench died on SIGINT and left kiln exec, ccache, nvcc and cicc running).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
work=$(mktemp -d)
marker="kiln-bench-int-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cat > "$work/slowcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in *unit.cpp) bash -c "exec -a $marker sleep 60" & exec -a $marker sleep 60;; esac; done
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f() { return 1; }' > "$work/p/unit.cpp"
"$kiln" bench "$work/p" --matrix cache=off --matrix jobs=1,2 --bench-dir "$work/bench" -D CMAKE_CXX_COMPILER="$work/slowcc" \
  > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 120); do [ "$(pgrep -c -f "^$marker")" -ge 2 ] && break; sleep 0.5; done
[ "$(pgrep -c -f "^$marker")" -ge 2 ] || { cat "$work/err"; fail "the slow compile never started"; }
kill -INT "$pid"
set +e; timeout 30 tail --pid="$pid" -f /dev/null; wait "$pid"; rc=$?; set -e
echo "kiln bench exited $rc after SIGINT"
[ "$rc" -eq 130 ] || { cat "$work/err"; fail "exit $rc, not 130"; }
if pgrep -f "^$marker" > /dev/null; then fail "compiles outlived kiln bench"; fi
grep -q "kiln bench: stopped by SIGINT after 1 of 2 runs; nothing of it still runs" "$work/err" || { cat "$work/err"; fail "not said"; }
[ "$(grep -c 'kiln bench: \[' "$work/err")" -eq 1 ] || { cat "$work/err"; fail "a second row started"; }
echo "SIGINT of kiln bench: the row's tree stopped, no other row started"
