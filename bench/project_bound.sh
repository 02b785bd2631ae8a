#!/usr/bin/env bash
# A whole torch extension project, cold, against its bound (issue 19), one project per call:
#   1. a fresh copy of CHECKOUT, empty ccache, empty kiln cache (no history, no kept wheel), no
#      variable set by hand: `kiln build COPY --gpu GPU --prune-archs` (kiln sets the project's knobs);
#   2. `kiln report COPY` (the project folder, as kiln build printed it: every extension's Ninja
#      log and the launcher's records);
#   3. the longest unit compiled alone on the now idle machine, with --split-compile=<cores> and
#      --threads=0 (every architecture, and the host side, in a lane of its own: the best kiln's
#      grants could do alone); its nvcc phases and CPU time go to alone.jsonl (kiln exec's record)
#      (measured, not estimated): its command from its Ninja folder, kiln's compiler wrappers
#      replaced by the real compilers, nvcc's architectures pruned by `kiln exec` as in the build.
# Prints the bound, max(total compile CPU / cores, longest unit alone), both figures, and the ratio
# cold wall / bound, as a Markdown row for docs/benchmarks.md. Writes OUT/{build.log,report.txt,
# report.json,exec.jsonl,alone.log,alone.cmd,alone.jsonl,row.md,grants.txt,timeline.txt,start.txt,host.txt} (grants.txt: what kiln exec gave each unit
# and why, in launch order).
# KILN_BENCH_BUILD_ARGS: more `kiln build` flags, split at spaces (an A/B of --no-split, --cpu-share).
# KILN_BENCH_ALONE=0 skips step 3 (the row's bound is then only "at least" the CPU part).
# KILN_BENCH_DEADLINE (unix seconds), when set, bounds step 3: the unit alone is stopped there and
# the row says "> N s (cut)" (bench/gpu_issue19.sh runs two projects in one device call).
# usage: bench/project_bound.sh KILN PYTHON CHECKOUT OUT [GPU]
#   e.g. bench/project_bound.sh ./kiln python3 ~/mamba /tmp/out-mamba
# On the H100 host: mamba-style (one extension, ten .cu units) ~3 min; pytorch_scatter (8
# extensions) and apex (its C++ and CUDA extensions) may take longer: give each its own call.
set -u
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=$(readlink -f "$4"); gpu=${5:-h100}
mkdir -p "$out"
# host.txt: the CPUs behind "cores". If two of them share a physical core (SMT), a unit's serial
# chain beside a busy sibling runs slower than alone (mamba's complex units: cicc 50-54 s in the
# build, 38 s alone), whatever the scheduler gives it.
{ echo "nproc $(nproc)"; grep -m1 'model name' /proc/cpuinfo
  echo "cpu0 siblings $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
  lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket|CPU max MHz|CPU MHz)'; } > "$out/host.txt" 2>&1
measure="$(cd "$(dirname "$0")" && pwd)/measure.py"
work=$(mktemp -d /tmp/kiln-bound-XXXX)
# KILN_BENCH_XDG: a kiln user cache to keep between runs (what kiln learned of each unit), for a
# second cold build from a fresh path (bench/history_second_build.sh); ccache always starts empty.
export CCACHE_DIR=$work/ccache XDG_CACHE_HOME=${KILN_BENCH_XDG:-$work/xdg}
proj=$work/$(basename "$src")
cp -r "$src" "$proj" && rm -rf "$proj/build" "$proj/build-kiln" "$proj"/*.egg-info

# timeline.txt: each line of kiln's build log (the backend's output) after the unix time it appeared
# (start.txt: when kiln build started), to see where the time outside the compiles goes.
t0=$EPOCHREALTIME
(while [ ! -f "$proj/build-kiln/kiln-build.log" ]; do sleep 0.05; done
 exec tail -F -n +1 "$proj/build-kiln/kiln-build.log" 2>/dev/null) |
  while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done > "$out/timeline.txt" &
read -r -a extra <<< "${KILN_BENCH_BUILD_ARGS:-}"
read -r wall rss rc < <(cd "$work" && "$py" "$measure" "$kiln" build "$proj" --gpu "$gpu" --prune-archs --python "$py" "${extra[@]}")
echo "$EPOCHREALTIME kiln build exited" >> "$out/timeline.txt"
pkill -f "tail -F -n \+1 $proj/build-kiln/kiln-build.log" 2>/dev/null
echo "$t0" > "$out/start.txt"
cp "$work/build.log" "$out/build.log"
tail -12 "$out/build.log"
[ "$rc" = 0 ] || { echo "kiln build exited $rc: see $out/build.log and $proj/build-kiln/kiln-build.log"; exit 1; }
"$kiln" report "$proj" > "$out/report.txt" 2>&1
"$kiln" report "$proj" --json > "$out/report.json" 2>/dev/null
cp "$proj/build-kiln/kiln-exec.jsonl" "$out/exec.jsonl" 2>/dev/null
sed -n 1,12p "$out/report.txt"
"$py" - "$out/exec.jsonl" > "$out/grants.txt" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t0 = min((r["start_ms"] for r in rs), default=0)
print(f"{'start':>6} {'wall':>6} {'cpu':>6} {'cores':>5} {'split':>5} {'nice':>4}  {'unit':<40} why")
for r in sorted(rs, key=lambda r: r["start_ms"]):
    print(f"{(r['start_ms'] - t0) / 1000:6.1f} {r['wall_ms'] / 1000:6.1f} {max(0, r.get('cpu_ms', 0)) / 1000:6.1f} "
          f"{r.get('cores', 1):5} {r.get('split', 0):5} {r.get('nice', 0):4}  {'/'.join(r['output'].split('/')[-2:]):<40} {r.get('grant', '')}")
PY
cat "$out/grants.txt"

# The longest unit (by CPU time in the launcher's records) and its command from its Ninja folder.
read -r unit cores cpu makespan < <("$py" - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
top = max(r["slowest_units"], key=lambda u: u.get("cpu_s") or u["duration_s"])
print(top["name"], r["cores"], r["total_cpu_s"], r["makespan_s"])
PY
)
# Ninja ran in build_temp (build-kiln/setuptools/temp.*, kiln build's own folder since the wheel
# backend runs there) with -f kiln-ninja/<extension>/build.ninja (data/parallel_extensions.py);
# a CMake or plain torch build runs in the Ninja file's own folder.
cmd="" cwd=""
for f in $(find "$proj/build-kiln" "$proj/build" -name build.ninja 2>/dev/null); do
  d=$(dirname "$f")
  c=$(ninja -C "$d" -t commands "$unit" 2>/dev/null | tail -1)
  [ -n "$c" ] || continue
  cmd=$c
  case $d in */kiln-ninja/*) cwd=${d%/kiln-ninja/*};; *) cwd=$d;; esac
  break
done
[ -n "$cmd" ] || { echo "no Ninja file under $proj/build-kiln or $proj/build builds $unit"; exit 1; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmd=${cmd//$proj\/build-kiln\/.kiln\/bin\/nvcc/$nvcc}
cmd=${cmd//$proj\/build-kiln\/.kiln\/bin\/c++/c++}
# The same architectures as the build compiled: a project that hard-codes its -gencode list (mamba:
# nine) had them pruned by kiln exec to the planned ones (--prune-archs), so the unit alone runs
# through kiln exec with the plan's list too, and no governor split of its own (NVCC_APPEND_FLAGS).
archs=$("$kiln" plan "$proj" --gpu "$gpu" --prune-archs --python "$py" --json 2>/dev/null |
  "$py" -c "import json, sys; print(json.load(sys.stdin)['archs']['cmake'])" 2>/dev/null)
case $cmd in "$nvcc "*) [ -n "$archs" ] && cmd="KILN_PRUNE_ARCHS='$archs' $(printf '%q' "$kiln") exec -- $cmd";; esac
echo "unit alone: ${cmd:0:300}" > "$out/alone.cmd"
(cd "$cwd" && rm -f "$unit")
limit=100000
[ -n "${KILN_BENCH_DEADLINE:-}" ] && limit=$((KILN_BENCH_DEADLINE - $(date +%s)))
[ "$limit" -gt 5 ] || limit=5
start=$(date +%s.%N)
if [ "${KILN_BENCH_ALONE:-1}" = 0 ]; then
  # Not measured (an A/B run of another binary on the same project measures it once): the bound is
  # then at least the CPU part, so the ratio is at most the one printed ("<=").
  echo "not measured (KILN_BENCH_ALONE=0)" > "$out/alone.log"
  arc=skip
else
(cd "$cwd" && KILN_EXEC_LOG="$out/alone.jsonl" KILN_NVCC_TIME="$work/alone-time" \
  NVCC_APPEND_FLAGS="--split-compile=$cores --threads=0" timeout "$limit" bash -c "$cmd") > "$out/alone.log" 2>&1
arc=$?
fi
cut=""
[ "$arc" = 124 ] && cut=cut
[ "$arc" = skip ] && cut=skip
[ "$arc" = 0 ] || [ -n "$cut" ] || { echo "the unit alone failed: $out/alone.log"; exit 1; }
alone=$("$py" -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" "$(date +%s.%N)" "$start")
[ "$cut" = skip ] && alone=0

"$py" - "$wall" "$cpu" "$cores" "$alone" "$makespan" "$unit" "$(basename "$src")" "$cut" <<'PY' | tee "$out/row.md"
import sys
wall, cpu, cores, alone, makespan = (float(x) for x in sys.argv[1:6])
unit, name, cut = sys.argv[6], sys.argv[7], sys.argv[8]
bound = max(cpu / cores, alone)
print("| project | cold wall (kiln build) | compiles (kiln report) | compile CPU / cores | longest unit alone (split) | bound | ratio |")
print("|---|---|---|---|---|---|---|")
alone_cell = (f"not measured ({unit.rsplit('/', 1)[-1]})" if cut == "skip" else
              f"{'> ' if cut else ''}{alone:.0f} s ({unit.rsplit('/', 1)[-1]}{', cut at the deadline' if cut else ''})")
print(f"| {name} | {wall:.0f} s | {makespan:.0f} s | {cpu:.0f} s / {cores:.0f} = {cpu / cores:.0f} s "
      f"| {alone_cell} | {'>= ' if cut == 'skip' else '> ' if cut else ''}{bound:.0f} s "
      f"| {'<= ' if cut == 'skip' else '< ' if cut else ''}{wall / bound:.2f}x |")
PY
rm -rf "$work"
