#!/usr/bin/env bash
# A compile killed by kill -9 (not by the kernel's OOM killer) is not blamed on memory (issue 33:
# a compile whose recorded peak was 185 MiB of a 12.8 GiB budget got "use --jobs 1"). The compiler
# says only "Killed signal terminated program cc1plus", which reads as the OOM killer; kiln reads
# /proc/vmstat's oom_kill before and after the build and the unit's recorded peak.
set -u
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja c++ pgrep
oom_kills() { awk '$1 == "oom_kill" { print $2 }' /proc/vmstat 2>/dev/null; }
[ -n "$(oom_kills)" ] || skip "/proc/vmstat has no oom_kill (kernel before 4.13)"
work=$(mktemp -d)
trap 'pkill -KILL -f "$work/p/slow_unit" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(k LANGUAGES CXX)\nadd_library(k STATIC slow_unit.cpp)\n' \
  > "$work/p/CMakeLists.txt"
# Minutes of constant evaluation in cc1plus: it is still compiling when it is killed.
cat > "$work/p/slow_unit.cpp" <<'CPP'
// (Nested: g++ stops any one constexpr loop after 262144 iterations.)
constexpr long spin() {
  long s = 0;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j) s += (i ^ j) % 7;
  return s;
}
constexpr long value = spin();
long get() { return value; }
CPP
before=$(oom_kills)
"$kiln" build "$work/p" --profile cpu --no-ccache --build-dir "$work/b" --json > "$work/out.json" 2> "$work/err" &
pid=$!
victim=""
for _ in $(seq 1 600); do
  victim=$(pgrep -f "cc1plus.*$work/p/slow_unit.cpp" | head -1)
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] || { kill "$pid"; cat "$work/err"; fail "cc1plus never started on slow_unit.cpp"; }
sleep 1
kill -9 "$victim"
wait "$pid"; rc=$?
after=$(oom_kills)
[ "$rc" = 1 ] || fail "kiln build exited $rc, not 1: $(tail -5 "$work/err")"
grep -q "Killed signal terminated program cc1plus" "$work/b/kiln-build.log" || fail "the log lacks g++'s own words: $(tail -5 "$work/b/kiln-build.log")"
if [ "$before" != "$after" ]; then
  skip "the kernel's OOM killer killed something on this machine during the test ($before -> $after)"
fi
python3 - "$work/out.json" <<'PY' || fail "the diagnosis: $(cat "$work/out.json")"
import json, sys
d = json.load(open(sys.argv[1]))["outcome"]["diagnosis"]
assert d["id"] == "resources.killed-not-oom", d
assert "slow_unit" in d["cause"] and "its peak" in d["cause"] and "oom_kill was" in d["cause"], d["cause"]
assert "--jobs" not in d["fix"] and "MAX_JOBS" not in d["fix"], d["fix"]
print("diagnosis:", d["cause"])
PY
# The same log without kiln's counts reads as memory, as before: kiln diagnose alone has no counts.
grep -v "^kiln: killed, not out of memory" "$work/b/kiln-build.log" > "$work/plain.log"
"$kiln" diagnose "$work/plain.log" --json > "$work/plain.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); ids=[f["id"] for f in r.get("findings",[])]; assert ids and ids[0]=="resources.compiler-killed", ids' "$work/plain.json" \
  || fail "control: the plain log did not read as the OOM killer: $(head -c 600 "$work/plain.json")"
echo ok
