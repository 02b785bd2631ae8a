#!/usr/bin/env bash
# The README's two set-up commands and .ci/run must be the same commands, so CI runs what users run;
# and its usage examples that need nothing but kiln run as documented.
set -euo pipefail
src=$2
readme_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/README.md")
ci_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/.ci/run")
[ "$(echo "$readme_cmds" | wc -l)" -eq 2 ] || { echo "README should hold exactly two set-up commands, found:"; echo "$readme_cmds"; exit 1; }
if [ "$readme_cmds" != "$ci_cmds" ]; then
  echo "README and .ci/run differ:"; diff <(echo "$readme_cmds") <(echo "$ci_cmds"); exit 1
fi
echo "README and .ci/run agree on both commands"

# The README's usage examples that need no project, GPU or network (the `kiln archs` and `kiln gpus`
# sections) run as written and exit as their comment says ("exit 1"), else 0.
kiln_bin=$1
kiln() { "$kiln_bin" "$@"; }
export PATH=/usr/local/cuda/bin:$PATH
examples=$(awk '/^### `kiln (archs|gpus)/ {on=1; next} /^### / {on=0} on && /^kiln / {print}' "$src/README.md")
[ "$(echo "$examples" | wc -l)" -ge 8 ] || { echo "expected the archs and gpus examples, found:"; echo "$examples"; exit 1; }
bad=0
while IFS= read -r line; do
  want=0
  if [[ "$line" =~ \#.*exit\ ([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
  if [[ "$line" == *--check* ]] && ! command -v nvcc >/dev/null; then echo "skip (no nvcc): $line"; continue; fi
  rc=0
  eval "${line%%#*}" > /dev/null 2>&1 || rc=$?
  if [ "$rc" -ne "$want" ]; then echo "README example exits $rc, documented $want: $line"; bad=1; fi
done <<< "$examples"
[ $bad -eq 0 ] || exit 1
echo "README's archs and gpus examples exit as documented ($(echo "$examples" | wc -l) lines)"
