#!/usr/bin/env bash
# kiln build end to end on a generated CMake + CUDA project: a cold build, a warm build in a second
# folder served from ccache, and an incremental rebuild after touching one .cu file.
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
proj=$work/proj
write_tiny_cuda_project "$proj"
export CCACHE_DIR=$work/ccache
field() { python3 -c "import json,sys; d=json.load(open('$1')); print(eval('d' + sys.argv[1]))" "$2"; }

"$kiln" build "$proj" --archs 80-real --build-dir "$work/cold" --json > "$work/cold.json"
[ "$(field "$work/cold.json" "['outcome']['ok']")" = True ]
[ "$(field "$work/cold.json" "['outcome']['cache']['misses']")" -ge 3 ]
[ -f "$work/cold/libk.so" ] && [ -s "$work/cold/kiln-build.log" ]

"$kiln" build "$proj" --archs 80-real --build-dir "$work/warm" --json > "$work/warm.json"
hits=$(field "$work/warm.json" "['outcome']['cache']['hits']")
misses=$(field "$work/warm.json" "['outcome']['cache']['misses']")
echo "warm build: $hits hits, $misses misses"
[ "$hits" -ge 3 ] && [ "$misses" -eq 0 ]

# Touch one .cu: only its object and the links that depend on it run again.
sleep 1; touch "$proj/a.cu"
"$kiln" build "$proj" --archs 80-real --build-dir "$work/cold" --json > "$work/incr.json"
steps=$(field "$work/incr.json" "['outcome']['steps']")
echo "incremental rebuild: $steps steps"
grep -q "a.cu.o" "$work/cold/kiln-build.log"
! grep -q "b.cu.o" "$work/cold/kiln-build.log" || fail "b.cu was recompiled"
[ "$steps" -le 3 ]

# A no-op: CMake is not re-run (same arguments), and the summary says up to date, not "0% hit rate".
"$kiln" build "$proj" --archs 80-real --build-dir "$work/cold" > "$work/noop.txt" 2> "$work/noop.err"
grep -q "^up to date" "$work/noop.txt" || { cat "$work/noop.txt"; exit 1; }
! grep -q "hit rate" "$work/noop.txt" || fail "no-op build reports a hit rate"
grep -q "configure: skipped" "$work/cold/kiln-build.log"

# New arguments re-run CMake, which rewrites .ninja_log in hash order; nothing needs building.
# kiln report still profiles the latest build that ran something: the incremental one.
"$kiln" build "$proj" --archs 80-real --build-dir "$work/cold" -D KILN_E2E_UNUSED=1 --json > "$work/reconf.json"
[ "$(field "$work/reconf.json" "['outcome']['configure_skipped']")" = False ]
[ "$(field "$work/reconf.json" "['outcome']['up_to_date']")" = True ]
"$kiln" report "$work/cold" --json > "$work/report.json"
jobs=$(field "$work/report.json" "['jobs']")
echo "report after re-configure: $jobs jobs (incremental build ran $steps steps)"
[ "$jobs" -eq "$steps" ]
# Records are kept per build (issue 33): the two builds since compiled nothing, so report names the
# incremental build's cache figures from its kept record, and the earlier logs are all still there.
incr_misses=$(field "$work/incr.json" "['outcome']['cache']['misses']")
[ "$(field "$work/report.json" "['cache']['misses']")" = "$incr_misses" ] || { echo "report lost the cache figures"; exit 1; }
[ "$(field "$work/report.json" "['cache']['earlier_build']")" = True ]
"$kiln" report "$work/cold" > "$work/report.txt"
grep -q "^cache .*$incr_misses misses.*kiln-ccache-stats.1.log" "$work/report.txt" || { cat "$work/report.txt"; exit 1; }
grep -q "a.cu.o" "$work/cold/kiln-build.2.log"
grep -q "configure: skipped" "$work/cold/kiln-build.1.log"
echo "cold, warm, incremental and no-op builds behave"
