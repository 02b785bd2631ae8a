#!/usr/bin/env bash
# kiln build diagnoses its own failure: a .cu with a C++ error and a target this nvcc cannot build.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
need_nvcc
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(f LANGUAGES CXX CUDA)\nadd_library(k SHARED bad.cu)\n' > "$work/p/CMakeLists.txt"
printf '__global__ void k(float* p) { p[threadIdx.x] = undefined_in_kernel; }\n' > "$work/p/bad.cu"
set +e
"$kiln" build "$work/p" --archs 80-real --no-ccache --build-dir "$work/b" --json > "$work/out.json"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "expected exit 1, got $rc"
python3 - "$work/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["outcome"]
assert not d["ok"] and d["failed_step"] == "build", d
diag = d["diagnosis"]
print("diagnosis:", diag["id"], "-", diag["cause"])
assert diag["id"], diag
assert "bad.cu" in diag["cause"] + diag.get("fix", ""), diag
assert "undefined_in_kernel" in diag["cause"], diag
PY
# A target CUDA 13 cannot build is refused at plan time, before any compile, naming the releases.
set +e
msg=$("$kiln" build "$work/p" --archs 7.0 --build-dir "$work/b2" 2>&1)
rc=$?
set -e
echo "$msg" | tail -1
[ "$rc" -eq 1 ] && echo "$msg" | grep -q "sm_70 (built by CUDA 9.0 to 12.9)"
