#!/usr/bin/env bash
# Packs Debian 12's Slurm and munge (the packages installed here) into one tarball for a GPU host
# that has neither and no network (issue 35: bench/device/slurm_fa.sh runs a local cluster there):
# the packages' files, and the shared libraries they link that a stock host may lack (installed
# there only where missing). On the host: bench/device/slurm_install.sh TARBALL.
# usage: bench/device/slurm_pack.sh OUT.tgz
set -euo pipefail
out=$(readlink -f "$1")
pkgs=(slurmd slurmctld slurm-client munge libmunge2 slurm-wlm-basic-plugins)
dpkg -s "${pkgs[@]}" > /dev/null 2>&1 || { echo "slurm_pack.sh: needs ${pkgs[*]} (apt-get install)" >&2; exit 2; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -L "${pkgs[@]}" | sort -u | while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done \
  | grep -v -E '^/usr/share/(doc|man)/|^/etc/init|systemd' > "$root/files"
tar -cf - -T "$root/files" 2>/dev/null | tar -xf - -C "$root" --one-top-level=tree
mkdir -p "$root/tree/usr/lib/x86_64-linux-gnu"
grep -E 'bin/|\.so' "$root/files" | while read -r f; do ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'; done | sort -u \
  | grep -v -E 'libc\.so|libm\.so|libresolv|ld-linux|libpthread|libdl|slurm-wlm|libmunge' \
  | while read -r l; do cp -nL "$l" "$root/tree/usr/lib/x86_64-linux-gnu/"; done
tar -czf "$out" -C "$root/tree" .
echo "slurm_pack.sh: $(tar -tzf "$out" | wc -l) entries in $out"
