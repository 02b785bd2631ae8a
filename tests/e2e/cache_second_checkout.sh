#!/usr/bin/env bash
# The same project checked out at two paths of different depth (issue 21), each built into its
# default build folder with one shared ccache folder: the second checkout's compiles are all cache
# hits, headers found through an absolute -I included (CCACHE_BASEDIR, CCACHE_NOHASHDIR: plan.cpp).
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
one=$work/one/p; two=$work/two/deeper/still/p
write_two_checkouts "$one" "$two"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['outcome']['cache'][sys.argv[2]])" "$1" "$2"; }
"$kiln" build "$one" --archs 80-real --cache-dir "$work/cc" --json > "$work/one.json"
[ "$(field "$work/one.json" misses)" -ge 2 ] || fail "the first checkout did not fill the cache"
"$kiln" build "$two" --archs 80-real --cache-dir "$work/cc" --json > "$work/two.json"
hits=$(field "$work/two.json" hits); misses=$(field "$work/two.json" misses)
echo "second checkout: $hits hits, $misses misses"
[ "$misses" -eq 0 ] && [ "$hits" -ge 3 ] || fail "another checkout path missed the cache"
echo PASS
