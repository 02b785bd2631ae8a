#!/usr/bin/env bash
# Issue 34's adversarial pass over kiln build --slurm, on a real local Slurm cluster (munged,
# slurmctld, slurmd n1 and n2; n3 in a mount namespace of its own where the folder $work/lie is
# read-only: it sees the path, the same inode, and cannot write there):
#  1. a node that lies about its shared folders: the probe's inode check passed, and n3's units
#     failed writing their objects; now the probe exchanges a file both ways and stops the build
#     before configuring, naming n3;
#  2. a step that never starts (every CPU of the allocation held by another step): srun waited for
#     ever; now it gives up after KILN_SLURM_STEP_WAIT seconds and kiln says why;
#  3. two `kiln build --slurm` in one allocation: both finish, each cancels only its own steps, and
#     their objects equal a local build's.
# Needs root (slurmd), Slurm's daemons and mount namespaces; exit 77 otherwise.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/slurm_cluster.sh"
kiln=$1
need munged slurmctld slurmd srun salloc sinfo squeue scancel scontrol cmake ninja c++ unshare
[ "$(id -u)" = 0 ] || skip "slurmd needs root"
unshare -m --propagation private true 2>/dev/null || skip "no mount namespaces (unshare -m)"

work=$(mktemp -d /tmp/kiln-slurm-adv.XXXXXX)
chmod 755 "$work"
cleanup() { slurm_cluster_stop "$work"; rm -rf "$work"; }
trap cleanup EXIT

base=$(( 20000 + ($$ % 4000) * 8 + 4 ))
mkdir -p "$work/lie"
slurm_cluster_conf "$work" "$base"
cat >> "$SLURM_CONF" <<CONF
NodeName=n1 NodeHostname=localhost Port=$((base + 1)) CPUs=2 RealMemory=16000 State=UNKNOWN
NodeName=n2 NodeHostname=localhost Port=$((base + 2)) CPUs=2 RealMemory=16000 State=UNKNOWN
NodeName=n3 NodeHostname=localhost Port=$((base + 3)) CPUs=2 RealMemory=16000 State=UNKNOWN
PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
PartitionName=lie Nodes=n1,n3 MaxTime=INFINITE State=UP
CONF
slurm_cluster_daemons "$work"
slurmd -N n1
slurmd -N n2
# n3: $work/lie is there, the same folder (same inode), but read-only.
unshare -m --propagation private sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec slurmd -N n3' \
  sh "$work/lie"
slurm_cluster_wait "$work" 3
alloc=(salloc -N2 --ntasks-per-node=1 -c2 --mem=12000 --no-kill -Q)

mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(p LANGUAGES CXX)\nfile(GLOB u unit_*.cpp)\nadd_library(p SHARED ${u})\n' \
  > "$work/p/CMakeLists.txt"
for i in $(seq 1 6); do printf 'int f%d(int x) { return x * %d + 1; }\n' "$i" "$i" > "$work/p/unit_$i.cpp"; done
cat > "$work/slowcc" <<SH
#!/bin/sh
d=\$(cat "$work/delay" 2>/dev/null || echo 0)
case " \$* " in *unit_*) [ "\$d" = 0 ] || sleep "\$d";; esac
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
echo 0 > "$work/delay"
build_p() { "$kiln" build "$work/p" --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" "$@"; }

# --- 1. a node whose view of the build folder is read-only ----------------------------------------
set +e
salloc -p lie -N2 --ntasks-per-node=1 -c2 --mem=12000 -Q "$kiln" build "$work/p" --slurm --no-ccache \
  --build-dir "$work/lie/b" > "$work/lie.out" 2> "$work/lie.err"
rc=$?
set -e
[ "$rc" = 1 ] || { cat "$work/lie.err"; fail "a node with a read-only view of the build folder: exit $rc, not 1"; }
grep -q "node n3 does not share the build folder with this machine" "$work/lie.err" \
  || { cat "$work/lie.err"; fail "no precondition error naming n3"; }
[ ! -e "$work/lie/b/build.ninja" ] || fail "it configured before checking the nodes"
ls "$work/lie/b/.kiln" | grep -q '^probe-' && fail "the probe left its files: $(ls "$work/lie/b/.kiln")"
echo "1. lying node: $(grep -o 'node n3 does not share.*' "$work/lie.err" | cut -c1-100)..."

# --- 2. a step that never starts -------------------------------------------------------------------
cat > "$work/pend.sh" <<SH
srun --jobid=\$SLURM_JOB_ID --job-name=hog -N2 -n2 --ntasks-per-node=1 --exact -c2 --mem=1000M sleep 600 &
for _ in \$(seq 1 50); do squeue -h -s -j \$SLURM_JOB_ID -o %j | grep -q hog && break; sleep 0.2; done
start=\$(date +%s)
KILN_SLURM_STEP_WAIT=3 KILN_SLURM_RETRIES=1 "$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" \
  --build-dir "$work/p-pend" > "$work/pend.out" 2> "$work/pend.err"
echo "kiln exited \$? after \$(( \$(date +%s) - start ))s"
squeue -h -s -j \$SLURM_JOB_ID -o '%i %j' | grep ' kiln-[0-9]' && echo "steps left"
kill %1; wait
exit 0
SH
timeout 300 "${alloc[@]}" bash "$work/pend.sh" > "$work/pend.log" 2>&1 || true
grep -q "kiln exited 1 after" "$work/pend.log" || { cat "$work/pend.log" "$work/pend.err"; fail "a step that never starts: kiln did not stop with exit 1"; }
secs=$(grep -o 'kiln exited 1 after [0-9]*' "$work/pend.log" | grep -o '[0-9]*$')
[ "$secs" -lt 120 ] || fail "a step that never starts held the build ${secs}s"
grep -q "did not start as a Slurm step within 3 s, 2 time(s)" "$work/pend.err" "$work/p-pend/kiln-build.log" \
  || { cat "$work/pend.err"; grep kiln "$work/p-pend/kiln-build.log"; fail "no message saying the step never started"; }
grep -q "steps left" "$work/pend.log" && fail "the stopped build left steps"
echo "2. a step that never starts: kiln exited 1 after ${secs}s, naming why"

# --- 3. two builds in one allocation ---------------------------------------------------------------
echo 1 > "$work/delay"
cat > "$work/two.sh" <<SH
"$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-a" > "$work/a.out" 2> "$work/a.err" &
a=\$!
"$kiln" build "$work/p" --slurm --no-ccache -D CMAKE_CXX_COMPILER="$work/slowcc" --build-dir "$work/p-b" > "$work/b.out" 2> "$work/b.err" &
b=\$!
wait \$a; echo "a exited \$?"
wait \$b; echo "b exited \$?"
squeue -h -s -j \$SLURM_JOB_ID -o '%i %j' | grep ' kiln-[0-9]' && echo "steps left"
exit 0
SH
timeout 600 "${alloc[@]}" bash "$work/two.sh" > "$work/two.log" 2>&1 || true
grep -q "a exited 0" "$work/two.log" && grep -q "b exited 0" "$work/two.log" \
  || { cat "$work/two.log" "$work/a.err" "$work/b.err"; fail "two builds in one allocation did not both finish"; }
grep -q "steps left" "$work/two.log" && fail "steps left after two builds"
echo 0 > "$work/delay"
build_p --build-dir "$work/p-local" > /dev/null 2>&1 || fail "the local build failed"
for d in p-a p-b; do
  n=0
  while IFS= read -r o; do
    cmp -s "$work/$d/$o" "$work/p-local/$o" || fail "$o differs between $d and the local build"
    n=$((n + 1))
  done < <(cd "$work/$d" && find . -name '*.o' | sort)
  [ "$n" = 6 ] || fail "$d has $n objects, not 6"
done
echo "3. two builds in one allocation: both finished, their objects equal a local build's"
echo PASS
