# A real build for an architecture this nvcc cannot build (sm_70 on CUDA 13): kiln diagnose must
# name nvcc.unsupported-gpu-arch with the architecture, not ninja's summary.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
nvcc --list-gpu-arch 2>/dev/null | grep -qx compute_70 && skip "this nvcc still builds sm_70"
configure_and_build arch && fail "the broken build succeeded"
expect_root nvcc.unsupported-gpu-arch
"$KILN" diagnose --json "$WORK/build.log" | python3 -c "
import json,sys; d=json.load(sys.stdin); assert d['root_cause']['captures']['arch']=='compute_70', d['root_cause']['captures']
ids=[f['id'] for f in d['findings']]; assert 'build-tool.ninja-stopped' in ids and ids[0]!='build-tool.ninja-stopped', ids" || fail "captures/order"
# The same failure through CMake's own compiler check (CMAKE_CUDA_ARCHITECTURES=70).
configure_and_build "" -DCMAKE_CUDA_ARCHITECTURES=70 && fail "configure with sm_70 succeeded"
expect_root nvcc.unsupported-gpu-arch
echo PASS
