#!/usr/bin/env bash
# Thread grants share the cores by weight (issue 19), through Ninja and `kiln exec` with a fake nvcc:
# ten units of one architecture start at once on 16 (declared) cores, and the four long ones reach
# kiln 0.5 s after the six short ones (mamba e9594ce's shape on the H100, where the longest came
# last; bench/gen_longest_last.sh is the real-nvcc version). The fake nvcc sleeps 1 ms per byte of
# its source, records the --split-compile it was given, and divides by it the time of a long unit
# (4.8 s of device code) but not of a short one (1.2 s of front end, which a split does not shorten):
# the first arrivals then hold their threads while the long ones come, as on a real machine.
#  1. With the build's plan (KILN_UNIT_PLAN, as data/parallel_extensions.py writes it): each long
#     unit gets several threads, each short one fewer; the records say why (grant_basis, grant_units)
#     and `kiln report` shows the grants; the build ends in a fraction of a long unit's serial time.
#  2. Without a plan, the same build as before this change: the first arrivals take the cores.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need ninja
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/src" "$work/b"
cat > "$work/bin/nvcc" <<'NVCC'
#!/usr/bin/env bash
out= src=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; *.cu) src=$1;; esac; shift; done
split=1
for f in $NVCC_APPEND_FLAGS; do case $f in --split-compile=*) split=${f#--split-compile=};; esac; done
bytes=$(wc -c < "$src")
ms=$bytes
head -c 6 "$src" | grep -q '^device' && ms=$(( bytes / split ))
sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
# Its own nice value too (launch/unit_priority): read after the sleep, when kiln exec has set it.
echo "$(basename "$src") $split $(cut -d' ' -f19 /proc/$$/stat)" >> "$(dirname "$out")/splits"
: > "$out"
NVCC
chmod +x "$work/bin/nvcc"
{
  echo "rule cuda_compile"
  echo "  command = sleep \$delay && $kiln exec -- $work/bin/nvcc -gencode arch=compute_90,code=sm_90 -c \$in -o \$out"
} > "$work/build.ninja"
: > "$work/plan.template"
for i in $(seq 0 9); do
  bytes=$([ "$i" -ge 6 ] && echo 4800 || echo 1200)
  # kiln weighs a unit by its kernel launches (launch/unit_estimate, data/unit_cost.toml: 0.25 s
  # each on top of 3 s for a unit that includes nothing): forty in a long unit, one in a short,
  # about the 4:1 of their fake compile times.
  launches=$([ "$i" -ge 6 ] && echo 40 || echo 1)
  { [ "$i" -ge 6 ] && printf 'device\n' || printf 'front\n'; for _ in $(seq "$launches"); do printf 'k<<<1, 1>>>();\n'; done; } > "$work/src/scan_$i.cu"
  head -c "$((bytes - $(wc -c < "$work/src/scan_$i.cu")))" /dev/zero | tr '\0' 'x' >> "$work/src/scan_$i.cu"
  printf 'build %s: cuda_compile %s\n  delay = %s\n' "$work/b/scan_$i.o" "$work/src/scan_$i.cu" \
    "$([ "$i" -ge 6 ] && echo 0.5 || echo 0)" >> "$work/build.ninja"
  printf 'unit\tscan\t16\tcuda\t1\t%s\t%s\n' "$work/b/scan_$i.o" "$work/src/scan_$i.cu" >> "$work/plan.template"
done

build() {  # $1: with or without the plan; prints the build's wall time in ms
  rm -rf "$work/b" "$work/.ninja_log" "$work/.ninja_deps" "$work/ledger" "$work/kiln-exec.jsonl"
  mkdir -p "$work/b"
  cp "$work/plan.template" "$work/plan"
  local start end
  start=$(date +%s%3N)
  env KILN_LEDGER="$work/ledger" KILN_MEM_BUDGET_KIB=$((1024 * 1024 * 1024)) KILN_SPLIT=1 KILN_CORES=16 \
    KILN_EXEC_LOG="$work/kiln-exec.jsonl" ${1:+KILN_UNIT_PLAN="$work/plan"} \
    ninja -C "$work" -j 16 > "$work/ninja.log" 2>&1 || fail "ninja: $(cat "$work/ninja.log")"
  end=$(date +%s%3N)
  echo $((end - start))
}
split_of() { awk -v u="$1" '$1 == u { print $2 }' "$work/b/splits"; }
nice_of() { awk -v u="$1" '$1 == u { print $3 }' "$work/b/splits"; }
base_nice=$(cut -d' ' -f19 /proc/$$/stat)

ms=$(build plan)
echo "1. with the plan: $ms ms; splits: $(sort "$work/b/splits" | tr '\n' ' ')"
for i in 6 7 8 9; do
  s=$(split_of "scan_$i.cu")
  [ "$s" -ge 4 ] || fail "long unit scan_$i.cu got $s thread(s): $(grep "scan_$i" "$work/kiln-exec.jsonl")"
done
# The short units get fewer threads than any long one (on a shared core one thread would end them
# after the long ones, so they may get a few: launch/thread_grant rule 5), and the threads of all
# stay within the oversubscription cap (4 x 16).
least_long=$(for i in 6 7 8 9; do split_of "scan_$i.cu"; done | sort -n | head -1)
total=0
for i in $(seq 0 9); do total=$((total + $(split_of "scan_$i.cu"))); done
for i in 0 1 2 3 4 5; do
  [ "$(split_of "scan_$i.cu")" -lt "$least_long" ] \
    || fail "short unit scan_$i.cu got as many threads as a long one: $(grep "scan_$i" "$work/kiln-exec.jsonl")"
done
[ "$total" -le 64 ] || fail "the units hold $total threads on 16 cores (cap 64)"
# CPU priority: the long units keep the scheduler's full weight, the short ones (expected to end in
# well under the long ones' time) yield, as the compiler itself sees it and as the record says.
# (A build already run at nice 12 or more has too little room to show it: skipped then.)
[ "$base_nice" -lt 12 ] && for i in 6 7 8 9; do
  [ "$(nice_of "scan_$i.cu")" = "$base_nice" ] || fail "long unit scan_$i.cu ran at nice $(nice_of "scan_$i.cu") (the build's: $base_nice)"
done
[ "$base_nice" -lt 12 ] && for i in 0 1 2 3 4 5; do
  [ "$(nice_of "scan_$i.cu")" -gt "$base_nice" ] || fail "short unit scan_$i.cu kept nice $base_nice: $(grep "scan_$i" "$work/kiln-exec.jsonl")"
  grep "scan_$i.o" "$work/kiln-exec.jsonl" | grep -q "\"nice\":$(( $(nice_of "scan_$i.cu") - base_nice ))" \
    || fail "the record of scan_$i.o does not give the nice its compiler ran at: $(grep "scan_$i.o" "$work/kiln-exec.jsonl")"
done
grep "scan_9.o" "$work/kiln-exec.jsonl" | grep -q '"grant_basis":"estimate".*"grant_units":10' \
  || fail "the record does not say what the share was based on: $(grep scan_9.o "$work/kiln-exec.jsonl")"
[ "$(grep -c '^done' "$work/plan")" = 10 ] || fail "kiln exec did not mark its units done in the plan"
# A long unit alone is 4800 ms serial; with its share of the cores the whole build is well below.
[ "$ms" -lt 3000 ] || fail "the build took $ms ms with the plan (a long unit on one thread is 5300 ms)"
"$kiln" report "$work" > "$work/report.txt" 2>&1 || fail "kiln report: $(cat "$work/report.txt")"
grep -q "thread grants" "$work/report.txt" || fail "kiln report shows no grants: $(cat "$work/report.txt")"
grep -A12 "thread grants" "$work/report.txt" | grep "scan_9" | grep -q "of the work of 10 units" \
  || fail "kiln report does not say why scan_9 got its threads: $(cat "$work/report.txt")"
[ "$base_nice" -lt 12 ] && { grep -A12 "thread grants" "$work/report.txt" | grep "scan_0" | grep -q "nice [1-9]" \
  || fail "kiln report does not show the priority scan_0 ran at: $(cat "$work/report.txt")"; }

ms=$(build)
echo "2. without a plan: $ms ms; splits: $(sort "$work/b/splits" | tr '\n' ' ')"
least=$(for i in 6 7 8 9; do split_of "scan_$i.cu"; done | sort -n | head -1)
# The fixture reproduces the starvation: the short units took the cores before the long ones came.
[ "$least" -le 3 ] || fail "without a plan every long unit still got $least+ threads: the fixture does not force the order"
echo "   the first arrivals took the cores: a long unit got $least thread(s)"

# 3. One CPU weight per compile (KILN_CPU_SHARE, which kiln build sets where it may lower a thread's
#    nice again: root), shared by the threads the compile runs at each moment (launch/thread_share):
#    a compile alone on 16 cores weighs 16 threads at nice 0; while its stand-in runs three busy
#    processes each gets log_1.25(3) = 5 levels more, and when one is left it is back at nice 0.
if [ "$(id -u)" = 0 ] && [ "$base_nice" -lt 12 ]; then
  mkdir -p "$work/busy"
  cat > "$work/busy/nvcc" <<'BUSY'
#!/usr/bin/env bash
out=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; esac; shift; done
spin() { end=$((SECONDS + 10)); while [ $SECONDS -lt $end ]; do :; done; }  # killed long before: bounded all the same
# A thread's nice, read with builtins only: a forked reader would itself be a running thread.
nice_of() { local f; read -ra f < "/proc/$1/stat"; echo "${f[18]}"; }
spin & a=$!; spin & b=$!; spin & c=$!
sleep 1.2
three="$(nice_of $a) $(nice_of $b) $(nice_of $c)"
kill $a $b $c; wait 2>/dev/null
spin & a=$!
sleep 1.2
echo "$three $(nice_of $a)" > "$out.nice"
kill $a; wait 2>/dev/null
: > "$out"
BUSY
  chmod +x "$work/busy/nvcc"
  rm -f "$work/ledger" "$work/kiln-exec.jsonl"
  env KILN_LEDGER="$work/ledger" KILN_MEM_BUDGET_KIB=$((1024 * 1024 * 1024)) KILN_SPLIT=1 KILN_CORES=16 KILN_CPU_SHARE=1 \
    KILN_EXEC_LOG="$work/kiln-exec.jsonl" "$kiln" exec -- "$work/busy/nvcc" -gencode arch=compute_90,code=sm_90 \
    -c "$work/src/scan_9.cu" -o "$work/b/busy.o" || fail "kiln exec with a CPU share failed"
  read -r n1 n2 n3 alone < "$work/b/busy.o.nice"
  echo "3. one CPU weight per compile: three busy threads at nice $n1 $n2 $n3, then one at nice $alone (the build's: $base_nice)"
  # Three spinning (4.9 levels: 5), or four if a look fell while the stand-in itself ran (6.2: 6).
  for n in $n1 $n2 $n3; do
    [ "$n" -ge $((base_nice + 5)) ] && [ "$n" -le $((base_nice + 6)) ] \
      || fail "three running threads of a 16-thread share ran at nice $n1 $n2 $n3, not $((base_nice + 5))"
  done
  [ "$alone" -le $((base_nice + 3)) ] && [ "$alone" -lt "$n1" ] \
    || fail "one running thread left did not get the compile's weight back: nice $alone after $n1"
  rec=$(cat "$work/kiln-exec.jsonl")
  echo "$rec" | grep -q '"share_nice":0[,}]' || fail "the record does not give the compile's share: $rec"
  echo "$rec" | grep -q "its CPU share: 17 threads' weight at nice 0, shared by its running threads (up to [3-9] at once)" \
    || fail "the grant's why does not say how the share was weighed: $rec"
else
  echo "3. skipped: sharing a compile's weight among its threads needs root (the build runs at nice $base_nice)"
fi
