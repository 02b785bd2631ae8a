#!/usr/bin/env bash
# One CPU weight per compile shared by its running threads (launch/thread_share) against each
# thread weighed by the compile's priority alone (kiln build --no-cpu-share), side by side
# on this machine, alternating A/B: Ninja and `kiln exec` run ten units shaped like mamba's selective
# scan (state-spaces/mamba e9594ce, ten .cu units of one kernel family on one architecture), through
# a stand-in nvcc that burns real CPU: a serial front end, then the device code on the threads kiln's
# --split-compile grants (one kernel, half the device code, cannot be split: the chain, as the
# complex-valued backward units' cicc was on the GPU host), then a serial host compile. Three long
# units, three medium ones and four short ones, with the estimates tied within each
# kind, as a first build sees them. Prints the wall of each build and when the long units ended.
# All ten run at once (Ninja -j 10), as mamba's did on the GPU host's 16 cores, so that on a small
# machine the threads outnumber the cores as they did there.
# usage: bench/cpu_share_bench.sh KILN [ROUNDS] [SCALE] [CORES]   (as root, or B is A)
#   e.g. bash bench/cpu_share_bench.sh build/kiln 3 1.0
# CORES (default: this machine's) is what kiln is told it has (KILN_CORES): on a small machine, 2x
# the real cores grants as many threads per real core as mamba's build had on the GPU host (about
# 40 on 16), so the long units' serial parts meet the same crowd.
set -euo pipefail
kiln=$(readlink -f "$1"); rounds=${2:-3}; scale=${3:-1.0}
cores=${4:-$(nproc)}
work=$(mktemp -d /tmp/kiln-cpu-share-XXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/src"
cat > "$work/spin.c" <<'C'
// spin PHASE...: a phase "a+b+c" runs one thread per term, each burning that many CPU seconds;
// phases run one after another.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void* run(void* a) { double s = *(double*)a, t0 = cpu(); volatile unsigned long x = 0; while (cpu() - t0 < s) for (int i = 0; i < 100000; i++) x += i; return 0; }
int main(int c, char** v) {
  for (int p = 1; p < c; p++) {
    double s[64]; pthread_t th[64]; int n = 0;
    for (char* t = strtok(v[p], "+"); t && n < 64; t = strtok(0, "+")) s[n++] = atof(t);
    for (int i = 0; i < n; i++) pthread_create(&th[i], 0, run, &s[i]);
    for (int i = 0; i < n; i++) pthread_join(th[i], 0);
  }
  return 0;
}
C
cc -O2 -pthread "$work/spin.c" -o "$work/bin/spin"
# The stand-in nvcc: the source's first line gives front end, device and host CPU seconds.
cat > "$work/bin/nvcc" <<'NVCC'
#!/usr/bin/env bash
out= src=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; *.cu|*.cpp) src=$1;; esac; shift; done
split=1
for f in $NVCC_APPEND_FLAGS; do case $f in --split-compile=*) split=${f#--split-compile=};; esac; done
read -r _ front device host < "$src"
parts=$(awk -v d="$device" -v n="$split" 'BEGIN { if (n < 2) { print d; exit } s = d / 2; for (i = 1; i < n; i++) s = s "+" d / 2 / (n - 1); print s }')
"$(dirname "$0")/spin" "$front" "$parts" "$host"
: > "$out"
NVCC
chmod +x "$work/bin/nvcc"
# SHAPE=tail: one long unit whose unsplittable chain is nearly the whole build's bound beside six
# short units of the same estimate, as mamba's complex units were for their last 19 s: the case
# where one thread's share of a core for that chain, beside the others' split threads, is the tail.
units=(long long long medium medium medium short short short short)
[ "${SHAPE:-}" = tail ] && units=(chain short short short short short short)
{
  echo "rule cuda_compile"
  echo "  command = $kiln exec -- $work/bin/nvcc -gencode arch=compute_90,code=sm_90 -c \$in -o \$out"
} > "$work/build.ninja"
: > "$work/plan.template"
i=0
for kind in "${units[@]}"; do
  case $kind in
    long) f=0.4 d=6.0 h=0.6;; medium) f=0.4 d=3.6 h=0.6;; short) f=0.3 d=1.6 h=0.4;;
    chain) f=0.4 d=16.0 h=0.6;; # its chain (front, half the device code, host) is 9 s
  esac
  f=$(awk -v x="$f" -v s="$scale" 'BEGIN { print x * s }'); d=$(awk -v x="$d" -v s="$scale" 'BEGIN { print x * s }')
  h=$(awk -v x="$h" -v s="$scale" 'BEGIN { print x * s }')
  # kiln's estimate reads kernel launches: tied within a kind, as a first build sees mamba's.
  launches=$(case $kind in long|medium) echo 6;; short) echo 2;; chain) echo "${CHAIN_LAUNCHES:-2}";; esac)
  { echo "// $f $d $h"; for _ in $(seq "$launches"); do echo 'k<<<1, 1>>>();'; done; } > "$work/src/u${i}_$kind.cu"
  printf 'build %s: cuda_compile %s\n' "$work/b/u${i}_$kind.o" "$work/src/u${i}_$kind.cu" >> "$work/build.ninja"
  printf 'unit\tscan\t%s\tcuda\t1\t%s\t%s\n' "$cores" "$work/b/u${i}_$kind.o" "$work/src/u${i}_$kind.cu" >> "$work/plan.template"
  i=$((i + 1))
done

build() {  # $1: A (priority per thread) or B (one weight per compile)
  rm -rf "$work/b" "$work/.ninja_log" "$work/.ninja_deps" "$work/ledger" "$work/exec.jsonl"
  mkdir -p "$work/b"
  cp "$work/plan.template" "$work/plan"
  local start end
  start=$(date +%s%3N)
  env KILN_LEDGER="$work/ledger" KILN_MEM_BUDGET_KIB=$((64 * 1024 * 1024)) KILN_SPLIT=1 KILN_CORES="$cores" \
    KILN_EXEC_LOG="$work/exec.jsonl" KILN_UNIT_PLAN="$work/plan" $([ "$1" = B ] && echo KILN_CPU_SHARE=1) \
    ninja -C "$work" -j "${#units[@]}" > "$work/ninja.log" 2>&1 || { cat "$work/ninja.log"; exit 1; }
  end=$(date +%s%3N)
  python3 - "$work/exec.jsonl" "$1" "$((end - start))" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t0 = min(r["start_ms"] for r in rs)
kinds = [k for k in ("long", "medium", "short", "chain") if any(k in r["output"] for r in rs)]
end = {k: max((r["start_ms"] + r["wall_ms"] - t0) / 1000 for r in rs if k in r["output"]) for k in kinds}
cpu = sum(max(0, r.get("cpu_ms", 0)) for r in rs) / 1000
ends = "  ".join(f"{k} end {v:5.2f} s" for k, v in end.items())
print(f"{sys.argv[2]}  wall {int(sys.argv[3]) / 1000:6.2f} s  CPU {cpu:6.1f} s  {ends}  "
      f"shares {sorted(r.get('share_nice', -1) for r in rs)}")
PY
}
echo "cores $(nproc), kiln told $cores, scale $scale, $(uname -r), uid $(id -u)"
for _ in $(seq "$rounds"); do build A; build B; done
