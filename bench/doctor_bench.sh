#!/usr/bin/env bash
# Times `kiln doctor` (no --deep) end to end. Uses hyperfine when installed, else a loop timed with
# date +%s.%N. Usage: bench/doctor_bench.sh [path/to/kiln] [runs] [extra doctor args...]
# Prints mean / min / max wall time in milliseconds.
set -eu
kiln=${1:-build/kiln}
runs=${2:-20}
shift $(( $# >= 2 ? 2 : $# ))
[ -x "$kiln" ] || { echo "doctor_bench: $kiln is not an executable (build kiln first)" >&2; exit 2; }
"$kiln" doctor "$@" >/dev/null || true   # warm the page cache; exit 1 (findings) is fine here
if command -v hyperfine >/dev/null; then
  # -i: doctor exits 1 when it finds an error, which is a result, not a failed benchmark.
  hyperfine -N -i --warmup 3 --runs "$runs" --export-json /tmp/kiln_doctor_bench.json \
    "$kiln doctor $*" >/dev/null
  python3 - <<'PY' 2>/dev/null || cat /tmp/kiln_doctor_bench.json
import json
r = json.load(open("/tmp/kiln_doctor_bench.json"))["results"][0]
print("tool=hyperfine runs=%d mean_ms=%.1f stddev_ms=%.1f min_ms=%.1f max_ms=%.1f" % (
    len(r["times"]), r["mean"] * 1e3, (r["stddev"] or 0) * 1e3, r["min"] * 1e3, r["max"] * 1e3))
PY
else
  total=0 min= max=
  for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    "$kiln" doctor "$@" >/dev/null || true
    t1=$(date +%s.%N)
    ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
    total=$(awk -v t="$total" -v m="$ms" 'BEGIN { print t + m }')
    min=$(awk -v x="${min:-$ms}" -v m="$ms" 'BEGIN { print (m < x ? m : x) }')
    max=$(awk -v x="${max:-$ms}" -v m="$ms" 'BEGIN { print (m > x ? m : x) }')
  done
  awk -v t="$total" -v n="$runs" -v lo="$min" -v hi="$max" \
    'BEGIN { printf "tool=date-loop runs=%d mean_ms=%.1f min_ms=%s max_ms=%s\n", n, t / n, lo, hi }'
fi
