# Real C++ errors in a .cu file (a missing semicolon; an undeclared identifier): kiln diagnose
# names the file and line of the first error.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
configure_and_build syntax && fail "the broken build succeeded"
expect_root nvcc.compile-error
"$KILN" diagnose --json "$WORK/build.log" | python3 -c "
import json,sys; c=json.load(sys.stdin)['root_cause']['captures']
assert c['file'].endswith('kernel.cu') and c['message']=='expected a \";\"' and 7 <= int(c['line']) <= 14, c" || fail "file/line captures"
configure_and_build undeclared && fail "the broken build succeeded"
expect_root nvcc.identifier-undefined
"$KILN" diagnose --json "$WORK/build.log" | python3 -c "
import json,sys; c=json.load(sys.stdin)['root_cause']['captures']
assert c['identifier']=='undeclared_offset' and c['line']=='9', c" || fail "identifier capture"
echo PASS
