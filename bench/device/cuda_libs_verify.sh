#!/bin/bash
# Issue 21 item 4 on the GPU host: kiln inspect/verify over every CUDA library there (the toolkit's
# lib64, every site-packages/nvidia/*/lib wheel, torch/lib), kiln against cuobjdump where cuobjdump
# sees a fat binary (f variants folded), `kiln verify <site-packages>/nvidia --gpu h100`, and a cuFFT
# transform launched on the GPU through torch.fft as the proof. About 2-4 minutes on 16 cores.
# usage: bench/device/cuda_libs_verify.sh [KILN]   (default: build/kiln; writes under $OUT or /tmp)
# env: SP (site-packages of the PyTorch 2.11 cu130 venv), PY (its python), CUDA_HOME, JOBS.
set -u
KILN=$(readlink -f "${1:-build/kiln}")
SP=${SP:-/opt/torch/.venv/lib/python3.12/site-packages}
PY=${PY:-/opt/torch/.venv/bin/python}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CUOBJ=${CUOBJ:-$CUDA_HOME/bin/cuobjdump}
JOBS=${JOBS:-$(nproc)}
W=${OUT:-/tmp}/cuda_libs_verify; rm -rf "$W"; mkdir -p "$W/ref"
D=$(cd "$(dirname "$0")" && pwd)
[ -x "$KILN" ] || { echo "no kiln binary at $KILN" >&2; exit 2; }
exec > >(tee "$W/log.txt") 2>&1
echo "host: $(nproc) cores; kiln: $KILN; cuobjdump: $($CUOBJ --version 2>&1 | tail -1); site-packages: $SP"
DIRS=("$CUDA_HOME/lib64" "$SP/torch/lib")
for d in "$SP"/nvidia/*/lib; do [ -d "$d" ] && DIRS+=("$d"); done
printf '  %s\n' "${DIRS[@]}"

t0=$(date +%s.%N)
timeout 240 "$KILN" inspect --json "${DIRS[@]}" > "$W/inspect.json" 2> "$W/inspect.err"
echo "kiln inspect over all: rc=$? in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N)-$t0}") s"

# cuobjdump on each file kiln says carries CUDA code, in parallel, each call bounded.
"$PY" - "$W/inspect.json" > "$W/cuda_files.txt" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    if f["cuda"] or f.get("lto_ir_entries"): print(f["path"])
PY
echo "files with CUDA code: $(wc -l < "$W/cuda_files.txt")"
export CUOBJ W
t0=$(date +%s.%N)
xargs -P "$JOBS" -I{} bash -c 'n=$(echo "{}" | tr / _); timeout 120 "$CUOBJ" --list-elf "{}" > "$W/ref/$n.elf" 2>&1; \
  timeout 120 "$CUOBJ" --list-ptx "{}" > "$W/ref/$n.ptx" 2>&1; true' < "$W/cuda_files.txt"
echo "cuobjdump over them: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N)-$t0}") s"

"$PY" "$D/cuda_libs_compare.py" "$W/inspect.json" "$W/ref" | tee "$W/compare.txt"

echo
echo "== kiln verify $SP/nvidia --gpu h100"
t0=$(date +%s.%N)
timeout 240 "$KILN" verify "$SP/nvidia" --gpu h100 > "$W/verify_nvidia.txt" 2>&1; rc=$?
grep -E "^FAIL|cufft" "$W/verify_nvidia.txt" | cut -c1-220; tail -1 "$W/verify_nvidia.txt"
echo "verify nvidia rc=$rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N)-$t0}") s"
for d in "$CUDA_HOME/lib64" "$SP/torch/lib"; do
  timeout 240 "$KILN" verify "$d" --gpu h100 --no-deps > "$W/verify_$(basename "$(dirname "$d")").txt" 2>&1
  echo "verify $d: rc=$? $(tail -1 "$W/verify_$(basename "$(dirname "$d")").txt")"
  grep "^FAIL" "$W/verify_$(basename "$(dirname "$d")").txt" | cut -c1-220
done

echo
echo "== cuFFT on the GPU through torch.fft"
timeout 120 "$PY" - <<'PY'
import time, torch
assert torch.cuda.is_available(), "no CUDA device"
dev = torch.cuda.get_device_name(0); cc = torch.cuda.get_device_capability(0)
x = torch.randn(64, 4096, dtype=torch.complex64, device="cuda")
t = time.time(); y = torch.fft.fft(x); z = torch.fft.ifft(y); torch.cuda.synchronize(); dt = time.time() - t
err = (z - x).abs().max().item()
ref = torch.fft.fft(x.cpu()); err_cpu = (y.cpu() - ref).abs().max().item() / ref.abs().max().item()
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcufft" in l})
print(f"device {dev} cc {cc[0]}.{cc[1]}: fft+ifft of 64x4096 complex64 in {dt*1000:.1f} ms; "
      f"round-trip max error {err:.2e}; relative difference to the CPU FFT {err_cpu:.2e}")
print("cuFFT loaded from:", *libs)
print("CUFFT-PROOF", "PASS" if err < 1e-3 and err_cpu < 1e-4 and libs else "FAIL")
PY
echo "torch.fft rc=$?"
