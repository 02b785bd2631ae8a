# Sourced after common.sh by the Slurm e2e suites (not a test itself: ctest runs tests/e2e/*.sh only).
# A real Slurm cluster on this machine in a few seconds: munged, slurmctld and one `slurmd -N NAME`
# per node on its own port, all under WORK, each stopped by the pid it wrote.
#   slurm_cluster_need                 skips (77) unless root and Slurm's daemons are here
#   slurm_cluster_conf WORK BASE       writes WORK/slurm.conf's common part (ports from BASE) and
#                                      exports SLURM_CONF; the caller appends NodeName/PartitionName
#   slurm_cluster_start WORK N NODE... starts munged, slurmctld and a slurmd per NODE, waits (a
#                                      minute at most) until N nodes are idle
#   slurm_cluster_daemons WORK         munged and slurmctld only (the caller starts its slurmd)
#   slurm_cluster_wait WORK N          waits (a minute at most) until N nodes are idle
#   slurm_cluster_stop WORK            stops every daemon it started (TERM, then KILL)
#   slurm_node_kill WORK NODE          kills NODE as a dead host would be: its slurmd and every
#                                      process of its steps (they carry SLURMD_NODENAME=NODE)

slurm_cluster_need() {
  need munged slurmctld slurmd srun salloc sinfo squeue scancel scontrol
  [ "$(id -u)" = 0 ] || skip "slurmd needs root"
}

slurm_cluster_conf() {
  local work=$1 base=$2
  mkdir -p "$work/munge" "$work/state"
  export SLURM_CONF="$work/slurm.conf"
  cat > "$SLURM_CONF" <<CONF
ClusterName=kiln$$
SlurmctldHost=localhost
SlurmctldPort=$base
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool-%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdTimeout=5
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
CONF
  # A host whose cgroup v2 has no cpu controller for us and no systemd bus (the GPU host) fails
  # slurmd's cgroup/v2 init: KILN_SLURM_CGROUP gives cgroup.conf's lines there (';' between them).
  [ -z "${KILN_SLURM_CGROUP:-}" ] || tr ';' '\n' <<< "$KILN_SLURM_CGROUP" > "$work/cgroup.conf"
}

slurm_cluster_start() {
  local work=$1 idle=$2 node
  shift 2
  slurm_cluster_daemons "$work"
  for node in "$@"; do slurmd -N "$node"; done
  slurm_cluster_wait "$work" "$idle"
}

# munged and slurmctld alone, for a suite that starts some slurmd in a namespace of its own.
slurm_cluster_daemons() {
  local work=$1
  head -c 1024 /dev/urandom > "$work/munge.key"; chmod 600 "$work/munge.key"
  munged -f --key-file="$work/munge.key" --socket="$work/munge/sock" --pid-file="$work/munge/pid" \
    --log-file="$work/munge/log" --seed-file="$work/munge/seed"
  chmod 755 "$work/munge"
  slurmctld -i
}

# Up to a minute: on a loaded 2-core machine (the suite's first minutes) the daemons have taken
# more than 20 s.
slurm_cluster_wait() {
  local work=$1 idle=$2
  for _ in $(seq 1 300); do
    [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | grep -c ' idle$')" = "$idle" ] && return 0; sleep 0.2
  done
  sinfo; tail -n 5 "$work"/*.log; fail "the cluster did not come up"
}

slurm_cluster_stop() {
  local work=$1 f
  for f in "$work"/slurmd-*.pid "$work"/slurmctld.pid "$work"/munge/pid; do
    [ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true
  done
  sleep 0.5
  for f in "$work"/slurmd-*.pid "$work"/slurmctld.pid "$work"/munge/pid; do
    [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
  done
}

slurm_node_kill() {
  local work=$1 node=$2 p
  kill -KILL "$(cat "$work/slurmd-$node.pid")"
  for p in /proc/[0-9]*; do
    grep -qsz "^SLURMD_NODENAME=$node\$" "$p/environ" && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  return 0
}
