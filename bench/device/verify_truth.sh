#!/usr/bin/env bash
# Issue 33 on the GPU host: does `kiln verify` agree with what really loads? Three places, each file's
# verdict (kiln: would it load?) against the truth (the interpreter: does it?):
#   1. torch/lib                 each library dlopen'ed (ctypes, RTLD_NOW) after `import torch`
#   2. site-packages             each extension module that needs torch, imported after `import torch`
#                                (a library without PyInit_: dlopen'ed after it, as its package does)
#                                (kiln verify on the folder, and on each module by bare name from
#                                inside its folder: that spelling once looped forever)
#   3. a fresh build folder      a small CUDAExtension written here, built by `kiln build`, its module
#                                imported from the build folder and run on the GPU
# kiln says a file will not load when verify reports missing-library, undefined-symbol,
# symbol-version, abi-mismatch, unreadable or wrong-cpu for it. No network needed.
# usage: bench/device/verify_truth.sh [KILN]   (default: build/kiln; writes under $OUT or /tmp)
# env: PY (default python3: the interpreter with torch), SITE (default: PY's purelib), GPU (h100)
# Prints one line per disagreement and VERIFY-TRUTH AGREE n/n per part; exit 1 on any disagreement.
set -u
KILN=$(readlink -f "${1:-build/kiln}")
PY=${PY:-python3}
GPU=${GPU:-h100}
W=${OUT:-/tmp}/verify_truth; rm -rf "$W"; mkdir -p "$W"
[ -x "$KILN" ] || { echo "no kiln binary at $KILN" >&2; exit 2; }
exec > >(tee "$W/log.txt") 2>&1
TORCH=$("$PY" -c "import torch, os; print(os.path.dirname(torch.__file__))") || { echo "$PY cannot import torch"; exit 2; }
SITE=${SITE:-$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")}
echo "kiln: $KILN ($("$KILN" --version 2>&1 | head -1)); python: $(command -v "$PY") ($("$PY" -c 'import torch; print(torch.__version__)'))"
echo "torch: $TORCH; site-packages: $SITE; gpu: $GPU; $(nproc) cores"
status=0

# compare JSON TRUTH: kiln's verdicts against the truth file (lines "PATH<TAB>ok|fail<TAB>why").
compare() {
  "$PY" - "$1" "$2" "$3" <<'PY'
import json, sys
part, verdicts, truth = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
blocking = {"missing-library", "undefined-symbol", "symbol-version", "abi-mismatch", "unreadable", "wrong-cpu"}
why = {}
for p in verdicts.get("problems", []):
    if p["kind"] in blocking:
        for f in p["file"].split(" "):
            why.setdefault(f, []).append(p["kind"] + ": " + p["why"])
n = agree = 0
for line in open(truth):
    path, real, detail = (line.rstrip("\n").split("\t") + ["", ""])[:3]
    n += 1
    kiln_ok = path not in why
    if kiln_ok == (real == "ok"):
        agree += 1
        continue
    print(f"DISAGREE [{part}] {path}: kiln says {'loads' if kiln_ok else 'fails'}"
          f"{'' if kiln_ok else ' (' + '; '.join(why[path])[:300] + ')'}; truth: {real} {detail[:300]}")
print(f"VERIFY-TRUTH {part}: AGREE {agree}/{n}; kiln's extension torch: {verdicts.get('extension_torch')}")
sys.exit(0 if agree == n else 1)
PY
}

# 1. torch/lib: every shared library, loaded after import torch.
t0=$(date +%s.%N)
timeout 300 "$KILN" verify "$TORCH/lib" --gpu "$GPU" --json > "$W/torch_lib.json"
echo "kiln verify torch/lib: rc=$? in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N)-$t0}") s"
find "$TORCH/lib" -maxdepth 1 -name '*.so*' -type f | sort > "$W/torch_lib.files"
"$PY" - "$W/torch_lib.files" > "$W/torch_lib.truth" <<'PY'
import ctypes, subprocess, sys
for path in open(sys.argv[1]).read().split():
    # Each in a fresh process: one library's failure must not change the next one's answer.
    r = subprocess.run([sys.executable, "-c", "import torch, ctypes, sys; ctypes.CDLL(sys.argv[1])", path],
                       capture_output=True, text=True, timeout=120)
    print(path, "ok" if r.returncode == 0 else "fail", (r.stderr.strip().splitlines() or [""])[-1], sep="\t")
PY
compare torch_lib "$W/torch_lib.json" "$W/torch_lib.truth" || status=1

# 2. site-packages: extension modules that need torch's libraries (outside torch itself).
"$PY" - "$SITE" > "$W/site.modules" <<'PY'
import os, subprocess, sys
site = sys.argv[1]
for root, dirs, files in os.walk(site):
    if root == os.path.join(site, "torch") or root.startswith(os.path.join(site, "torch") + os.sep):
        dirs[:] = []
        continue
    for f in files:
        tagged = ".cpython-" in f and f.endswith(".so") or f.endswith(".abi3.so")
        # A plain NAME.so imports too when it defines PyInit_NAME (sam2's sam2/_C.so).
        plain = f.endswith(".so") and f.count(".") == 1
        if tagged or plain:
            p = os.path.join(root, f)
            if plain and "PyInit_" + f[:-3] not in subprocess.run(
                    ["readelf", "--dyn-syms", "-W", p], capture_output=True, text=True).stdout:
                continue
            d = subprocess.run(["readelf", "-d", p], capture_output=True, text=True).stdout
            if "libtorch" in d or "libc10" in d:
                print(p)
PY
echo "site-packages: $(wc -l < "$W/site.modules") extension modules that need torch"
if [ -s "$W/site.modules" ]; then
  mapfile -t mods < "$W/site.modules"
  dirs=$(for m in "${mods[@]}"; do dirname "$m"; done | sort -u)
  timeout 300 "$KILN" verify $dirs --gpu "$GPU" --json > "$W/site.json"
  echo "kiln verify on their folders: rc=$?"
  "$PY" - "$SITE" "$W/site.modules" > "$W/site.truth" <<'PY'
import os, subprocess, sys
site = sys.argv[1]
for p in open(sys.argv[2]).read().split():
    rel = os.path.relpath(p, site)
    mod = rel.split(".")[0].replace(os.sep, ".")
    # A library with no PyInit_ (torchaudio's lib/*.abi3.so) is not imported: its package dlopens
    # it after import torch, so that is its truth.
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", p], capture_output=True, text=True).stdout
    code = (f"import torch, importlib; importlib.import_module({mod!r})" if "PyInit_" in syms
            else f"import torch, ctypes; ctypes.CDLL({p!r})")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd="/")
    print(p, "ok" if r.returncode == 0 else "fail", (r.stderr.strip().splitlines() or [""])[-1], sep="\t")
PY
  compare site-packages "$W/site.json" "$W/site.truth" || status=1
  # Each module by bare name from inside its folder must answer (and agree with the folder's run).
  bare=0 slow=0
  for m in "${mods[@]}"; do
    (cd "$(dirname "$m")" && timeout 60 "$KILN" verify "$(basename "$m")" --gpu "$GPU" --json > "$W/bare.json")
    rc=$?; bare=$((bare + 1))
    [ $rc -eq 124 ] && { echo "DISAGREE [bare-name] $m: no answer in 60 s"; slow=$((slow + 1)); status=1; }
  done
  echo "VERIFY-TRUTH bare-name: $((bare - slow))/$bare answered within 60 s"
else
  echo "VERIFY-TRUTH site-packages: no installed extension needs torch (install some first: pip install --no-build-isolation ...)"
fi

# 3. A fresh build folder: a CUDAExtension built by kiln, imported from there, run on the GPU.
P=$W/vtruth; B=$W/vtruth-build; mkdir -p "$P"
cat > "$P/setup.py" <<'PYS'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="vtruth", version="0.1",
      ext_modules=[CUDAExtension("vtruth_ext", ["vtruth.cpp", "vtruth_kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
PYS
cat > "$P/vtruth.cpp" <<'CPP'
#include <torch/extension.h>
torch::Tensor twice(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice", &twice); }
CPP
cat > "$P/vtruth_kernel.cu" <<'CU'
#include <torch/extension.h>
__global__ void twice_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor twice(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  twice_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
CU
t0=$(date +%s.%N)
timeout 900 "$KILN" build "$P" --gpu "$GPU" --build-dir "$B" --python "$(command -v "$PY")" > "$W/build.txt" 2>&1
brc=$?
echo "kiln build vtruth: rc=$brc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N)-$t0}") s"; tail -5 "$W/build.txt"
timeout 300 "$KILN" verify "$B" --gpu "$GPU" --json --python "$(command -v "$PY")" > "$W/build.json"
echo "kiln verify on the build folder: rc=$?"
find "$B" -name '*.so' -type f ! -path '*/CMakeFiles/*' | sort > "$W/build.files"
"$PY" - "$W/build.files" > "$W/build.truth" <<'PY'
import os, subprocess, sys
for p in open(sys.argv[1]).read().split():
    name = os.path.basename(p)
    if ".cpython-" in name or name.endswith(".abi3.so"):
        mod = name.split(".")[0]
        code = (f"import sys; sys.path.insert(0, {os.path.dirname(p)!r}); import torch, {mod}; "
                f"x = torch.arange(8., device='cuda'); assert torch.equal({mod}.twice(x), 2 * x) "
                f"if hasattr({mod}, 'twice') else True")
    else:
        code = f"import torch, ctypes; ctypes.CDLL({p!r})"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd="/")
    print(p, "ok" if r.returncode == 0 else "fail", (r.stderr.strip().splitlines() or [""])[-1], sep="\t")
PY
[ -s "$W/build.files" ] || { echo "DISAGREE [build] no .so in $B (build rc=$brc)"; status=1; }
compare build-folder "$W/build.json" "$W/build.truth" || status=1
echo "VERIFY-TRUTH $([ $status = 0 ] && echo PASS || echo FAIL) (files under $W)"
exit $status
