#!/usr/bin/env bash
# kiln doctor end to end: the real binary against this machine and against a fake CUDA tree whose
# nvcc and cuda.h disagree. Usage: doctor.sh <kiln> <source-dir>
set -u
. "$(dirname "$0")/lib/common.sh"
kiln=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {'d': d}))" "$@"; }

# 1. This machine: JSON that parses, and an exit code that agrees with its "ok".
"$kiln" doctor --json >"$tmp/here.json"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "exit code $rc"
ok=$(json_get "$tmp/here.json" "d['ok']") || fail "JSON did not parse"
{ [ "$ok" = True ] && [ "$rc" = 0 ]; } || { [ "$ok" = False ] && [ "$rc" = 1 ]; } || fail "ok=$ok but exit $rc"
[ "$(json_get "$tmp/here.json" "d['schema']")" = kiln.doctor/2 ] || fail "schema"

# 2. A fake toolkit: nvcc says 12.4, cuda.h says 12.1, CUPTI header without library.
mkdir -p "$tmp/cuda/bin" "$tmp/cuda/include" "$tmp/cuda/lib64"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$tmp/cuda/bin/nvcc"
chmod +x "$tmp/cuda/bin/nvcc"
echo '#define CUDA_VERSION 12010' >"$tmp/cuda/include/cuda.h"
echo '#define CUPTI_API_VERSION 18' >"$tmp/cuda/include/cupti_version.h"
CUDA_HOME="$tmp/cuda" CUDA_PATH= "$kiln" doctor --json >"$tmp/fake.json"; rc=$?
[ "$rc" = 1 ] || fail "fake tree: expected exit 1, got $rc"
codes=$(json_get "$tmp/fake.json" "' '.join(f['code'] for f in d['findings'])")
case " $codes " in *" cuda.version-mismatch "*) ;; *) fail "no cuda.version-mismatch in: $codes" ;; esac
[ "$(json_get "$tmp/fake.json" "d['cuda']['root']")" = "$tmp/cuda" ] || fail "root"

# 3. The seeds' CMakeCache.txt: USE_CUPTI on, CUPTI_LIBRARY NOTFOUND.
printf 'CMAKE_COMMAND:INTERNAL=/usr/bin/cmake\nCMAKE_GENERATOR:INTERNAL=Ninja\nUSE_CUPTI:BOOL=ON\nCUPTI_LIBRARY:FILEPATH=NOTFOUND\n' >"$tmp/CMakeCache.txt"
"$kiln" doctor --cmake-cache "$tmp/CMakeCache.txt" >"$tmp/cache.txt"; rc=$?
[ "$rc" = 1 ] || fail "cache audit: expected exit 1, got $rc"
grep -q "USE_CUPTI=ON (line 3) but CUPTI_LIBRARY=NOTFOUND" "$tmp/cache.txt" || fail "cache finding missing"

# 4. A missing cache file: exit 1 and one line naming it. A bad flag: exit 2.
"$kiln" doctor --cmake-cache "$tmp/none.txt" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 1 ] || fail "missing cache: exit $rc"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$tmp/none.txt" "$tmp/err" || fail "missing cache message: $(cat "$tmp/err")"
"$kiln" doctor --no-such-flag >/dev/null 2>&1; [ $? = 2 ] || fail "bad flag should exit 2"
# 5. torch is read from its files, never imported: a fake torch whose __init__ would take 5 s and
# leave a mark. The facts come from version.py and TorchConfig.cmake, and no mark appears.
mkdir -p "$tmp/sp/torch/share/cmake/Torch"
printf 'import time, pathlib\npathlib.Path(__file__).with_name("IMPORTED").touch()\ntime.sleep(5)\n' >"$tmp/sp/torch/__init__.py"
printf "__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\ngit_version = 'abc123'\n" >"$tmp/sp/torch/version.py"
echo 'set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=1")' >"$tmp/sp/torch/share/cmake/Torch/TorchConfig.cmake"
PYTHONPATH="$tmp/sp" "$kiln" doctor --json --no-load-check >"$tmp/torch.json"
[ ! -e "$tmp/sp/torch/IMPORTED" ] || fail "doctor imported torch"
[ "$(json_get "$tmp/torch.json" "d['python']['torch']['version']")" = 2.11.0+cu130 ] || fail "torch version: $(json_get "$tmp/torch.json" "d['python']['torch']")"
[ "$(json_get "$tmp/torch.json" "d['python']['torch']['cuda']")" = 13.0 ] || fail "torch cuda"
[ "$(json_get "$tmp/torch.json" "d['python']['torch']['cxx11_abi']")" = True ] || fail "torch abi"
[ "$(json_get "$tmp/torch.json" "d['python']['torch']['git_version']")" = abc123 ] || fail "torch git version"
echo "doctor e2e: ok"
