#!/usr/bin/env bash
# Several kiln binaries on one project against its bound, side by side in one device call (these
# machines are shared and noisy): a cold and a warm `import torch` first (the backend's start, which
# is outside kiln), then bench/project_bound.sh for each binary in turn (fresh copy, empty caches,
# the longest unit alone). One tar of every run's files in $OUT (or OUT_DIR).
# usage: bench/ab_bound.sh PYTHON CHECKOUT KILN...
#   e.g. bash bench/ab_bound.sh /opt/torch/.venv/bin/python .dev/src/mamba .dev/kiln-a .dev/kiln-b
set -u
py=$1 src=$2
shift 2
root=$(pwd)
[ -x "$root/.dev/tools/bin/ccache" ] && export PATH=$root/.dev/tools/bin:$PATH
res=$(mktemp -d /tmp/ab-bound-XXXX)
for i in cold warm; do
  "$py" -c 'import time; t = time.time(); import torch; print("import torch (%s): %.2f s" % ("'$i'", time.time() - t))'
done 2>&1 | tee "$res/import.txt"
n=0
for k in "$@"; do
  n=$((n + 1)); name=$n-$(basename "$k")
  echo "== $name"
  bash "$root/bench/project_bound.sh" "$k" "$py" "$src" "$res/$name" h100 > "$res/$name.log" 2>&1
  tail -1 "$res/$name/row.md" 2>/dev/null || tail -3 "$res/$name.log"
  cat "$res/$name/grants.txt" 2>/dev/null
done
out=${OUT:-${OUT_DIR:-$root/ab-out}}
mkdir -p "$out" && tar -czf "$out/ab.tgz" -C "$res" . && rm -rf "$res"
