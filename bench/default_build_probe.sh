#!/usr/bin/env bash
# A torch extension's own default build (`pip install --no-build-isolation .`: its archs, its
# --threads, torch's default job count), run for at most SECONDS in a fresh copy, with what it got
# done by then: nvcc's phase times per unit and arch (NVCC_APPEND_FLAGS=--time=FILE, which only
# measures), the Ninja log of finished units, and the peak memory of the whole build (the sum of
# RSS over its process tree, sampled each second).
# usage: bench/default_build_probe.sh PYTHON SRC OUT SECONDS
set -u
py=$1; src=$(readlink -f "$2"); out=$(readlink -f "$3"); secs=$4
mkdir -p "$out"
work=$(mktemp -d /tmp/kiln-default-XXXX)
cp -r "$src" "$work/src" && rm -rf "$work/src/build" && cd "$work/src"
start=$(date +%s.%N)
NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }--time=$out/default-nvcc-time.csv" \
  setsid "$py" -m pip install --no-build-isolation --no-deps -v . > "$out/default.log" 2>&1 &
pid=$!
peak=0
tree_rss() {  # KiB over the process group of the build
  ps -o rss= -g "$pid" 2>/dev/null | awk '{s += $1} END {print s + 0}'
}
while kill -0 "$pid" 2>/dev/null; do
  now=$(date +%s.%N)
  r=$(tree_rss); [ "$r" -gt "$peak" ] && peak=$r
  if awk -v a="$now" -v b="$start" -v s="$secs" 'BEGIN {exit !(a - b >= s)}'; then
    kill -TERM -- "-$pid" 2>/dev/null; sleep 2; kill -KILL -- "-$pid" 2>/dev/null
    echo "stopped at ${secs}s" >> "$out/default.log"
    break
  fi
  sleep 1
done
wait "$pid" 2>/dev/null; rc=$?
end=$(date +%s.%N)
for d in build/temp.*; do [ -f "$d/.ninja_log" ] && cp "$d/.ninja_log" "$out/default.ninja_log"; done
printf 'default pip install: rc=%s wall=%.1f s peak tree RSS=%d MiB\n' "$rc" "$(awk -v a="$end" -v b="$start" 'BEGIN {print a - b}')" $((peak / 1024)) | tee "$out/default.summary"
rm -rf "$work"
