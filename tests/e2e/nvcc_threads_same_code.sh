#!/bin/bash
# kiln exec gives a granted unit of one architecture `--threads=2` (launch/thread_grant: the host
# side's preprocessing and cudafe++ in a lane beside the device front end and cicc). That must
# change when nvcc's steps run, not what it builds: the real nvcc compiles one source with and
# without it, and the fat binary (device code) and the host code must be the same bytes. (Two plain
# compiles differ only in a generated module id, so whole objects are not compared.) Skips (77)
# without nvcc or binutils.
set -u
. "$(dirname "$0")/lib/common.sh"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "nvcc not found"
command -v objcopy >/dev/null && command -v objdump >/dev/null || skip "no binutils"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

cat > "$T/u.cu" <<'CU'
#include <cstdio>
template <typename T, int N> __global__ void scale(T* a, T s) {
  for (int i = 0; i < N; ++i) a[blockIdx.x * blockDim.x * N + threadIdx.x + i * blockDim.x] *= s;
}
template <typename T> void run(T* a, T s) { scale<T, 4><<<2, 64>>>(a, s); scale<T, 8><<<2, 64>>>(a, s); }
void host_side(float* f, double* d) { run(f, 2.0f); run(d, 3.0); std::printf("launched\n"); }
CU
for mode in plain threads; do
  extra=()
  [ "$mode" = threads ] && extra=(--threads=2)
  "$NVCC" -c -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 "${extra[@]}" -o "$T/$mode.o" "$T/u.cu" \
    > "$T/$mode.log" 2>&1 || { cat "$T/$mode.log"; fail "nvcc $mode failed"; }
  objcopy -O binary --only-section=.nv_fatbin "$T/$mode.o" "$T/$mode.fatbin" || fail "no .nv_fatbin in $mode.o"
  [ -s "$T/$mode.fatbin" ] || fail "empty .nv_fatbin in $mode.o"
  objdump -d --no-show-raw-insn "$T/$mode.o" | tail -n +4 > "$T/$mode.host"
  [ -s "$T/$mode.host" ] || fail "no host code in $mode.o"
done
cmp -s "$T/plain.fatbin" "$T/threads.fatbin" || fail "--threads=2 changed the device code"
diff -q "$T/plain.host" "$T/threads.host" >/dev/null || { diff "$T/plain.host" "$T/threads.host" | head; fail "--threads=2 changed the host code"; }
echo "ok: --threads=2 on one architecture builds the same device and host code"
