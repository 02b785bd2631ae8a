#!/usr/bin/env bash
# kiln plan on a PyTorch "checkout" made of fixtures reproducing two commits' option blocks (tests/fixtures/pytorch):
# every declared option listed with value, origin and reason; a typo refused with exit 2.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
SRC=$2
need python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for c in commit-00117da6 commit-0cbc3db7; do
  cp -r "$SRC/tests/fixtures/pytorch/$c" "$T/$c"
  # USE_CUDA=0: no nvcc needed to plan; the distributed options are what this checks.
  "$KILN" plan "$T/$c" --set USE_CUDA=0 --set USE_DISTRIBUTED=0 --emit json > "$T/$c.json" || fail "$c: kiln plan exit $?"
  python3 - "$T/$c.json" "$SRC/tests/fixtures/pytorch/$c/CMakeLists.txt" <<'PY' || fail "$c: options"
import json, re, sys
plan = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# What the file declares, counted independently of kiln: option( / cmake_dependent_option( names.
declared = set(re.findall(r'(?im)^\s*(?:option|cmake_dependent_option)\(\s*([A-Z0-9_]+)', text))
got = {o["name"]: o for o in plan["options"]}
missing = declared - set(got)
assert not missing, f"not listed: {sorted(missing)}"
for name in ("USE_C10D_NCCL", "USE_TENSORPIPE", "USE_C10D_GLOO", "USE_GLOO", "USE_MPI"):
    o = got[name]
    assert o["on"] is False and o["origin"] == "dependency" and "USE_DISTRIBUTED" in o["reason"], o
for o in plan["options"]:
    assert o["origin"] and "declared_at" in o, o
assert plan["env"]["USE_DISTRIBUTED"] == "0"
print(f"{len(got)} options, {len(declared)} declared in the file; distributed ones off with reasons")
PY
done
"$KILN" plan "$T/commit-00117da6" --set USE_CUDA=0 --set USE_CUDNNN=0 > "$T/typo.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "typo: exit $rc, expected 2"
grep -q "nearest: USE_CUDNN" "$T/typo.out" || fail "typo: no nearest name: $(cat "$T/typo.out")"
"$KILN" plan "$T/commit-00117da6" --set USE_CUDA=0 --set USE_CUDNNN=0 --set-unknown --emit env > "$T/forced.env" || fail "--set-unknown refused"
# --emit env is quoted for `set -a; . FILE`: read it back the way a user would.
[ "$(set -a; . "$T/forced.env"; printf %s "${USE_CUDNNN-unset}")" = 0 ] || fail "--set-unknown did not pass the name"
echo "ok"
