#!/usr/bin/env bash
# Two checkouts of one project, each built into a folder outside it (issue 21): /w/x/p with
# --build-dir /w/out/one and /w/y/deeper/p with /w/elsewhere/two, one shared ccache folder. ccache's
# base_dir cannot make ../x/p/a.cu and ../../y/deeper/p/a.cu agree, so kiln configures through a
# link in the build folder (BUILD/.s, make_plan): the second checkout's compiles are all hits. A
# source edited afterwards is compiled again through the link (Ninja's depfile paths hold).
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
one=$work/x/p; two=$work/y/deeper/p
write_two_checkouts "$one" "$two"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['outcome']['cache'][sys.argv[2]])" "$1" "$2"; }
"$kiln" build "$one" --build-dir "$work/out/one" --archs 80-real --cache-dir "$work/cc" --json > "$work/one.json"
[ "$(field "$work/one.json" misses)" -ge 2 ] || fail "the first checkout did not fill the cache"
[ -L "$work/out/one/.s" ] || fail "no source link in the build folder"
"$kiln" build "$two" --build-dir "$work/elsewhere/two" --archs 80-real --cache-dir "$work/cc" --json > "$work/two.json"
hits=$(field "$work/two.json" hits); misses=$(field "$work/two.json" misses)
echo "second checkout, build folder outside it: $hits hits, $misses misses"
[ "$misses" -eq 0 ] && [ "$hits" -ge 3 ] || fail "another checkout built outside missed the cache"
# An edit in the second checkout is seen through the link: rebuilt, and a miss.
echo '__global__ void kc(float* p) { p[0] = 3.f; }' >> "$two/b.cu"
"$kiln" build "$two" --build-dir "$work/elsewhere/two" --archs 80-real --cache-dir "$work/cc" --json > "$work/three.json"
[ "$(field "$work/three.json" misses)" -ge 1 ] || fail "an edited source was not compiled again"
echo PASS
