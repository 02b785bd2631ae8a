#!/usr/bin/env bash
# Issue 35's ETA on a live cold build (no history, empty caches): a generated CUDAExtension of UNITS
# plain CUDA units of uneven weight (3 to 11 unrolled kernel bodies each: about 10 to 40 s of nvcc
# apiece) and one torch binding, built by `kiln build` with nothing set by hand. Each progress line
# that says "N left" is scored against the build's real end (N against the time from the line's
# arrival to the end of the build's last compiler run) by bench/eta_score.py: each scored line's
# said / true and their range, from the first finished wave (as many units as jobs) while more
# than a minute is left, or why nothing could be scored.
# usage: bench/device/eta_live.sh KILN PYTHON OUT [UNITS]   (default 96 units)
set -u
kiln=$(readlink -f "$1"); py=$2; out=$(readlink -f "$3"); units=${4:-96}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$out"
work=$(mktemp -d); p=$work/etaext; mkdir -p "$p"
export XDG_CACHE_HOME=$work/xdg CCACHE_DISABLE=1
srcs='"ext.cpp"'
for i in $(seq 0 $((units - 1))); do
  n=$((3 + (i * 5) % 9))
  {
    echo '#include <cuda_runtime.h>'
    echo 'template <int N, int S> __global__ void work(float* x) {'
    echo '  float a = x[threadIdx.x];'
    echo '#pragma unroll'
    echo '  for (int i = 0; i < N; ++i) a = a * 1.0001f + __sinf(a + S);'
    echo '  x[threadIdx.x] = a;'
    echo '}'
    echo "template <int S> void run(float* x) { work<2048, S><<<1, 32>>>(x); work<4096, S><<<1, 32>>>(x); }"
    printf 'void unit_%d(float* x) {' "$i"
    for s in $(seq 1 $n); do printf ' run<%d>(x);' "$s"; done
    echo ' }'
  } > "$p/u$i.cu"
  srcs="$srcs, \"u$i.cu\""
done
cat > "$p/ext.cpp" <<'CPP'
#include <torch/extension.h>
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("ok", [] { return 1; }); }
CPP
cat > "$p/setup.py" <<PY
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="etaext", version="0.1", ext_modules=[CUDAExtension("etaext", [$srcs])],
      cmdclass={"build_ext": BuildExtension})
PY
start=$(date +%s.%N)
# Each stderr line with the time it arrived.
"$kiln" build "$p" --python "$py" 2>&1 >/dev/null | while IFS= read -r line; do
  printf '%s\t%s\n' "$(date +%s.%N)" "$line"; done > "$out/eta_build.log"
echo "kiln build: $(awk "BEGIN{printf \"%.0f\", $(date +%s.%N) - $start}") s"
cp "$p/build-kiln/kiln-exec.jsonl" "$out/eta_exec.jsonl" 2>/dev/null
# Scored by bench/eta_score.py: each line by the time it arrived, against the end of the build's
# last compiler run in its kiln-exec.jsonl.
"$py" "$here/../eta_score.py" "$out/eta_build.log" --stamped --exec "$out/eta_exec.jsonl" -v 2>&1 | tee "$out/eta_score.txt"
