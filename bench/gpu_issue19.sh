#!/usr/bin/env bash
# Issue 19 on the GPU host in ONE device call of at most 9 minutes: mamba (e9594ce shape: ten units,
# the four longest among the last to launch) and causal-conv1d (one long unit), each cold from a
# fresh copy with empty caches (bench/project_bound.sh: kiln build --gpu h100 --prune-archs,
# kiln report, the longest unit alone with --split-compile=<cores>), then the table row and what
# kiln exec granted each unit and why (grants.txt). Everything comes back as one tar in $OUT.
# Run from the repository root on the device (the lead's call):
#   bash bench/gpu_issue19.sh [KILN] [PYTHON] [BUDGET_S] [PROJECT...]
# defaults: .dev/kiln, /opt/torch/.venv/bin/python, 510 s, mamba causal-conv1d (under .dev/src).
# The budget bounds the whole run: a step still going at the end is stopped (the unit alone is cut
# at the deadline and its row says "> N s": still a lower bound on the bound, so "< ratio").
set -u
root=$(pwd)
kiln=$(readlink -f "${1:-$root/.dev/kiln}")
py=${2:-/opt/torch/.venv/bin/python}
budget=${3:-510}
shift $(($# < 3 ? $# : 3))
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(mamba causal-conv1d)
out=${OUT:-$root/i19-out}
mkdir -p "$out"
res=$(mktemp -d /tmp/i19-XXXX)
[ -x "$root/.dev/tools/bin/ccache" ] && export PATH=$root/.dev/tools/bin:$PATH
end=$(($(date +%s) + budget))
export KILN_BENCH_DEADLINE=$end
echo "kiln: $("$kiln" --version 2>&1 | head -1); python: $py; cores: $(nproc); budget ${budget}s"
for p in "${projects[@]}"; do
  left=$((end - $(date +%s)))
  if [ "$left" -lt 60 ]; then echo "== $p: not run, ${left}s left"; continue; fi
  echo "== $p (${left}s left)"
  # Its own process group, so that the deadline stops kiln, Ninja and every compile under it.
  setsid bash "$root/bench/project_bound.sh" "$kiln" "$py" "$root/.dev/src/$p" "$res/$p" h100 > "$res/$p.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$p: stopped at the deadline"
    kill -TERM -- "-$pid" 2>/dev/null; sleep 5; kill -KILL -- "-$pid" 2>/dev/null
  fi
  wait "$pid"; echo "$p: exit $?"
  tail -4 "$res/$p.log"
  cat "$res/$p/grants.txt" 2>/dev/null
done
echo "== rows"
cat "$res"/*/row.md 2>/dev/null | awk 'NR <= 2 || !/^\| project|^\|---/'
tar -czf "$out/i19-gpu.tar.gz" -C "$res" .
rm -rf "$res"
