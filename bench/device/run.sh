#!/bin/bash
# Ground truth for kiln inspect: cuobjdump listings vs kiln on real libraries of the GPU host.
set -u
D=$(cd "$(dirname "$0")" && pwd)
K=$D/kiln
CUOBJ=${CUOBJ:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
SP=${SP:-/opt/torch/.venv/lib/python3.12/site-packages}
DIRS=${DIRS:-"$SP/torch/lib $SP/nvidia"}
W=$OUT/work; mkdir -p $W/ref $W/kiln
exec > >(tee $OUT/log.txt) 2>&1
echo "host: $(uname -r) $(nproc) cores; cuobjdump: $($CUOBJ --version | tail -1)"
ls $SP/nvidia/ $SP/nvidia/*/ 2>/dev/null | head -40
# Candidates: torch/lib and every nvidia wheel library; keep those kiln says carry CUDA code.
find $DIRS -name '*.so*' -type f 2>/dev/null | sort > $W/all.txt
wc -l < $W/all.txt
$K inspect --json $(cat $W/all.txt) > $W/all.json 2>$W/all.err; echo "kiln over all: rc=$?"
python3 - "$W/all.json" > $W/libs.txt <<'PY'
import json,sys
j=json.load(open(sys.argv[1]))
fs=[f for f in j["files"] if f["cuda"]]
fs.sort(key=lambda f: f["size"])
must=[f for f in fs if f["path"].endswith(("/libtorch_cuda.so","/libcublasLt.so.13"))]
rest=[f for f in fs if f not in must][:14]
for f in sorted(rest+must, key=lambda f: f["size"]): print(f["path"])
sys.stderr.write("all CUDA-bearing: %d\n" % len(fs))
for f in fs: sys.stderr.write("  %s %d\n" % (f["path"], f["size"]))
PY
echo "CUDA-bearing libraries: $(wc -l < $W/libs.txt)"
cat $W/libs.txt
i=0
while read -r f; do
  n=$(basename "$f")
  s=$(date +%s.%N); timeout 100 $CUOBJ --list-elf "$f" > $W/ref/$n.elf 2>$W/ref/$n.elf.err; rc1=$?
  m=$(date +%s.%N); timeout 100 $CUOBJ --list-ptx "$f" > $W/ref/$n.ptx 2>$W/ref/$n.ptx.err; rc2=$?
  e=$(date +%s.%N)
  $K inspect --json "$f" > $W/kiln/$n.json; rc3=$?
  k=$(date +%s.%N)
  echo "TIME $n elf_rc=$rc1 ptx_rc=$rc2 kiln_rc=$rc3 cuobjdump_elf=$(awk "BEGIN{print $m-$s}") cuobjdump_ptx=$(awk "BEGIN{print $e-$m}") kiln=$(awk "BEGIN{print $k-$e}")"
done < $W/libs.txt
python3 $D/compare.py $W $W/libs.txt | tee $OUT/compare.txt
# Register counts: cuobjdump --dump-resource-usage vs kiln --kernels on two libraries.
for n in libc10_cuda.so libcurand.so.10 libcufile.so.0 libnvrtc-builtins.so.13.0; do
  f=$(grep "/$n\$" $W/libs.txt | head -1); [ -z "$f" ] && continue
  timeout 150 $CUOBJ --dump-resource-usage "$f" > $W/ref/$n.res 2>&1; echo "res $n rc=$?"
  $K inspect --kernels --json "$f" > $W/kiln/$n.kernels.json; echo "kernels $n rc=$?"
  python3 $D/compare_regs.py $W/ref/$n.res $W/kiln/$n.kernels.json | tee -a $OUT/regs.txt
done
# Timing on the big ones, 3 runs each, page cache warm.
for n in libcublasLt.so.13 libtorch_cuda.so; do
  f=$(grep "/$n\$" $W/libs.txt | head -1); [ -z "$f" ] && continue
  cat "$f" > /dev/null
  for r in 1 2 3; do
    /usr/bin/time -f "BENCH $n kiln %e s %M KB" $K inspect "$f" > /dev/null
    /usr/bin/time -f "BENCH $n cat %e s" cat "$f" > /dev/null
  done
  /usr/bin/time -f "BENCH $n cuobjdump-list-elf %e s %M KB" $CUOBJ --list-elf "$f" > /dev/null
  /usr/bin/time -f "BENCH $n kiln-kernels %e s %M KB" $K inspect --kernels "$f" > /dev/null
done 2>&1 | tee $OUT/bench.txt
f=$(grep "/libtorch_cuda.so\$" $W/libs.txt | head -1)
$K inspect --deps --undefined "$f" > $OUT/torch_deps.txt 2>&1; echo "deps rc=$?" >> $OUT/torch_deps.txt
$K verify "$f" --gpu h100 --gpu b200 --gpu rtx5090 --gpu "jetson thor" --gpu a100 >> $OUT/torch_deps.txt 2>&1; echo "verify rc=$?" >> $OUT/torch_deps.txt
tar czf $OUT/work.tgz -C $OUT work 2>/dev/null; rm -rf $W
