#!/bin/bash
# kiln inspect vs reading the file once from the page cache, side by side in one run.
# usage: bench/inspect_bench.sh [KILN] [FILE]   (defaults: build/kiln, libcublasLt.so.13)
# With hyperfine (apt-get install hyperfine) it reports means and spreads; without, it repeats
# each command RUNS times and prints the best and the median wall time.
set -eu
KILN=${1:-build/kiln}
FILE=${2:-/usr/local/cuda/lib64/libcublasLt.so.13}
RUNS=${RUNS:-20}
[ -x "$KILN" ] || { echo "kiln binary not found at $KILN (build it first)" >&2; exit 2; }
[ -r "$FILE" ] || { echo "cannot read $FILE" >&2; exit 2; }
echo "file: $FILE ($(stat -c %s "$FILE") bytes); kiln: $KILN; $(nproc) cores"
cat "$FILE" > /dev/null  # warm the page cache so both commands read from memory
if command -v hyperfine > /dev/null; then
  hyperfine -N --warmup 3 --runs "$RUNS" \
    "$KILN inspect $FILE" "$KILN inspect --json $FILE" "cat $FILE" \
    --export-markdown "${BENCH_MD:-/dev/null}" 2>&1
  # -N runs without a shell, so `cat` writes to hyperfine's /dev/null.
else
  t() {  # median and best of RUNS wall times in ms
    local i s e ts=()
    for ((i = 0; i < RUNS; i++)); do
      s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); ts+=($(((e - s) / 1000)))
    done
    printf '%s\n' "${ts[@]}" | sort -n | awk -v name="$*" '{a[NR]=$1} END {printf "%-60s best %.2f ms  median %.2f ms\n", name, a[1]/1000, a[int((NR+1)/2)]/1000}'
  }
  t "$KILN" inspect "$FILE"
  t "$KILN" inspect --json "$FILE"
  t cat "$FILE"
fi
