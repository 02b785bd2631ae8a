#!/usr/bin/env bash
# The README's two set-up commands and .ci/run must be the same commands, so CI runs what users run.
set -euo pipefail
src=$2
readme_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/README.md")
ci_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/.ci/run")
[ "$(echo "$readme_cmds" | wc -l)" -eq 2 ] || { echo "README should hold exactly two set-up commands, found:"; echo "$readme_cmds"; exit 1; }
if [ "$readme_cmds" != "$ci_cmds" ]; then
  echo "README and .ci/run differ:"; diff <(echo "$readme_cmds") <(echo "$ci_cmds"); exit 1
fi
echo "README and .ci/run agree on both commands"
