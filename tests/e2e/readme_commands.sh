#!/usr/bin/env bash
# The README's two set-up commands and .ci/run must be the same commands, so CI runs what users run;
# and its usage examples that need nothing but kiln run as documented.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src=$2
readme_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/README.md")
ci_cmds=$(grep -E '^(apt-get update|cmake --preset default)' "$src/.ci/run")
[ "$(echo "$readme_cmds" | wc -l)" -eq 2 ] || { echo "README should hold exactly two set-up commands, found:"; echo "$readme_cmds"; exit 1; }
if [ "$readme_cmds" != "$ci_cmds" ]; then
  echo "README and .ci/run differ:"; diff <(echo "$readme_cmds") <(echo "$ci_cmds"); exit 1
fi
echo "README and .ci/run agree on both commands"

# An example shows a real use: none names an option that only restates the default (issue 33: the
# plan example named --prune-archs, pruning being the default).
redundant=$(grep -nE '^(cd .*&& )?kiln .*--prune-archs' "$src/README.md" "$src"/docs/cli/*.md || true)
[ -z "$redundant" ] || { echo "usage examples name --prune-archs, the default:"; echo "$redundant"; exit 1; }

# The README's usage examples that need no project, GPU or network (the `kiln archs` and `kiln gpus`
# sections) run as written and exit as their comment says ("exit 1"), else 0.
kiln_bin=$(realpath "$1")  # the lines run from other folders
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

# The other sections' examples, each as written, in a folder laid out as they assume: HOME holds
# ~/src/myproj (a small CMake + CUDA project), examples/minitorch and build/ name its build. A
# `kiln build` line is run as `kiln plan` with the same arguments (the planning and the options are
# the same; a cold build of the bundled example takes minutes), except `kiln build ~/src/myproj`,
# which builds, so that report, diagnose and inspect have a build to read. Lines this machine cannot
# run (a PyTorch checkout, a GPU image, a network server) are listed as skipped; `kiln cache clear`
# clears the test's own CCACHE_DIR.
. "$src/tests/e2e/lib/cuda_project.sh"
command -v cmake >/dev/null && command -v ninja >/dev/null && command -v nvcc >/dev/null ||
  { echo "skip the build sections: cmake, ninja or nvcc missing"; exit 0; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
write_tiny_cuda_project "$work/src/myproj"
mkdir -p "$work/examples" "$work/build" && ln -s "$work/src/myproj" "$work/examples/minitorch"
run_line() {  # LINE CWD: runs it, checks the exit code its comment gives (else 0)
  local line=$1 cwd=$2 want=0 rc=0
  if [[ "$line" =~ \#.*exit\ ([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
  (cd "$cwd" && HOME=$work CCACHE_DIR=$work/cc eval "${line%%#*}") > "$work/out.txt" 2>&1 || rc=$?
  if [ "$rc" -ne "$want" ]; then echo "README example exits $rc, documented $want: $line"; tail -5 "$work/out.txt"; bad=1
  else echo "ok ($rc): $line"; fi
}
section() { awk -v s="$1" '$0 ~ "^### `kiln " s {on=1; next} /^### / {on=0} on && /^(kiln |cd |ninja )/ {print}' "$src/README.md"; }
bad=0; ran=0
while IFS= read -r line; do
  case "$line" in
    "kiln build ~/src/myproj"*) run_line "$line" "$work"; ran=$((ran + 1)) ;;
    "kiln build"*) run_line "kiln plan${line#kiln build}" "$src"; ran=$((ran + 1)) ;;
    *) echo "skip (names a project not here): $line" ;;
  esac
done < <(section 'build \[DIR\]`')
[ -f "$work/src/myproj/build-kiln/kiln-build.log" ] || fail "kiln build ~/src/myproj built nothing"
ln -s "$work/src/myproj/build-kiln/libk.so" "$work/build/libops.so"
ln -s "$work/src/myproj/build-kiln/libk.so" "$work/build/_C.so"
cp "$work/src/myproj/build-kiln/kiln-build.log" "$work/build/kiln-build.log"
for s in 'plan \[DIR\]' 'doctor' 'diagnose' 'inspect' 'verify' 'report' 'cache'; do
  while IFS= read -r line; do
    case "$line" in
      "kiln plan --gpu h100 --emit dockerfile"*) run_line "${line/> Dockerfile/> $work/Dockerfile}" "$src" ;;
      "kiln doctor --cmake-cache"* | "ninja "* | "kiln inspect torch/"* | "kiln inspect dist/"* | "kiln inspect --root"* | \
        "kiln verify"* | "kiln cache config"* | "kiln plan ~/src/pytorch"* | "kiln plan ext/"*)
        echo "skip (needs a PyTorch checkout, a torch extension, a GPU image or a cache server): $line"; continue ;;
      "kiln report build-kiln"*) run_line "$line" "$work/src/myproj" ;;
      *) run_line "$line" "$work" ;;
    esac
    ran=$((ran + 1))
  done < <(section "$s")
done
[ $bad -eq 0 ] || exit 1
[ "$ran" -ge 13 ] || fail "only $ran README lines ran"
echo "README's build, plan, doctor, diagnose, inspect, report and cache examples exit as documented ($ran lines)"
