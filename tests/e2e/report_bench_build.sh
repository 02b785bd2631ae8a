#!/usr/bin/env bash
# kiln report on a real kiln build of a generated CUDA project (with nvcc --time, so time per
# architecture is measured), then kiln bench over archs x cache on the same project.
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
proj=$work/proj
write_tiny_cuda_project "$proj"
export CCACHE_DIR=$work/ccache
b=$work/b
"$kiln" build "$proj" --archs "80-real;90-real" --build-dir "$b" -D "CMAKE_CUDA_FLAGS=--time=$b/kiln-nvcc-time.csv" > /dev/null
"$kiln" report "$b" --cores 2 --json > "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["jobs"] == 5, d["jobs"]
cp = d["critical_path"]
assert cp["from_graph"], cp
names = [u["name"] for u in cp["units"]]
assert names[-1] == "t" and "libk.so" in names and names[0].endswith(".cu.o"), names
assert d["schema"] == "kiln.report/1", d["schema"]
# The bound counts what splitting could do: the critical path with device phases over the cores,
# when kiln exec recorded them (here the project's own --time wins, so they may be absent).
split_cp = d["split_critical_path_s"]
assert cp["duration_s"] > 0 and d["lower_bound_s"] >= (split_cp if split_cp is not None else cp["duration_s"]), d
assert split_cp is None or split_cp <= cp["duration_s"], d
assert d["cores_source"] == "--cores", d["cores_source"]
assert abs(d["efficiency"] - d["makespan_s"] / d["lower_bound_s"]) < 0.01
assert d["cache"] is not None and d["cache"]["misses"] >= 3, d["cache"]
archs = {a["arch"]: a for a in d["architectures"]["archs"]}
assert d["architectures"]["method"] == "nvcc --time", d["architectures"]
assert set(archs) == {"sm_80", "sm_90"} and all(a["units"] == 2 and a["duration_s"] > 0 for a in archs.values()), archs
print("report: makespan %.2fs, critical path %.2fs, efficiency %.2f" % (d["makespan_s"], cp["duration_s"], d["efficiency"]))
PY
"$kiln" report "$b" | grep -q "time per architecture (nvcc --time)"

# A folder that is not a build folder: one clear line, exit 1.
if "$kiln" report "$proj" 2> "$work/err.txt"; then echo "report of a source folder succeeded"; exit 1; fi
grep -q "has no .ninja_log" "$work/err.txt"

"$kiln" bench "$proj" --matrix archs=80-real,80-real+90-real --matrix cache=cold,warm --bench-dir "$work/bench" \
  --cost-per-hour 2 --json > "$work/bench.json" 2> "$work/bench.err"
python3 - "$work/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {c["label"]: c for c in d["configs"]}
assert list(rows) == ["archs=80-real cache=cold", "archs=80-real cache=warm",
                      "archs=80-real+90-real cache=cold", "archs=80-real+90-real cache=warm"], list(rows)
for label, c in rows.items():
    assert c["ok_runs"] == 1, (label, c["runs"])
    assert c["libraries"]["libk.so"] > 0
    assert c["cost_usd"] > 0
    hit = c["median_hit_rate"]
    assert (hit == 0.0) if "cold" in label else (hit == 1.0), (label, hit)
    assert c["runs"][0]["build_dir"].startswith(d["bench_dir"])
# Two architectures put two cubins in the library.
assert rows["archs=80-real+90-real cache=cold"]["libraries"]["libk.so"] > rows["archs=80-real cache=cold"]["libraries"]["libk.so"]
assert d["schema"] == "kiln.bench/1", d["schema"]
print("bench:", [(l, c["median_s"]) for l, c in rows.items()])
PY
# The project's own build (cmake -S -B, cmake --build with CMake's defaults) beside Make against
# Ninja without a cache: all build; only Ninja has a critical path; no hit rate; each row says how
# it compares with the default.
if command -v make >/dev/null; then
  "$kiln" bench "$proj" --matrix build=default,kiln --matrix generator=Make,Ninja --matrix cache=off --matrix archs=80-real \
    --bench-dir "$work/bench2" --json > "$work/bench2.json" 2> "$work/bench2.err"
  python3 - "$work/bench2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
default, make, ninja = d["configs"]
assert default["label"] == "project default" and default["ok_runs"] == 1, default
assert default["libraries"]["libk.so"] > 0 and default["speedup_vs_default"] == 1.0, default
assert make["speedup_vs_default"] > 0 and ninja["speedup_vs_default"] > 0
assert make["config"]["generator"] == "Make" and make["ok_runs"] == 1, make
assert ninja["config"]["generator"] == "Ninja" and ninja["ok_runs"] == 1, ninja
assert make["median_critical_path_s"] is None and ninja["median_critical_path_s"] > 0
assert make["median_hit_rate"] is None and make["runs"][0]["cache"] is None
assert make["libraries"]["libk.so"] > 0
print("make %.1fs, ninja %.1fs" % (make["median_s"], ninja["median_s"]))
PY
fi
"$kiln" bench "$proj" --matrix cache=lukewarm 2> "$work/usage.txt" && exit 1
grep -q "not cold, warm or off" "$work/usage.txt"
echo "report and bench work on a real build"
