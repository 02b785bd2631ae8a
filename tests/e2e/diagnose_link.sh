# Real link failures: an undefined reference and a missing library.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
configure_and_build undefined && fail "the broken build succeeded"
expect_root linker.undefined-reference
"$KILN" diagnose --json "$WORK/build.log" | python3 -c "
import json,sys; c=json.load(sys.stdin)['root_cause']['captures']; assert c['symbol']=='kiln_missing_helper()', c" || fail "symbol"
configure_and_build missing-lib && fail "the broken build succeeded"
expect_root linker.cannot-find-library
"$KILN" diagnose "$WORK/build.log" | grep -q "kiln_no_such_library" || fail "library name not in the fix"
echo PASS
