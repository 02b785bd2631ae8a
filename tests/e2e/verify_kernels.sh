#!/bin/bash
# kiln verify kernel by kernel, on libraries nvcc builds here: a kernel missing one family fails
# the GPU of that family even though the file's union of architectures covers it; a kernel built
# only for some architectures (specialised) does not; a build folder's CMakeFiles/ and objects are
# not products, a truncated library is a problem named by path. Skips (77) without nvcc.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "nvcc not found"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

cat > "$T/a.cu" <<'CU'
__global__ void everywhere(float* a) { a[threadIdx.x] *= 2.0f; }
void launch_a(float* a) { everywhere<<<1, 32>>>(a); }
CU
cat > "$T/b.cu" <<'CU'
__global__ void not_on_hopper(float* a) { a[threadIdx.x] += 1.0f; }
void launch_b(float* a) { not_on_hopper<<<1, 32>>>(a); }
CU
cat > "$T/c.cu" <<'CU'
__global__ void ampere_only(float* a) { a[threadIdx.x] -= 1.0f; }
void launch_c(float* a) { ampere_only<<<1, 32>>>(a); }
CU
"$NVCC" -c -Xcompiler -fPIC -o "$T/a.o" "$T/a.cu" -gencode arch=compute_75,code=sm_75 \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 &
"$NVCC" -c -Xcompiler -fPIC -o "$T/b.o" "$T/b.cu" -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 &
"$NVCC" -c -Xcompiler -fPIC -o "$T/c.o" "$T/c.cu" -gencode arch=compute_80,code=sm_80 &
wait
"$NVCC" -shared -o "$T/libk.so" "$T/a.o" "$T/b.o" "$T/c.o" || fail "link failed"

# H100: the union says native (sm_90), but not_on_hopper has no image for 9.x.
out=$("$KILN" verify "$T/libk.so" --gpu h100 --no-deps); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "verify --gpu h100 should exit 1 (a kernel lacks 9.x), got $rc"
echo "$out" | grep -q '1 of 3 kernels have no image that runs here' || fail "count of missing kernels not stated"
echo "$out" | grep -q 'not_on_hopper' || fail "the missing kernel is not named"
echo "$out" | grep -q 'TORCH_CUDA_ARCH_LIST=' || fail "no rebuild hint"
# A100: every kernel runs; ampere_only is not missing anywhere else either (specialised).
"$KILN" verify "$T/libk.so" --gpu a100 --no-deps || fail "verify --gpu a100 should pass"
j=$("$KILN" verify "$T/libk.so" --gpu h100 --no-deps --json)
echo "$j" | python3 -c 'import json,sys; g=json.load(sys.stdin)["files"][0]["gpus"][0]["kernels"]; assert g["total"]==3 and g["runnable"]==1 and g["missing"]==["_Z13not_on_hopperPf"] and g["specialised"]==1, g' \
  || fail "JSON kernels block wrong"
# --union keeps the old file-level verdict.
"$KILN" verify "$T/libk.so" --gpu h100 --no-deps --union >/dev/null || fail "--union should pass on h100"

# inspect --kernels: where each kernel can run.
ins=$("$KILN" inspect --kernels "$T/libk.so")
echo "$ins" | grep -q 'not_on_hopper(float\*)  7.5-7.9 (sm_75), 8.0-8.9 (sm_80)' || fail "inspect --kernels per-kernel line: $(echo "$ins" | grep not_on)"

# A build folder: a valid object, CMake's compiler-id program, a good library and a truncated one.
B=$T/build; mkdir -p "$B/CMakeFiles/3.25.1/CompilerIdCUDA" "$B/lib"
cp "$T/a.o" "$B/a.o"
"$NVCC" -o "$B/CMakeFiles/3.25.1/CompilerIdCUDA/a.out" "$T/a.cu" -gencode arch=compute_75,code=sm_75 -Xlinker --unresolved-symbols=ignore-all 2>/dev/null \
  || cp "$T/libk.so" "$B/CMakeFiles/3.25.1/CompilerIdCUDA/a.out"
"$NVCC" -shared -o "$B/lib/libgood.so" "$T/a.o" || fail "link failed"
head -c 20000 "$T/libk.so" > "$B/lib/libbroken.so"
out=$("$KILN" verify "$B" --gpu a100 --no-deps); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "a folder holding a truncated library must fail, got $rc"
echo "$out" | grep -q "FAIL $B/lib/libbroken.so" || fail "the truncated library is not named"
echo "$out" | grep -q 'CompilerIdCUDA' && fail "CMake's compiler-id program was checked"
echo "$out" | grep -q "$B/a.o" && fail "an object file was checked without --objects"
echo "$out" | grep -q "libgood.so: A100" || fail "the good library was not checked"
"$KILN" verify "$B" --gpu a100 --no-deps --objects | grep -q "$B/a.o: A100" || fail "--objects should check a.o"
rm "$B/lib/libbroken.so"
"$KILN" verify "$B" --gpu a100 --no-deps || fail "the folder without the broken library should pass"
echo "verify_kernels: ok"
