#!/usr/bin/env bash
# The memory governor under a real cgroup memory limit: a project whose compiles each hold a known
# amount of memory fails under plain `ninja -j 6` (the OOM killer) and builds under `kiln build
# --jobs 6`, whose launcher admits compiles by memory, with the cgroup's peak under its limit.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja python3
[ "$(id -u)" = 0 ] || skip "needs root for a cgroup"

limit=$((1200 * 1024 * 1024))
hog_mib=350
# A child cgroup of our own: v1 memory controller, else v2.
mem_line=$(grep -E '^[0-9]+:memory:' /proc/self/cgroup | head -1 | cut -d: -f3- || true)
if [ -n "$mem_line" ] && [ -d "/sys/fs/cgroup/memory$mem_line" ]; then
  cg="/sys/fs/cgroup/memory${mem_line%/}/kiln-governor-$$"
  mkdir "$cg" 2>/dev/null || skip "cannot create a v1 memory cgroup"
  echo $limit > "$cg/memory.limit_in_bytes"
  echo $limit > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null || true
  peak_file=$cg/memory.max_usage_in_bytes
  reset_peak() { echo 0 > "$cg/memory.max_usage_in_bytes"; }
elif grep -q memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  v2=$(grep '^0::' /proc/self/cgroup | cut -d: -f3-)
  cg="/sys/fs/cgroup${v2%/}/kiln-governor-$$"
  mkdir "$cg" 2>/dev/null || skip "cannot create a v2 cgroup"
  echo $limit > "$cg/memory.max"; echo 0 > "$cg/memory.swap.max" 2>/dev/null || true
  peak_file=$cg/memory.peak
  reset_peak() { echo 0 > "$cg/memory.peak" 2>/dev/null || true; }
else
  skip "no memory cgroup available"
fi
work=$(mktemp -d)
cleanup() { rm -rf "$work"; rmdir "$cg" 2>/dev/null || true; }
trap cleanup EXIT

# The "compiler": holds $hog_mib MiB for two seconds for each unit, then compiles with c++.
cat > "$work/hogcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in *unit_*.cpp) python3 -c "b = b'x' * ($hog_mib << 20); import time; time.sleep(2)" || exit 1;; esac; done
exec c++ "\$@"
SH
chmod +x "$work/hogcc"
proj=$work/proj; mkdir -p "$proj"
{ echo 'cmake_minimum_required(VERSION 3.24)'; echo 'project(hog LANGUAGES CXX)'; echo -n 'add_library(hog STATIC'; } > "$proj/CMakeLists.txt"
for i in 1 2 3 4 5 6; do echo "int f$i() { return $i; }" > "$proj/unit_$i.cpp"; echo -n " unit_$i.cpp" >> "$proj/CMakeLists.txt"; done
echo ')' >> "$proj/CMakeLists.txt"
in_cgroup() { ( echo $BASHPID > "$cg/cgroup.procs"; exec "$@" ); }

# Plain ninja -j 6: six 350 MiB compiles at once in 1200 MiB.
cmake -S "$proj" -B "$work/plain" -G Ninja -DCMAKE_CXX_COMPILER="$work/hogcc" > /dev/null
reset_peak
if in_cgroup ninja -C "$work/plain" -j 6 > "$work/plain.log" 2>&1; then
  echo "plain ninja -j 6 unexpectedly succeeded under the limit (peak $(cat $peak_file))"; exit 1
fi
echo "plain ninja -j 6 failed as expected: $(grep -c FAILED "$work/plain.log") failed steps"

# kiln build --jobs 6: the governor admits compiles within the cgroup's memory.
reset_peak
in_cgroup "$kiln" build "$proj" --no-ccache --jobs 6 --build-dir "$work/kiln" -D CMAKE_CXX_COMPILER="$work/hogcc" --json > "$work/kiln.json" 2> "$work/kiln.err" || {
  echo "kiln build failed under the limit"; cat "$work/kiln.err"; tail -20 "$work/kiln/kiln-build.log"; exit 1; }
peak=$(cat "$peak_file")
echo "kiln build --jobs 6 succeeded; cgroup peak $((peak >> 20)) MiB of $((limit >> 20)) MiB"
[ "$peak" -lt "$limit" ]
[ "$(wc -l < "$work/kiln/kiln-exec.jsonl")" -ge 6 ]
waited=$(python3 -c "import json; print(sum(json.loads(l)['waited_ms'] for l in open('$work/kiln/kiln-exec.jsonl')))")
echo "compiles waited ${waited} ms in total for memory"
[ "$waited" -gt 0 ]
