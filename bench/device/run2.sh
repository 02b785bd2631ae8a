#!/bin/bash
# Run on the GPU host from a folder holding the kiln binary, t/ (nvcc-built test binaries) and libs16.txt.
# Second pass: nvcc-built test binaries (a/f variants, LZ/zstd, rdc, archive) and the 16 real
# libraries again with relocatable entries kept apart, plus register counts on entry kernels.
set -u
D=$(cd "$(dirname "$0")" && pwd)
K=$D/kiln
CUOBJ=${CUOBJ:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
SP=${SP:-/opt/torch/.venv/lib/python3.12/site-packages}
W=$OUT/work; mkdir -p $W/ref $W/kiln
exec > >(tee $OUT/log2.txt) 2>&1
ls $D/t/* > $W/tests.txt
for f in $(cat $W/tests.txt); do
  n=$(basename $f)
  $CUOBJ --list-elf $f > $W/ref/$n.elf 2>&1; $CUOBJ --list-ptx $f > $W/ref/$n.ptx 2>&1
  $K inspect --json $f > $W/kiln/$n.json
done
echo "== cuobjdump on the f-variant test objects (sm_100f, sm_120f) =="
cat $W/ref/k_100f.o.elf $W/ref/k_120f.o.elf $W/ref/exe_f.elf $W/ref/libk_rdc.so.elf $W/ref/k_rdc.o.elf $W/ref/libk.a.elf
python3 $D/compare.py $W $W/tests.txt | tee $OUT/compare_tests.txt
for f in $SP/nvidia/nvshmem/lib/libnvshmem_host.so.3 $SP/torch/lib/libtorch_nvshmem.so; do
  echo "== sections of $f"; readelf -S -W $f | grep -iE 'fatbin|nv_' ; done
grep -v '^$' $D/libs16.txt > $W/libs.txt
while read -r f; do
  n=$(basename "$f")
  $CUOBJ --list-elf "$f" > $W/ref/$n.elf 2>&1; $CUOBJ --list-ptx "$f" > $W/ref/$n.ptx 2>&1
  $K inspect --json "$f" > $W/kiln/$n.json
done < $W/libs.txt
python3 $D/compare.py $W $W/libs.txt | tee $OUT/compare.txt
for n in libcurand.so.10 libcufile.so.0 libtorch_cuda_linalg.so libcudnn_cnn.so.9; do
  f=$(grep "/$n\$" $W/libs.txt | head -1); [ -z "$f" ] && continue
  timeout 150 $CUOBJ --dump-resource-usage "$f" > $W/ref/$n.res 2>&1; echo "res $n rc=$?"
  $K inspect --kernels --json "$f" > $W/kiln/$n.kernels.json; echo "kernels $n rc=$?"
  python3 $D/compare_regs.py $W/ref/$n.res $W/kiln/$n.kernels.json | tee -a $OUT/regs.txt
done
$K inspect $SP/nvidia/nvshmem/lib/libnvshmem_host.so.3 | tail -3
$K verify $SP/torch/lib --gpu h100 > $OUT/verify_torchlib.txt 2>&1; echo "verify torch/lib rc=$?" >> $OUT/verify_torchlib.txt
tar czf $OUT/work2.tgz -C $OUT work 2>/dev/null; rm -rf $W
