# kiln diagnose as a command: exit codes, stdin, --all, --json, --context, bad input. Needs no
# CUDA: it reads logs from tests/fixtures/diagnose.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
FX=$2/tests/fixtures/diagnose
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
strip() { grep -v '^#~' "$FX/$1.log" >"$WORK/$1.log"; }

strip full-oom-killed
strip clean-build
strip cpp-extension.ninja-fallback

"$KILN" diagnose "$WORK/full-oom-killed.log" >"$WORK/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "failure log: exit $rc"
head -1 "$WORK/out" | grep -qF "[resources.compiler-killed]" || fail "root cause line: $(head -1 "$WORK/out")"
grep -q "full-oom-killed.log:5: gcc: fatal error: Killed signal terminated program cc1plus" "$WORK/out" || fail "evidence with file:line"

"$KILN" diagnose "$WORK/clean-build.log" >"$WORK/out"; rc=$?
[ $rc -eq 0 ] || fail "clean log: exit $rc"
grep -q "^no failure found" "$WORK/out" || fail "clean log text"

"$KILN" diagnose "$WORK/cpp-extension.ninja-fallback.log" >/dev/null; rc=$?
[ $rc -eq 0 ] || fail "warnings only: exit $rc, want 0"

"$KILN" diagnose - <"$WORK/full-oom-killed.log" >"$WORK/out"; rc=$?
[ $rc -eq 1 ] && grep -q "<stdin>:5:" "$WORK/out" || fail "stdin: exit $rc"
"$KILN" diagnose <"$WORK/full-oom-killed.log" >/dev/null; [ $? -eq 1 ] || fail "no argument reads stdin"

n=$("$KILN" diagnose --all "$WORK/full-oom-killed.log" | grep -c '  \[')
[ "$n" -ge 3 ] || fail "--all listed $n findings"

"$KILN" diagnose --json "$WORK/full-oom-killed.log" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['schema'] == 'kiln.diagnose/1' and d['failed'] is True, d
assert d['lines'] == 7, d['lines']
r = d['root_cause']
for k in ('id','category','severity','priority','title','line','count','captures','evidence','context','cause','fix','docs'):
    assert k in r, k
assert r['id'] == 'resources.compiler-killed' and r['line'] == 5 and r['captures']['program'] == 'cc1plus', r
assert d['findings'][0]['id'] == r['id']
" || fail "--json"

"$KILN" diagnose --context 1 "$WORK/full-oom-killed.log" | grep -q "^  > .*:5: gcc: fatal" || fail "--context marks the evidence"

err=$("$KILN" diagnose "$WORK/missing.log" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "missing.log" || fail "missing file: exit $rc: $err"
err=$("$KILN" diagnose "$WORK" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "directory" || fail "directory: exit $rc: $err"
"$KILN" diagnose --context 500 "$WORK/clean-build.log" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--context 500: exit $rc"
printf '\0\1\2binary\377\n' >"$WORK/bin.log"
"$KILN" diagnose "$WORK/bin.log" >/dev/null; rc=$?
[ $rc -eq 0 ] || fail "binary junk: exit $rc"
echo PASS
