#!/usr/bin/env bash
# kiln build --slurm on a real local Slurm cluster: munged, slurmctld and three slurmd nodes on
# this machine (n1, n2; n3 started in its own mount namespace where the build folder is hidden).
# It builds the bundled example and a multi-unit project through it and proves from kiln-exec.jsonl
# that units ran on both nodes and that the objects equal a local build's; then the faults: Ctrl-C
# leaves no step and no compile; a node whose slurmd and steps are killed mid-build has its units
# retried on the other; a node that does not see the build folder stops the build before the first
# unit with an error naming it. Needs root (slurmd) and Slurm's daemons; exit 77 otherwise.
# Usage: slurm_cluster.sh KILN SOURCE_DIR
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/slurm_cluster.sh"
kiln=$1
src=$2
need munged slurmctld slurmd srun salloc sinfo squeue scancel scontrol cmake ninja c++ unshare
[ "$(id -u)" = 0 ] || skip "slurmd needs root"
unshare -m --propagation private true 2>/dev/null || skip "no mount namespaces (unshare -m)"

work=$(mktemp -d /tmp/kiln-slurm.XXXXXX)
chmod 755 "$work"
cleanup() { slurm_cluster_stop "$work"; rm -rf "$work"; }
trap cleanup EXIT

# --- the cluster ------------------------------------------------------------------------------
base=$(( 20000 + ($$ % 4000) * 8 ))
mkdir -p "$work/hidden"
slurm_cluster_conf "$work" "$base"
cat >> "$SLURM_CONF" <<CONF
NodeName=n1 NodeHostname=localhost Port=$((base + 1)) CPUs=2 RealMemory=16000 State=UNKNOWN
NodeName=n2 NodeHostname=localhost Port=$((base + 2)) CPUs=2 RealMemory=16000 State=UNKNOWN
NodeName=n3 NodeHostname=localhost Port=$((base + 3)) CPUs=2 RealMemory=16000 State=UNKNOWN
PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
PartitionName=hid Nodes=n1,n3 MaxTime=INFINITE State=UP
CONF
slurm_cluster_daemons "$work"
slurmd -N n1
slurmd -N n2
# n3 sees everything but $work/hidden, which a tmpfs covers in its mount namespace.
unshare -m --propagation private sh -c 'mount -t tmpfs kiln-hidden "$1" && exec slurmd -N n3' sh "$work/hidden"
slurm_cluster_wait "$work" 3
alloc=(salloc -N2 --ntasks-per-node=1 -c2 --mem=12000 --no-kill -Q)

nodes_of() { python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l).get("node","?") for l in open(sys.argv[1])})))' "$1"; }
same_objects() {  # every object of build $1 equals build $2's
  local n=0
  while IFS= read -r o; do
    cmp -s "$1/$o" "$2/$o" || fail "$o differs between the Slurm build and the local build"
    n=$((n + 1))
  done < <(cd "$1" && find . -name '*.o' | sort)
  [ "$n" -gt 0 ] || fail "no objects in $1"
  echo "${SECONDS}s: $n objects equal a local build's"
}

# --- a multi-unit project, compiled for real on both sides (no cache) ---------------------------
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(p LANGUAGES CXX)\nfile(GLOB u unit_*.cpp)\nadd_library(p SHARED ${u})\n' \
  > "$work/p/CMakeLists.txt"
for i in $(seq 1 8); do printf 'int f%d(int x) { return x * %d + 1; }\n' "$i" "$i" > "$work/p/unit_$i.cpp"; done
# A compiler that takes a while, so several steps run at once (and a fault can find them running).
cat > "$work/slowcc" <<SH
#!/bin/sh
d=\$(cat "$work/delay" 2>/dev/null || echo 0)
case " \$* " in *unit_*) [ "\$d" = 0 ] || sleep "\$d";; esac
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
echo 1 > "$work/delay"
build_p() { "$kiln" build "$work/p" --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" "$@"; }
# Through kiln.toml's key ([build] slurm = true) here; --slurm and KILN_SLURM=1 below.
printf '[build]\nslurm = true\n' > "$work/kiln.toml"
"${alloc[@]}" "$kiln" build "$work/p" --config "$work/kiln.toml" --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" \
  --build-dir "$work/p-slurm" > "$work/out" 2> "$work/err" || { cat "$work/err"; fail "the Slurm build of the multi-unit project failed"; }
[ "$(grep -c '^kiln: --slurm: CMakeFiles/p.dir/unit_[0-9].cpp.o ran on n[12]$' "$work/p-slurm/kiln-build.log")" = 8 ] \
  || { grep '^kiln' "$work/p-slurm/kiln-build.log"; fail "the build log does not name each unit's node"; }
grep '^kiln: --slurm: units per node' "$work/p-slurm/kiln-build.log"
[ "$(nodes_of "$work/p-slurm/kiln-exec.jsonl")" = "n1 n2" ] || fail "units did not run on both nodes: $(nodes_of "$work/p-slurm/kiln-exec.jsonl")"
grep -q "Slurm job .*2 node(s), 4 CPUs" "$work/err" || fail "Ninja's -j is not the allocation's"
echo 0 > "$work/delay"
build_p --build-dir "$work/p-local" > /dev/null 2>&1 || fail "the local build failed"
same_objects "$work/p-slurm" "$work/p-local"

# --- the bundled example, one architecture ------------------------------------------------------
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  "${alloc[@]}" "$kiln" build "$src/examples/minitorch" --slurm --archs 90-real --build-dir "$work/mt-slurm" \
    > "$work/out" 2> "$work/err" || { tail -20 "$work/err"; fail "the Slurm build of the example failed"; }
  [ "$(nodes_of "$work/mt-slurm/kiln-exec.jsonl")" = "n1 n2" ] || fail "the example's units did not run on both nodes"
  "$kiln" build "$src/examples/minitorch" --archs 90-real --build-dir "$work/mt-local" > /dev/null 2>&1 || fail "local example build"
  same_objects "$work/mt-slurm" "$work/mt-local"
else
  echo "note: nvcc not found, the example was not built"
fi

# --- Ctrl-C: every step cancelled, no compile left ----------------------------------------------
echo 30 > "$work/delay"
cat > "$work/interrupt.sh" <<SH
"$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-int" > "$work/int.out" 2> "$work/int.err" &
k=\$!
for _ in \$(seq 1 100); do [ "\$(squeue -h -s -j \$SLURM_JOB_ID -o %j | grep -c '^kiln-[0-9]')" -ge 2 ] && break; sleep 0.2; done
[ "\$(squeue -h -s -j \$SLURM_JOB_ID -o %j | grep -c '^kiln-[0-9]')" -ge 2 ] || { echo "no steps started"; exit 3; }
kill -INT \$k
wait \$k; echo "kiln exited \$?"
squeue -h -s -j \$SLURM_JOB_ID -o '%i %j' | grep ' kiln-[0-9]' && { echo "steps left"; exit 4; }
exit 0
SH
"${alloc[@]}" bash "$work/interrupt.sh" > "$work/int.log" 2>&1 \
  || { cat "$work/int.log" "$work/int.err"; grep '^kiln' "$work/p-int/kiln-build.log"; fail "Ctrl-C left steps"; }
grep -q "kiln exited 130" "$work/int.log" || { cat "$work/int.log" "$work/int.err"; fail "kiln build did not exit 130 on Ctrl-C"; }
pgrep -f "$work/slowcc" > /dev/null && { ps -eo pid,ppid,pgid,stat,etimes,args | grep -E "slowcc|slurmstepd|kiln exec|srun|sleep" | grep -v grep; cat "$work/int.log" "$work/int.err"; grep "^kiln" "$work/p-int/kiln-build.log"; fail "a compile outlived Ctrl-C"; }
echo "Ctrl-C: kiln exited 130, no step left in squeue, no compile left"
grep '^kiln' "$work/p-int/kiln-build.log" || true

# --- the allocation ends mid-build: a clear stop, no half-written object, a rerun resumes ---------
echo 8 > "$work/delay"
cat > "$work/end.sh" <<SH
"$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-end" > "$work/end.out" 2> "$work/end.err" &
k=\$!
for _ in \$(seq 1 150); do [ "\$(ls "$work"/p-end/CMakeFiles/p.dir/*.o 2>/dev/null | wc -l)" -ge 4 ] && [ "\$(squeue -h -s -j \$SLURM_JOB_ID -o %j | grep -c '^kiln-[0-9]')" -ge 2 ] && break; sleep 0.2; done
scancel \$SLURM_JOB_ID
wait \$k; echo "kiln exited \$?"
SH
salloc -N2 --ntasks-per-node=1 -c2 --mem=12000 --no-kill -Q bash "$work/end.sh" > "$work/end.log" 2>&1 || true
grep -q "kiln exited 1" "$work/end.log" || { cat "$work/end.log" "$work/end.err"; fail "the build did not stop when its allocation ended"; }
grep -q "the Slurm allocation [0-9]* has ended" "$work/end.err" || { tail "$work/end.err"; fail "no clear message for the ended allocation"; }
done_before=$(grep -c 'ran on n[12]$' "$work/p-end/kiln-build.log" || true)
[ "$(ls "$work"/p-end/CMakeFiles/p.dir/*.o | wc -l)" = "$done_before" ] || fail "objects of unfinished units were left behind"
echo 0 > "$work/delay"
"${alloc[@]}" "$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-end" \
  > /dev/null 2> "$work/end.err" || { cat "$work/end.err"; fail "the rerun in a new allocation failed"; }
# kiln-build.log is this build's alone: it names only the units the rerun compiled.
rerun=$(grep -c 'ran on n[12]$' "$work/p-end/kiln-build.log" || true)
echo "allocation ended: the build stopped with $done_before of 8 units done; the rerun compiled the other $rerun"
[ "$rerun" = "$(( 8 - done_before ))" ] || fail "the rerun did not resume where the build stopped"

# --- a node that does not see the build folder ---------------------------------------------------
set +e
KILN_SLURM=1 salloc -p hid -N2 --ntasks-per-node=1 -c2 --mem=12000 -Q "$kiln" build "$work/p" --no-ccache \
  --build-dir "$work/hidden/b" > "$work/out" 2> "$work/err"
rc=$?
set -e
[ "$rc" = 1 ] || { cat "$work/err"; fail "a node without the build folder: exit $rc, not 1"; }
grep -q "node n3 does not see the build folder $work/hidden/b" "$work/err" || { cat "$work/err"; fail "no precondition error naming n3"; }
[ ! -e "$work/hidden/b/build.ninja" ] || fail "it configured before checking the nodes"
echo "precondition: $(grep -o 'node n3 does not see.*' "$work/err" | cut -c1-80)..."

# --- a node without Python's or torch's headers: named before the first unit (issue 35) -----------
# n3 has the interpreter and torch at the same paths, but no Python.h, then no torch headers: a
# build there failed every unit placed on n3, blamed on the project.
pyinc=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)
torchinc=$(/usr/bin/python3 -c 'import os, torch; print(os.path.dirname(torch.__file__) + "/include")' 2>/dev/null || true)
if [ -f "$pyinc/Python.h" ] && [ -f "$torchinc/torch/extension.h" ] \
  && /usr/bin/python3 -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null; then
  /usr/bin/python3 -m venv --system-site-packages --without-pip "$work/venv"
  mkdir -p "$work/tx"
  echo 'int answer() { return 42; }' > "$work/tx/a.cpp"
  printf 'from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension\nsetup(name="tx", ext_modules=[CppExtension("tx", ["a.cpp"])], cmdclass={"build_ext": BuildExtension})\n' \
    > "$work/tx/setup.py"
  n3=$(cat "$work/slurmd-n3.pid")
  for hide in "$pyinc" "$torchinc"; do
    nsenter -t "$n3" -m mount -t tmpfs kiln-headers "$hide"
    set +e
    salloc -p hid -N2 --ntasks-per-node=1 -c2 --mem=12000 -Q "$kiln" build "$work/tx" --slurm \
      --python "$work/venv/bin/python" --build-dir "$work/tx-b" > "$work/out" 2> "$work/err"
    rc=$?
    set -e
    nsenter -t "$n3" -m umount "$hide"
    [ "$rc" = 1 ] || { cat "$work/err"; fail "a node without $hide: exit $rc, not 1"; }
    case $hide in
      "$pyinc") what="Python.h (the Python headers) than this machine ($pyinc/Python.h: missing there)";;
      *) what="torch/extension.h (torch's C++ headers) than this machine ($torchinc/torch/extension.h: missing there)";;
    esac
    grep -qF "node n3 has another $what" "$work/err" || { cat "$work/err"; fail "no precondition error naming n3 and $hide"; }
    [ -z "$(find "$work/tx-b" -name '*.o' 2>/dev/null)" ] || fail "it compiled before checking the nodes' headers"
    echo "precondition: $(grep -o 'node n3 has another.*' "$work/err" | cut -c1-100)..."
  done
else
  echo "note: no torch cpp_extension with headers for /usr/bin/python3: the headers' precondition was not run"
fi

# --- a node that dies mid-build: its units are retried on the other ------------------------------
echo 3 > "$work/delay"
"${alloc[@]}" "$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-kill" \
  > "$work/kill.out" 2> "$work/kill.err" &
kpid=$!
for _ in $(seq 1 150); do grep -qs '^node=n2$' "$work"/p-kill/.kiln/steps/* && break; sleep 0.2; done
grep -qs '^node=n2$' "$work"/p-kill/.kiln/steps/* || { kill -INT $kpid; fail "no unit ever ran on n2"; }
# n2 dies: its slurmd and every process of its steps.
kill -KILL "$(cat "$work/slurmd-n2.pid")"
for p in /proc/[0-9]*; do
  grep -qsz '^SLURMD_NODENAME=n2$' "$p/environ" && kill -KILL "${p#/proc/}" 2>/dev/null
done
wait $kpid || { cat "$work/kill.err"; fail "the build did not survive n2's death"; }
grep -q "lost on n2" "$work/p-kill/kiln-build.log" || { grep kiln "$work/p-kill/kiln-build.log"; fail "no retry recorded"; }
python3 - "$work/p-kill/kiln-exec.jsonl" <<'PY' || fail "the exec log does not show a retried unit that finished on n1"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert any(r["attempts"] > 1 and r["node"] == "n1" and r["exit"] == 0 for r in recs), recs
PY
echo "node death: units lost on n2 were retried on n1 and the build finished"
grep 'kiln exec' "$work/p-kill/kiln-build.log" || true
echo 0 > "$work/delay"
build_p --build-dir "$work/p-kill-local" > /dev/null 2>&1
same_objects "$work/p-kill" "$work/p-kill-local"
