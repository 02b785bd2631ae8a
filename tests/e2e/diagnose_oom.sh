# Out of memory, for real: the heavy CUDA file built under a 300 MiB address-space limit (the
# front end fails to allocate), and a compiler killed by SIGKILL mid-compile (what the OOM killer
# sends). kiln diagnose must put the memory failure first, ahead of ninja's summary.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
rm -rf "$WORK/b"
cmake -G Ninja -S "$PROJECT" -B "$WORK/b" -DCMAKE_CUDA_ARCHITECTURES=90 -DKILN_BREAK=heavy >"$WORK/configure.log" 2>&1 ||
  { cat "$WORK/configure.log"; fail "configure"; }
(ulimit -v 307200; ninja -C "$WORK/b" -j1 heavy) >"$WORK/build.log" 2>&1 && fail "built within 300 MiB; cannot test"
expect_root resources.compiler-out-of-memory

# SIGKILL to the compiler in the middle of a build.
ninja -C "$WORK/b" -t clean >/dev/null
ninja -C "$WORK/b" -j1 heavy >"$WORK/build.log" 2>&1 &
ninja_pid=$!
killed=""
# Only this build's own processes: the machine may be running other compilers.
descendants() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done; }
for _ in $(seq 1 600); do
  for pid in $(descendants $ninja_pid); do
    name=$(ps -o comm= -p "$pid" 2>/dev/null) || continue
    case "$name" in
      cicc|cudafe++|cc1plus|ptxas) kill -9 "$pid" 2>/dev/null && killed=$name && break 2 ;;
    esac
  done
  sleep 0.05
done
wait $ninja_pid && fail "build finished before a compiler could be killed"
[ -n "$killed" ] || skip "no compiler process caught"
echo "killed $killed"
[ -n "${KILN_KEEP_LOGS:-}" ] && cp "$WORK/build.log" "$KILN_KEEP_LOGS/diagnose_oom-killed-$killed.log"
out=$("$KILN" diagnose "$WORK/build.log"); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "exit $rc"
echo "$out" | head -1 | grep -qE "\[resources\.(killed|compiler-killed|nvcc-subprocess-killed)\]" || { cat "$WORK/build.log"; fail "kill not diagnosed"; }
echo PASS
