#!/usr/bin/env bash
# flash-attention 2 cold, against its bound (issue 35), on the machine this runs on:
#   1. a fresh copy of CHECKOUT (Dao-AILab/flash-attention with cutlass at its submodule commit in
#      csrc/cutlass; never kept in this repository), empty ccache, empty kiln cache, no variable set
#      by hand: `kiln build COPY` (kiln sets FLASH_ATTENTION_FORCE_BUILD, FLASH_ATTN_CUDA_ARCHS ...);
#   2. `kiln report COPY`: the bound, max(compile CPU / cores, critical path), and the ratio;
#   3. the installed module: `kiln inspect` (exactly the plan's targets?) and `kiln verify`;
#   4. the module against torch.nn.functional.scaled_dot_product_attention: fp16 and bf16, head dims
#      64/128/256, causal and not, forward and backward (error against a float32 reference no more
#      than twice SDPA's own in the same precision, plus a small floor: flash-attention's own rule);
#   5. the project's default build projected from the per-target phases kiln recorded (nvcc --time):
#      its default is FLASH_ATTN_CUDA_ARCHS=80;90;100;110;120 (five SASS targets) plus compute_120
#      PTX, NVCC_THREADS=4 and MAX_JOBS = min(cores / 2, available GiB / (5 x 4)) (setup.py's
#      NinjaBuildExtension). Each unit's SASS targets are taken to cost what its sm_90a did
#      (device front end + cicc + ptxas), its PTX what its cicc did; host side, link and the rest
#      once. A unit's wall with --threads 4: the serial parts plus its device work over 4 threads
#      (at least one target's); the build's: the units on MAX_JOBS lanes, and at least its CPU over
#      the cores. A projection, not a measurement: the row says so.
# usage: bench/flash_attention.sh KILN PYTHON CHECKOUT OUT [GPU]
#   GPU (optional) is passed as --gpu; without it kiln plans from the machine (TORCH_CUDA_ARCH_LIST,
#   else the local GPUs), as a user who sets nothing gets. kiln verify checks GPU (default h100).
# KILN_BENCH_WORK: the folder to build in (default a new one under /tmp), for a caller that polls.
# KILN_BENCH_MEM_BUDGET: passed as --mem-budget (a host whose MemTotal starts small, KINDS.md).
# KILN_BENCH_FA_HDIMS: the head dims the checks run (default "64 128 256"; a checkout cut by
#   bench/fa_cut.py has only some).
# KILN_BENCH_SALLOC: salloc's arguments (e.g. "-N2 --ntasks-per-node=1 -c8 --mem=60000 --no-kill"):
#   the build runs as `salloc ARGS kiln build ... --slurm` on the Slurm cluster SLURM_CONF names
#   (bench/device/slurm_fa.sh starts one on this host).
# Writes OUT/{host.txt,build.log,eta.txt,report.txt,report.json,exec.jsonl,kiln-build.log,inspect.txt,
# inspect.json,verify.txt,checks.txt,projection.txt,row.md}.
set -u
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=$(readlink -f "$4"); gpu=${5:-}
mkdir -p "$out"
here="$(cd "$(dirname "$0")" && pwd)"
{ echo "nproc $(nproc)"; grep -m1 'model name' /proc/cpuinfo; grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
  nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c
  echo "TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST-<unset>}"; } > "$out/host.txt" 2>&1
avail_gib=$(awk '/^MemAvailable/ {printf "%d", $2 / 1048576}' /proc/meminfo)
work=${KILN_BENCH_WORK:-$(mktemp -d /tmp/kiln-fa-XXXX)}
mkdir -p "$work"
export CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg
rm -rf "$CCACHE_DIR" "$XDG_CACHE_HOME"
proj=$work/flash-attention
rm -rf "$proj" && cp -r "$src" "$proj" && rm -rf "$proj/build" "$proj/build-kiln" "$proj"/*.egg-info

args=(build "$proj" --python "$py")
[ -n "$gpu" ] && args+=(--gpu "$gpu")
[ -n "${KILN_BENCH_MEM_BUDGET:-}" ] && args+=(--mem-budget "$KILN_BENCH_MEM_BUDGET")
wrap=()
if [ -n "${KILN_BENCH_SALLOC:-}" ]; then
  read -r -a wrap <<< "salloc ${KILN_BENCH_SALLOC} -Q"
  args+=(--slurm)
fi
echo "${wrap[*]} kiln ${args[*]}" > "$out/command.txt"
read -r wall rss rc < <(cd "$work" && "$py" "$here/measure.py" "${wrap[@]}" "$kiln" "${args[@]}")
cp "$work/build.log" "$out/build.log"
tail -15 "$out/build.log"
[ "$rc" = 0 ] || { echo "kiln build exited $rc: see $out/build.log"; exit 1; }
# The ETA the build printed, against when its last compile really ended (issue 35: 20%).
"$py" "$here/eta_score.py" "$out/build.log" > "$out/eta.txt" 2>&1
cat "$out/eta.txt"
"$kiln" report "$proj" > "$out/report.txt" 2>&1
"$kiln" report "$proj" --json > "$out/report.json" 2>/dev/null
cp "$proj/build-kiln/kiln-exec.jsonl" "$out/exec.jsonl" 2>/dev/null
# kiln's own log of the build (each Ninja's whole output): what the ETA's replay needs to follow the
# live lines (docs/benchmarks.md, Session 19: the replay reads 5-20% above what the build printed).
cp "$proj/build-kiln/kiln-build.log" "$out/kiln-build.log" 2>/dev/null
sed -n 1,14p "$out/report.txt"

# The installed module, found from outside the checkout (its flash_attn/ would shadow the wheel's).
so=$(cd / && "$py" -c "import importlib.util as u; print(u.find_spec('flash_attn_2_cuda').origin)" 2>/dev/null)
[ -f "$so" ] || { echo "no installed flash_attn_2_cuda module"; exit 1; }
"$kiln" inspect "$so" > "$out/inspect.txt" 2>&1
"$kiln" inspect "$so" --json > "$out/inspect.json" 2>/dev/null
"$kiln" verify "$so" --gpu "${gpu:-h100}" > "$out/verify.txt" 2>&1
vrc=$?
echo "kiln verify exit $vrc" >> "$out/verify.txt"
cat "$out/inspect.txt" "$out/verify.txt"

(cd / && KILN_BENCH_FA_HDIMS=${KILN_BENCH_FA_HDIMS:-64 128 256} "$py" - > "$out/checks.txt" 2>&1 <<'PY'
import itertools, os, torch
import torch.nn.functional as F
from flash_attn import flash_attn_func
torch.manual_seed(35)
failed = 0
hdims = [int(h) for h in os.environ["KILN_BENCH_FA_HDIMS"].split()]
print(f"{'dtype':<9} {'hdim':>4} {'causal':<6} {'what':<4} {'fa err':>9} {'sdpa err':>9}  ok")
for dtype, d, causal in itertools.product((torch.float16, torch.bfloat16), hdims, (False, True)):
    b, s, h = 2, 1024, 8
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
    g = torch.randn(b, s, h, d, device="cuda", dtype=dtype)
    out = flash_attn_func(q, k, v, causal=causal)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), g)
    # SDPA takes (batch, heads, seq, dim); the reference in float32, the comparison in the same dtype.
    def sdpa(x, y, z, t):
        x, y, z = (a.detach().to(t).transpose(1, 2).requires_grad_() for a in (x, y, z))
        o = F.scaled_dot_product_attention(x, y, z, is_causal=causal)
        gs = torch.autograd.grad(o, (x, y, z), g.to(t).transpose(1, 2))
        return [o.transpose(1, 2)] + [a.transpose(1, 2) for a in gs]
    ref = sdpa(q, k, v, torch.float32)
    low = sdpa(q, k, v, dtype)
    for name, mine, r, l in zip(("out", "dq", "dk", "dv"), (out, dq, dk, dv), ref, low):
        e = (mine.float() - r).abs().max().item()
        el = (l.float() - r).abs().max().item()
        ok = e == e and e <= 2 * el + 1e-3 * max(1.0, r.abs().max().item())
        failed += not ok
        print(f"{str(dtype).split('.')[-1]:<9} {d:>4} {str(causal):<6} {name:<4} {e:9.2e} {el:9.2e}  {'ok' if ok else 'FAIL'}")
print("checks:", "all passed" if failed == 0 else f"{failed} failed")
raise SystemExit(1 if failed else 0)
PY
)
crc=$?
tail -3 "$out/checks.txt"

"$py" - "$out/report.json" "$out/exec.jsonl" "$avail_gib" "$wall" "$vrc" "$crc" "$out/inspect.json" \
  > "$out/projection.txt" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
avail, wall, vrc, crc = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
cores = rep["cores"]
bound = rep["lower_bound_s"]
# Targets in the module, from kiln inspect: what the build really compiled.
targets = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("arch", "sm", "target") and isinstance(v, str): targets.add(v)
            walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
try: walk(json.load(open(sys.argv[7])))
except Exception: pass
# The default build, projected from the recorded phases (units without phases are left out and counted).
units, missing = [], 0
for r in recs:
    ph = r.get("phases")
    if not r.get("archs") or not ph or not ph.get("archs"):
        if r.get("archs"): missing += 1
        continue
    dev = sum(a.get("device_ms", 0) for a in ph["archs"].values())       # one target's cicc
    sass = sum(a.get("device_ms", 0) + a.get("ptxas_ms", 0) for a in ph["archs"].values())
    serial = ph.get("front_end_ms", 0) + ph.get("link_ms", 0) + ph.get("other_ms", 0) + ph.get("host_ms", 0)
    device = 5 * sass + dev
    units.append((serial + max(sass, device / 4), serial + device))
host_cpu = sum(max(0, r.get("cpu_ms", 0)) for r in recs if not r.get("archs"))
jobs = max(1, min(cores // 2, avail // (5 * 4)))
lanes = [0.0] * jobs
for w, _ in units:  # in the records' order; each unit on the first lane to free
    i = lanes.index(min(lanes)); lanes[i] += w
cpu = sum(c for _, c in units) + host_cpu
proj = max(max(lanes), cpu / cores) / 1000
print(f"host: {cores} cores, {avail} GiB available at the start")
print(f"kiln cold: {wall:.0f} s; bound {bound:.0f} s ({rep.get('bound_by')}); ratio {wall / bound:.2f}")
print(f"module targets (kiln inspect): {sorted(targets)}")
print(f"kiln verify exit {vrc}; checks exit {crc}")
print(f"default build projected: MAX_JOBS={jobs}, NVCC_THREADS=4, 5 SASS + 1 PTX per unit: "
      f"{cpu / 3.6e6:.1f} CPU-hours, {proj / 60:.1f} min (lanes {max(lanes) / 60000:.1f} min, "
      f"CPU / cores {cpu / cores / 60000:.1f} min); {len(units)} units with phases, {missing} without")
PY
cat "$out/projection.txt"
echo "| host | cold wall (kiln build) | bound (kiln report) | ratio | targets in the module | checks | verify | default, projected |" > "$out/row.md"
echo "|---|---|---|---|---|---|---|---|" >> "$out/row.md"
"$py" - "$out/report.json" "$wall" "$crc" "$vrc" "$out/projection.txt" >> "$out/row.md" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); wall = float(sys.argv[2])
p = open(sys.argv[5]).read().splitlines()
tg = next((l.split(": ", 1)[1] for l in p if l.startswith("module targets")), "?")
pr = next((l.split(": ", 1)[1] for l in p if l.startswith("default build projected")), "?")
print(f"| {r['cores']} cores | {wall:.0f} s | {r['lower_bound_s']:.0f} s ({r.get('bound_by')}) | "
      f"{wall / r['lower_bound_s']:.2f}x | {tg} | {'pass' if sys.argv[3] == '0' else 'FAIL'} | "
      f"exit {sys.argv[4]} | {pr} |")
PY
cat "$out/row.md"
