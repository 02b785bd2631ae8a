#!/usr/bin/env bash
# On the GPU host (root): installs the tarball bench/device/slurm_pack.sh made, keeping every file
# the host already has, and the links Debian makes with update-alternatives. Prints what it got.
# usage: bench/device/slurm_install.sh TARBALL
set -euo pipefail
tar -xzf "$1" -C / --skip-old-files
for d in slurmd slurmctld slurmstepd; do [ -e /usr/sbin/$d ] || ln -s $d-wlm /usr/sbin/$d; done
ldconfig
slurmd -V
command -v munged srun salloc sinfo squeue scancel scontrol > /dev/null
