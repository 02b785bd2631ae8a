#!/bin/bash
# Run on the GPU host from a folder holding the kiln binary, t/ (nvcc-built test binaries) and libs16.txt.
# Final pass with the final binary: counts on 16 real libraries + nvcc test binaries, register counts
# (libtorch_cuda.so included), and timings kiln vs cat vs cuobjdump, repeated.
set -u
D=$(cd "$(dirname "$0")" && pwd)
K=$D/kiln
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
W=$OUT/work; mkdir -p $W/ref $W/kiln
exec > >(tee $OUT/log3.txt) 2>&1
ls $D/t/* > $W/tests.txt
grep -v '^$' $D/libs16.txt > $W/libs.txt
for f in $(cat $W/tests.txt $W/libs.txt); do
  n=$(basename $f)
  $CUOBJ --list-elf $f > $W/ref/$n.elf 2>&1; $CUOBJ --list-ptx $f > $W/ref/$n.ptx 2>&1
  $K inspect --json $f > $W/kiln/$n.json
done
python3 $D/compare.py $W $W/tests.txt > $OUT/compare_tests.txt
python3 $D/compare.py $W $W/libs.txt > $OUT/compare.txt
tail -1 $OUT/compare_tests.txt; tail -1 $OUT/compare.txt
for n in libtorch_cuda.so libcublas.so.13 libcurand.so.10 libtorch_cuda_linalg.so; do
  f=$(grep "/$n\$" $W/libs.txt | head -1); [ -z "$f" ] && continue
  s=$(date +%s%N); timeout 200 $CUOBJ --dump-resource-usage "$f" > $W/ref/$n.res 2>&1; rc=$?; e=$(date +%s%N)
  $K inspect --kernels --json "$f" > $W/kiln/$n.kernels.json; k=$(date +%s%N)
  echo "res $n rc=$rc cuobjdump=$(((e-s)/1000000)) ms kiln-kernels-json=$(((k-e)/1000000)) ms"
  python3 $D/compare_regs.py $W/ref/$n.res $W/kiln/$n.kernels.json | tee -a $OUT/regs.txt
done
ms() { local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000)); }
stats() { sort -n | awk -v name="$1" '{a[NR]=$1; t+=$1} END {printf "BENCH %-44s n=%d best %.1f ms median %.1f ms mean %.1f ms\n", name, NR, a[1]/1000, a[int((NR+1)/2)]/1000, t/NR/1000}'; }
for n in libcublasLt.so.13 libtorch_cuda.so; do
  f=$(grep "/$n\$" $W/libs.txt | head -1)
  cat "$f" > /dev/null
  for r in $(seq 15); do ms $K inspect "$f"; done | stats "$n kiln inspect"
  for r in $(seq 15); do ms $K inspect --json "$f"; done | stats "$n kiln inspect --json"
  for r in $(seq 15); do ms cat "$f"; done | stats "$n cat FILE >/dev/null"
  for r in 1 2 3; do ms $CUOBJ --list-elf "$f"; done | stats "$n cuobjdump --list-elf"
  for r in 1 2 3; do ms $CUOBJ --list-ptx "$f"; done | stats "$n cuobjdump --list-ptx"
  for r in 1 2 3; do ms $K inspect --kernels "$f"; done | stats "$n kiln inspect --kernels"
done 2>&1 | tee $OUT/bench.txt
SP=/opt/torch/.venv/lib/python3.12/site-packages
s=$(date +%s%N); $K inspect $SP/torch/lib $SP/nvidia > $OUT/all_text.txt 2>&1; rc=$?; e=$(date +%s%N)
echo "kiln inspect over torch/lib and nvidia/: rc=$rc $(((e-s)/1000000)) ms, $(grep -c 'CUDA code$' $OUT/all_text.txt) CUDA-bearing files"
tar czf $OUT/work3.tgz -C $OUT work 2>/dev/null; rm -rf $W
