#!/usr/bin/env bash
# flash-attention 2 through `kiln build --slurm` on a local Slurm cluster on this host (issue 35),
# against the same build on the host alone and against `kiln report --simulate`'s projection:
#   1. a cluster of NODES slurmd nodes on this host (munged, slurmctld and one `slurmd -N nI` each,
#      tests/e2e/lib/slurm_cluster.sh), each node given its share of the cores and of 90% of the
#      memory (CPUs=, RealMemory=): Slurm never places more than that on a node, though the steps are
#      not pinned (TaskPlugin=task/none: every node's steps share this host's cores);
#   2. bench/flash_attention.sh on the host alone (cold, empty caches, nothing set by hand) -> OUT/local;
#   3. `kiln report` of that build with `--simulate NODESxCPUSxMEM`: the projection made before the run;
#   4. bench/flash_attention.sh again, as `salloc -N NODES --ntasks-per-node=1 -c CPUS --mem=MEM
#      --no-kill kiln build ... --slurm` (cold, a fresh copy, empty caches) -> OUT/slurm;
#   5. OUT/summary.txt: both walls, the cluster's against the host's (issue 35: within 1.2x), and the
#      projection's error against the cluster run (issue 35: within 15%).
# usage: bench/device/slurm_fa.sh KILN PYTHON CHECKOUT OUT [NODES] [GPU]
#   CHECKOUT: flash-attention 2 with cutlass in csrc/cutlass, possibly cut by bench/fa_cut.py (then
#   set KILN_BENCH_FA_HDIMS to the head dims kept). Needs root and Slurm's daemons (exit 77 otherwise):
#   on the GPU host, bench/device/slurm_install.sh with the tarball bench/device/slurm_pack.sh made
#   here, and KILN_SLURM_CGROUP=CgroupPlugin=cgroup/v1 (its cgroup v2 fails slurmd's default plugin).
# KILN_BENCH_LOCAL=DIR skips steps 2 and 3: DIR holds an earlier run's local/ and simulate.{txt,json}
#   (the single-host build of an earlier session, projected with --simulate before this run).
set -u
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=$(readlink -f "$4")
nodes=${5:-2}; gpu=${6:-h100}
here="$(cd "$(dirname "$0")" && pwd)"
repo="$here/../.."
. "$repo/tests/e2e/lib/common.sh"
. "$repo/tests/e2e/lib/slurm_cluster.sh"
slurm_cluster_need
mkdir -p "$out"

cpus=$(( $(nproc) / nodes ))
mem=$(awk -v n="$nodes" '/^MemTotal/ {printf "%d", $2 / 1024 * 0.9 / n}' /proc/meminfo)
work=$(mktemp -d /tmp/kiln-slurm-fa.XXXXXX)
chmod 755 "$work"
trap 'slurm_cluster_stop "$work"; cp "$work"/*.log "$out/" 2>/dev/null' EXIT
base=$(( 42000 + ($$ % 1500) * 8 ))
slurm_cluster_conf "$work" "$base"
names=()
for i in $(seq 1 "$nodes"); do
  names+=("n$i")
  echo "NodeName=n$i NodeHostname=localhost Port=$((base + i)) CPUs=$cpus RealMemory=$mem State=UNKNOWN" >> "$SLURM_CONF"
done
echo "PartitionName=main Nodes=$(IFS=,; echo "${names[*]}") Default=YES MaxTime=INFINITE State=UP" >> "$SLURM_CONF"
slurm_cluster_start "$work" "$nodes" "${names[@]}"
shape="${nodes}x${cpus}x$((mem / 1024))G"
{ echo "cluster: $nodes nodes x $cpus CPUs x $mem MiB ($shape) on $(nproc) cores"
  sinfo -N -o '%N %c %m %t'
  srun -N "$nodes" --ntasks-per-node=1 hostname; } > "$out/cluster.txt" 2>&1 || { cat "$out/cluster.txt"; fail "the cluster does not run a step"; }
cat "$out/cluster.txt"

# Both builds start from the same page cache: the toolkit's compilers, torch's and the checkout's
# headers and `import torch` read once first. In Sessions 15 and 16 the host-alone build, always the
# first, used 6-22% more CPU per unit than the cluster's after it (on the same 16 cores).
nvcc_bin=$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
torch_inc=$("$py" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))' 2>/dev/null)
find "$nvcc_bin" "$nvcc_bin/../nvvm" "$nvcc_bin/../include" ${torch_inc:+"$torch_inc"} "$src/csrc" -type f \
  -size -200M -exec cat {} + > /dev/null 2>&1
echo "page cache: toolkit, torch and checkout headers read once ($(date +%s))" >> "$out/cluster.txt"

if [ -n "${KILN_BENCH_LOCAL:-}" ]; then
  # The host-alone half from an earlier session (the whole project is two builds of about 15
  # minutes on 32 cores, past one session's device time): its OUT (local/projection.txt,
  # local/checks.txt) and the projection `kiln report --simulate` made from its record beforehand.
  cp -r "$KILN_BENCH_LOCAL/local" "$out/local"
  cp "$KILN_BENCH_LOCAL/simulate.txt" "$KILN_BENCH_LOCAL/simulate.json" "$out/"
  echo "local: from $KILN_BENCH_LOCAL ($(head -2 "$out/local/projection.txt" | tail -1))"
else
  KILN_BENCH_WORK=$work/local bash "$repo/bench/flash_attention.sh" "$kiln" "$py" "$src" "$out/local" "$gpu" \
    > "$out/local.stdout" 2>&1
  echo "local: $(head -2 "$out/local/projection.txt" 2>/dev/null | tail -1)"
  "$kiln" report "$work/local/flash-attention" --simulate "$shape" > "$out/simulate.txt" 2>&1
  "$kiln" report "$work/local/flash-attention" --simulate "$shape" --json > "$out/simulate.json" 2>/dev/null
fi

KILN_BENCH_WORK=$work/slurm KILN_BENCH_SALLOC="-N $nodes --ntasks-per-node=1 -c $cpus --mem=$mem --no-kill" \
  bash "$repo/bench/flash_attention.sh" "$kiln" "$py" "$src" "$out/slurm" "$gpu" > "$out/slurm.stdout" 2>&1
"$kiln" report "$work/slurm/flash-attention" > "$out/slurm-report.txt" 2>&1
# What `kiln report` reads of both builds (Ninja logs and graphs, kiln's records; kiln-build.json points the
# report at the exec log), to replay later at the same path (the records name their files absolutely).
(cd "$work" && find local slurm -path '*/flash-attention/build*' \( -name .ninja_log -o -name build.ninja \
  -o -name 'kiln-exec.jsonl' -o -name 'kiln-build.json' -o -path '*/.kiln/*' \) -type f -size -20M | tar -czf "$out/records.tgz" -T -)

"$py" - "$out" <<'PY' | tee "$out/summary.txt"
import json, re, sys
out = sys.argv[1]
def wall(run):
    try:
        m = re.search(r"kiln cold: (\d+) s", open(f"{out}/{run}/projection.txt").read())
    except OSError:
        return None
    return float(m.group(1)) if m else None
def first(path, pat):
    try:
        m = re.search(pat, open(path).read())
        return m.group(0) if m else "?"
    except OSError:
        return "missing"
local, slurm = wall("local"), wall("slurm")
sim = json.load(open(f"{out}/simulate.json"))["simulate"][0]
print(f"local (this host alone): {local} s; checks: {first(f'{out}/local/checks.txt', 'checks: .*')}")
print(f"slurm ({sim['shape']}): {slurm} s; checks: {first(f'{out}/slurm/checks.txt', 'checks: .*')}")
if local and slurm:
    print(f"slurm / local: {slurm / local:.2f}x (issue 35: within 1.2x)")
    print(f"--simulate {sim['shape']} from the local record: {sim['wall_s']:.0f} s; "
          f"against the cluster run: {(sim['wall_s'] - slurm) / slurm:+.1%} (issue 35: within 15%)")
PY
