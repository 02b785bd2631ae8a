#!/usr/bin/env bash
# kill -9 of `kiln build` (or the OOM killer choosing it) must not leave its compiles running, and
# the build folder's lock must not be free while anything of that build still runs (issue 23: the
# compiles went on for 22 s and a second build had already started Ninja in the same folder).
# Ninja runs in its own process group, so no terminal signal reaches it: a guard process per step
# kills the step's tree when kiln dies, holding the build lock until that tree is gone.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja flock
work=$(mktemp -d)
marker="kiln-sigkill-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cat > "$work/slowcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in *unit_*.cpp) bash -c "exec -a $marker sleep 60" & exec -a $marker sleep 60;; esac; done
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit_1.cpp unit_2.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f1() { return 1; }' > "$work/p/unit_1.cpp"; echo 'int f2() { return 2; }' > "$work/p/unit_2.cpp"
b=$work/b
"$kiln" build "$work/p" --no-ccache --no-governor -j 2 --build-dir "$b" -D CMAKE_CXX_COMPILER="$work/slowcc" \
  > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 120); do [ "$(pgrep -c -f "^$marker")" -ge 2 ] && break; sleep 0.5; done
[ "$(pgrep -c -f "^$marker")" -ge 2 ] || { cat "$work/err"; fail "the slow compiles never started"; }
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
start=$(date +%s%N)
# Until the tree is gone: whenever the lock can be taken, nothing of the build may run.
for _ in $(seq 1 100); do
  running=$(pgrep -c -f "^$marker" || true)
  if flock -n "$b/.kiln/lock" true; then
    [ "$running" -eq 0 ] || fail "the build lock was free while $running compiles of the killed build ran"
  fi
  [ "$running" -eq 0 ] && break
  sleep 0.1
done
took=$(( ($(date +%s%N) - start) / 1000000 ))
if pgrep -f "^$marker" > /dev/null; then fail "compiles outlived kill -9 of kiln build by 10 s"; fi
echo "kill -9 of kiln build: its compiles were gone ${took} ms later"
[ "$took" -le 5000 ] || fail "took ${took} ms"
# And the folder is free again for the next build, once the guard has seen the tree dead (it polls
# every 100 ms, for 5 s at most).
free=""
for _ in $(seq 1 60); do flock -n "$b/.kiln/lock" true && { free=1; break; }; sleep 0.1; done
[ -n "$free" ] || fail "the build lock is still held 6 s after nothing of the build runs"
echo "the build folder is free once nothing of the killed build runs"
