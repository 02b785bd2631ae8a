#!/usr/bin/env bash
# Issue 35's ETA on a live cold build (no history, empty caches): a generated CUDAExtension of UNITS
# plain CUDA units of uneven weight (3 to 11 unrolled kernel bodies each: about 10 to 40 s of nvcc
# apiece) and one torch binding, built by `kiln build` with nothing set by hand. Each progress line
# that says "N left" is scored against the build's real end (the line's time plus N against the
# time the build's last compile ended); prints each line's error and the worst from the first
# finished wave (as many units as jobs) while more than a minute is left.
# usage: bench/device/eta_live.sh KILN PYTHON OUT [UNITS]   (default 96 units)
set -u
kiln=$(readlink -f "$1"); py=$2; out=$(readlink -f "$3"); units=${4:-96}
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
"$py" - "$out/eta_build.log" "$out/eta_exec.jsonl" "$(nproc)" <<'PYS' | tee "$out/eta_score.txt"
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[2])]
units = [r for r in recs if r.get("output", "").endswith(".o")]
end = max(r["start_ms"] + r["wall_ms"] for r in units) / 1000
ends = sorted((r["start_ms"] + r["wall_ms"]) / 1000 for r in units)
jobs = int(sys.argv[3])
first_wave = ends[min(jobs, len(ends)) - 1]
def secs(t):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", t)
    return int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + int(m.group(3) or 0)
worst = 0
print(f"{len(units)} units, last compile ended {end - ends[0] + 0:.0f} s after the first ended; first wave ends at unit {min(jobs, len(ends))}")
for line in open(sys.argv[1]):
    t, _, text = line.partition("\t")
    m = re.search(r"\] (\d+)/(\d+) .*?  (\S+) left", text)
    if not m:
        continue
    t = float(t); said = secs(m.group(3)); truth = end - t
    if truth <= 0:
        continue
    err = (said - truth) / truth
    scored = t >= first_wave and truth >= 60
    if scored:
        worst = max(worst, abs(err))
    print(f"{m.group(1)}/{m.group(2)} said {said:4d} s, truth {truth:5.0f} s, {err:+.2f}{'' if scored else '  (not scored)'}")
print(f"ETA-LIVE worst from the first wave while over a minute is left: {worst:.2f}")
PYS
