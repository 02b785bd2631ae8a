#!/usr/bin/env bash
# Times `kiln diagnose` on a ~1 GB build log against `grep -c error` on the same file, in one run.
#   bench/diagnose_bench.sh [KILN] [SIZE_MB]     (defaults: build/kiln, 1024)
# The log is mostly realistic noise (ninja progress, compile commands full of -Werror, CMake
# checks), with a few real failures spread through it; the file stays in the page cache, so both
# tools are measured reading from memory. Each tool runs 3 times; the best time counts.
set -euo pipefail
KILN=${1:-build/kiln}
SIZE_MB=${2:-1024}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LOG=$WORK/build.log

python3 - "$WORK/chunk.log" <<'PY'
import random, sys
random.seed(1)
out = []
for i in range(60000):
    r = random.random()
    if r < 0.35:
        out.append(f"[{i}/120000] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/cpu/Op{i}Kernel.cpp.o")
    elif r < 0.55:
        out.append(f"/usr/bin/c++ -DAT_PER_OPERATOR_HEADERS -DUSE_CUDA -I/src/aten/src -isystem /src/third_party/eigen -Wall -Wextra -Werror=return-type -Werror=non-virtual-dtor -Wno-error=deprecated-declarations -O3 -DNDEBUG -fPIC -std=gnu++17 -MD -MT op{i}.o -MF op{i}.o.d -o op{i}.o -c /src/aten/src/ATen/native/Op{i}.cpp")
    elif r < 0.70:
        out.append(f"[{i}/120000] Building CUDA object caffe2/CMakeFiles/torch_cuda.dir/__/aten/src/ATen/native/cuda/Reduce{i}.cu.o")
    elif r < 0.80:
        out.append(f"/src/aten/src/ATen/native/cuda/Reduce{i}.cu(211): warning #177-D: variable \"err\" was declared but never referenced")
    elif r < 0.90:
        out.append("-- Performing Test HAS_WERROR_FORMAT - Success")
    else:
        out.append(f"copying torch/include/ATen/ops/error_{i}.h -> build/lib.linux-x86_64-cpython-311/torch/include/ATen/ops")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
chunk_mb=$(( $(stat -c %s "$WORK/chunk.log") / 1048576 ))
reps=$(( SIZE_MB / (chunk_mb > 0 ? chunk_mb : 1) ))
failures=(
  "/src/aten/src/ATen/native/cuda/Reduce7.cu(88): error: identifier \"__hmax\" is undefined"
  "/usr/bin/ld: cannot find -lcupti: No such file or directory"
  "nvcc error   : 'cicc' died due to signal 9 (Kill signal)"
)
: >"$LOG"
for ((i = 0; i < reps; i++)); do
  cat "$WORK/chunk.log" >>"$LOG"
  case $i in
    $((reps / 4))) echo "${failures[0]}" >>"$LOG" ;;
    $((reps / 2))) echo "${failures[1]}" >>"$LOG" ;;
    $((reps - 2))) echo "${failures[2]}" >>"$LOG"; echo "ninja: build stopped: subcommand failed." >>"$LOG" ;;
  esac
done
bytes=$(stat -c %s "$LOG")
lines=$(wc -l <"$LOG")
cat "$LOG" >/dev/null  # into the page cache

best() {  # best wall time of 3 runs, seconds. Output goes to a pipe, not /dev/null: GNU grep
  # stops at the first match when it sees its output is /dev/null. Exit statuses are ignored.
  python3 - "$@" <<'PY'
import subprocess, sys, time
best = min(
    (lambda t0: (subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE), time.perf_counter() - t0)[1])(time.perf_counter())
    for _ in range(3))
print(f"{best:.3f}")
PY
}
g=$(best grep -c error "$LOG")
k=$(best "$KILN" diagnose "$LOG")
root=$("$KILN" diagnose --json "$LOG" | python3 -c "import json,sys; print(json.load(sys.stdin)['root_cause']['id'])" || true)
ratio=$(python3 -c "print(f'{$k / $g:.2f}')")
echo "log: $((bytes / 1048576)) MiB, $lines lines"
echo "grep -c error:  ${g} s"
echo "kiln diagnose:  ${k} s  (root cause: $root)"
echo "ratio kiln/grep: $ratio"
