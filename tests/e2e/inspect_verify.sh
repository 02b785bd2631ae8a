#!/bin/bash
# kiln inspect / kiln verify end to end on a shared library that nvcc builds here, plus a corrupt
# copy of it. Skips (77) without nvcc.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "nvcc not found"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

cat > "$T/k.cu" <<'CU'
__global__ void k(float* a) { a[threadIdx.x] *= 2.0f; }
void launch(float* a) { k<<<1, 32>>>(a); }
CU
"$NVCC" -shared -Xcompiler -fPIC -o "$T/libk.so" "$T/k.cu" \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_120,code=compute_120 || fail "nvcc failed"

# Text: one row per architecture, totals.
out=$("$KILN" inspect "$T/libk.so") || fail "inspect exited $?"
echo "$out"
echo "$out" | grep -Eq '^  sm_90a +[1-9]' || fail "no sm_90a SASS row"
echo "$out" | grep -Eq '^  sm_120 +0 +- +1 ' || fail "no sm_120 PTX-only row"
echo "$out" | grep -q '^  total' || fail "no totals"

# JSON: entries with kind/arch/size/compressed in file order.
json=$("$KILN" inspect --json "$T/libk.so") || fail "inspect --json exited $?"
echo "$json" | grep -q '"kind": "ptx"' || fail "no PTX entry in JSON"
echo "$json" | grep -q '"arch": "sm_90a"' || fail "no sm_90a in JSON"
echo "$json" | grep -q '"compressed": true' || fail "the PTX entry should be zstd-compressed by default"

# Kernels and dependencies.
"$KILN" inspect --kernels "$T/libk.so" | grep -q '_Z1kPf regs' || fail "kernel _Z1kPf not listed"
"$KILN" inspect --deps "$T/libk.so" | grep -q 'needs libc.so.6 -> ' || fail "libc.so.6 not resolved"

# verify: H100 (sm_90a) and RTX 5090 (PTX 12.0) run; B200 does not and the advice says 10.0.
"$KILN" verify "$T/libk.so" --gpu h100 --gpu rtx5090 || fail "verify should pass for h100 + rtx5090"
v=$("$KILN" verify "$T/libk.so" --gpu h100 --gpu b200); rc=$?
echo "$v"
[ $rc -eq 1 ] || fail "verify for b200 should exit 1, got $rc"
# The file's compute_120 PTX stays in the advice (issue 21): torch spells it 12.0+PTX.
echo "$v" | grep -q 'B200.*TORCH_CUDA_ARCH_LIST="8.0;9.0a;10.0;12.0+PTX"' || fail "no rebuild advice for B200 keeping +PTX"
"$KILN" verify "$T/libk.so" --archs "8.0;9.0a" || fail "verify --archs 8.0;9.0a should pass"

# Usage errors exit 2.
"$KILN" verify "$T/libk.so" --gpu no-such-gpu >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown GPU should exit 2"
"$KILN" verify "$T/libk.so" >/dev/null 2>&1; [ $? -eq 2 ] || fail "verify without --gpu should exit 2"

# A truncated copy: one clear line naming the file and an offset, exit 1, no crash.
head -c 20000 "$T/libk.so" > "$T/cut.so"
c=$("$KILN" inspect "$T/cut.so"); rc=$?
echo "$c"
[ $rc -eq 1 ] || fail "truncated file should exit 1, got $rc"
echo "$c" | grep -q "cut.so: error: offset 0x" || fail "error line does not name the file and offset"

# With .nv_fatbin renamed away, the .nvFatBinSegment wrapper records still lead to every entry.
if command -v objcopy > /dev/null; then
  objcopy --rename-section .nv_fatbin=.renamed "$T/libk.so" "$T/renamed.so" || fail "objcopy failed"
  a=$("$KILN" inspect "$T/libk.so" | grep '^  total'); b=$("$KILN" inspect "$T/renamed.so" | grep '^  total')
  [ "$a" = "$b" ] || fail "through .nvFatBinSegment: '$b' instead of '$a'"
  "$KILN" inspect --json "$T/renamed.so" | grep -q '"section": ".nvFatBinSegment"' || fail "section not reported"
  # And with the wrapper records gone too, the fatbinData symbols in .symtab.
  objcopy --rename-section .nv_fatbin=.renamed --remove-section .nvFatBinSegment "$T/libk.so" "$T/bare.so" || fail "objcopy failed"
  c=$("$KILN" inspect "$T/bare.so" | grep '^  total')
  [ "$a" = "$c" ] || fail "through fatbinData symbols: '$c' instead of '$a'"
  rm "$T/renamed.so" "$T/bare.so"
fi

# A folder: recursion, one line for files without CUDA code, the rest skipped and counted.
cp "$T/k.cu" "$T/notes.txt"; cp /bin/true "$T/true" 2>/dev/null
"$KILN" inspect "$T" > "$T/dir.txt"; cat "$T/dir.txt"
grep -q "libk.so (shared-library" "$T/dir.txt" || fail "folder listing misses libk.so"
echo "PASS"
