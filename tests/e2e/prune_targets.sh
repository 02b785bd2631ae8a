#!/bin/bash
# Exactly the plan's targets per unit (issue 35), through `kiln exec` and the real nvcc, read back
# with `kiln inspect`: the architecture flags below reproduce what the projects pass (written here,
# not copied from them).
#  1. flash-attention 2 (Dao-AILab/flash-attention 0251105, setup.py add_cuda_gencodes with
#     FLASH_ATTN_CUDA_ARCHS=90): `-gencode arch=compute_90,code=sm_90` and, for its newest entry,
#     `arch=compute_90,code=compute_90` (PTX), with `--threads 4`. On a plan of 90a-real (an H100
#     image's TORCH_CUDA_ARCH_LIST=9.0a) the object holds sm_90a alone: no sm_90, no PTX.
#  2. The same flags with --keep-project-archs (no KILN_PRUNE_ARCHS, kiln's launcher adding the target
#     the project's list cannot spell): sm_90, compute_90 and sm_90a, what the issue saw.
#  3. flash-attention 3 (the same commit, hopper/setup.py): _sm90.cu files get sm_90a, _sm80.cu files
#     sm_80, the others both. On a plan of 90-real: sm_90a alone where the file asks for it, sm_90
#     alone elsewhere.
# Skips (77) without nvcc or one that cannot build sm_90a.
set -u
. "$(dirname "$0")/lib/common.sh"
kiln=$1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "nvcc not found"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/k.cu" <<'CU'
__global__ void scale(float* a, float s) { a[blockIdx.x * blockDim.x + threadIdx.x] *= s; }
void launch(float* a) { scale<<<2, 64>>>(a, 2.0f); }
CU
"$NVCC" -c -gencode arch=compute_90a,code=sm_90a -o "$T/probe.o" "$T/k.cu" > /dev/null 2>&1 ||
  skip "this nvcc cannot build sm_90a"

# The targets an object holds, one per line, from kiln inspect's JSON (SASS as sm_XX, PTX as compute_XX).
targets() {
  "$kiln" inspect "$1" --json | python3 -c '
import json, sys
seen = set()
def walk(x):
    if isinstance(x, dict):
        if x.get("kind") in ("sass", "ptx") and "arch" in x:
            a = x["arch"]
            if x["kind"] == "ptx":
                a = "compute_" + a.rsplit("sm_", 1)[-1].split(".")[0]
            seen.add(a)
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(json.load(sys.stdin))
print(" ".join(sorted(seen)))'
}
compile() {  # compile OUT [env...] -- nvcc flags
  local out=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" "$kiln" exec -- "$NVCC" -c "$T/k.cu" -o "$T/$out" "$@" > "$T/$out.log" 2>&1 ||
    { cat "$T/$out.log"; fail "kiln exec nvcc for $out failed"; }
}
fa2=(-O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 --threads 4)

compile fa2.o KILN_PRUNE_ARCHS='90a-real' -- "${fa2[@]}"
got=$(targets "$T/fa2.o")
[ "$got" = "sm_90a" ] || fail "flash-attention 2 on a 90a-real plan: got '$got', want 'sm_90a'"

compile keep.o KILN_EXTRA_ARCHS='90a-real' -- "${fa2[@]}"
got=$(targets "$T/keep.o")
[ "$got" = "compute_90 sm_90 sm_90a" ] || fail "--keep-project-archs: got '$got', want 'compute_90 sm_90 sm_90a'"

compile sm90.o KILN_PRUNE_ARCHS='90-real' -- -gencode arch=compute_90a,code=sm_90a
compile sm80.o KILN_PRUNE_ARCHS='90-real' -- -gencode arch=compute_80,code=sm_80
compile both.o KILN_PRUNE_ARCHS='90-real' -- -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_80,code=sm_80
for pair in "sm90.o sm_90a" "sm80.o sm_90" "both.o sm_90a"; do
  set -- $pair
  got=$(targets "$T/$1")
  [ "$got" = "$2" ] || fail "flash-attention 3's $1 on a 90-real plan: got '$got', want '$2'"
done
echo "ok: one target per unit, the plan's (sm_90a where the plan or the file asks for it)"
