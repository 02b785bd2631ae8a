# Real configuration failures: a missing package and an empty architecture list; plus a clean
# build, which must be reported as no failure (exit 0).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
configure_and_build package && fail "the broken configure succeeded"
expect_root cmake.package-config-not-found
configure_and_build "" -DCMAKE_CUDA_ARCHITECTURES= && fail "configure with empty architectures succeeded"
expect_root cmake.empty-cuda-architectures
configure_and_build "" || { cat "$WORK/build.log"; fail "the unbroken example does not build"; }
"$KILN" diagnose "$WORK/build.log"; rc=$?
[ $rc -eq 0 ] || fail "clean build log: exit $rc, want 0"
# stdin works too, and a missing file is a one-line usage error.
"$KILN" diagnose - <"$WORK/build.log" >/dev/null || fail "stdin"
err=$("$KILN" diagnose "$WORK/no-such.log" 2>&1); rc=$?
[ $rc -eq 2 ] && [ $(echo "$err" | wc -l) -eq 1 ] || fail "missing file: rc $rc: $err"
echo PASS
