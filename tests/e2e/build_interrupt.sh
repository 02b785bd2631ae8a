#!/usr/bin/env bash
# SIGINT (Ctrl-C), SIGTERM (CI cancel, `timeout`, `docker stop`) and SIGHUP (a closed terminal)
# during kiln build stop the whole build tree (ninja and the compilers under it), record it in the
# build log, say where the log is, and exit 128 + signal only once no compile is left. A compile
# that ignores the signal still goes: its launcher (`kiln exec`) dies and takes its tree with it,
# and kiln SIGKILLs whatever still runs under it after a grace period.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
work=$(mktemp -d)
marker="kiln-interrupt-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# A "compiler" that takes a minute per unit, so the build is surely running when interrupted.
# unit_2 runs under a shell that ignores the stop signals, as a stuck tool would.
cat > "$work/slowcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in
  *unit_1.cpp) exec -a $marker sleep 60;;
  *unit_2.cpp) [ -e "$work/stubborn" ] && trap '' INT TERM HUP; bash -c "exec -a $marker sleep 60" & wait; exit 1;;
esac; done
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit_1.cpp unit_2.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f1() { return 1; }' > "$work/p/unit_1.cpp"; echo 'int f2() { return 2; }' > "$work/p/unit_2.cpp"

run_case() {  # signal, expected exit, stubborn?
  local sig=$1 want=$2 stubborn=$3 b="$work/b-$1-$3"
  rm -f "$work/stubborn"; [ -z "$stubborn" ] || touch "$work/stubborn"
  "$kiln" build "$work/p" --no-ccache -j 2 --build-dir "$b" -D CMAKE_CXX_COMPILER="$work/slowcc" \
    > "$work/out" 2> "$work/err" &
  local pid=$!
  for _ in $(seq 1 120); do [ "$(pgrep -c -f "^$marker")" -ge 2 ] && break; sleep 0.5; done
  [ "$(pgrep -c -f "^$marker")" -ge 2 ] || { echo "the slow compiles never started"; cat "$work/err"; exit 1; }
  kill -"$sig" "$pid"
  set +e; wait "$pid"; local rc=$?; set -e
  echo "SIG$sig${stubborn:+ (a compile ignores it)}: kiln build exited $rc"
  [ "$rc" -eq "$want" ] || { cat "$work/err"; exit 1; }
  grep -q "stopped by SIG$sig; stopped the build. Full log: $b/kiln-build.log" "$work/err" || { cat "$work/err"; exit 1; }
  grep -q "kiln: build stopped by SIG$sig .*nothing of the build still runs" "$b/kiln-build.log" || { tail -5 "$b/kiln-build.log"; exit 1; }
  # kiln exited only when nothing of its build ran: no grace period here.
  if pgrep -f "^$marker" > /dev/null; then echo "a compile outlived kiln (SIG$sig)"; exit 1; fi
}
run_case INT 130 ""
run_case TERM 143 ""
run_case HUP 129 ""
run_case TERM 143 1
echo "the build tree stopped with kiln"
