#!/usr/bin/env bash
# A real torch extension on a GPU host: its default `pip install --no-build-isolation .` against
# `kiln build --gpu GPU --prune-archs`, side by side in one run: wall time, peak memory of the
# largest process, binary size, cubins in the binary, and an import plus one call of each kernel.
# usage: bench/extension_bench.sh KILN PYTHON [GPU]   (run on the GPU host; needs torch and nvcc)
set -u
kiln=$(readlink -f "$1"); py=$2; gpu=${3:-h100}
src=$(cd "$(dirname "$0")/../examples/vecext" && pwd)
work=$(mktemp -d)
measure="$(cd "$(dirname "$0")" && pwd)/measure.py"
report() {  # label, wall, rss, rc
  local so; so=$(cd /tmp && "$py" -c "import vecext._C as c; print(c.__file__)" 2>/dev/null)
  local size=0 cubins=0 archs=""
  if [ -n "$so" ]; then
    size=$(stat -c %s "$so")
    cubins=$(cuobjdump --list-elf "$so" 2>/dev/null | wc -l)
    archs=$(cuobjdump --list-elf "$so" 2>/dev/null | grep -o 'sm_[0-9]*[af]*' | sort -u | tr '\n' ' ')
  fi
  # -P: the source folder holds a vecext/ without the built _C; import the installed one.
  local check; check=$(cd /tmp && "$py" -P "$src/check.py" 2>&1 | tail -2 | tr '\n' ' ')
  printf '| %s | %s s | %s MiB | %s bytes | %s (%s) | %s |\n' "$1" "$2" "$3" "$size" "$cubins" "$archs" "$check"
}
echo "| build | wall | peak RSS | _C.so size | cubins (archs) | import + call |"
echo "|---|---|---|---|---|---|"
cp -r "$src" "$work/default" && cd "$work/default"
read -r wall rss rc < <(env -u TORCH_CUDA_ARCH_LIST "$py" "$measure" "$py" -m pip install --no-build-isolation --no-deps -v .)
report "pip install (default, rc=$rc)" "$wall" "$rss"
cp build.log "$work/default.log"
"$py" -m pip uninstall -y vecext > /dev/null 2>&1
cp -r "$src" "$work/kiln" && cd "$work/kiln"
read -r wall rss rc < <(env -u TORCH_CUDA_ARCH_LIST "$py" "$measure" "$kiln" build "$work/kiln" --gpu "$gpu" --prune-archs --python "$py")
report "kiln build --gpu $gpu --prune-archs, cold ccache (rc=$rc)" "$wall" "$rss"
cp build.log "$work/kiln.log"
# The same again from a fresh copy: only the compile cache is warm.
if command -v ccache > /dev/null; then
  "$py" -m pip uninstall -y vecext > /dev/null 2>&1
  cp -r "$src" "$work/kiln2" && cd "$work/kiln2"
  read -r wall rss rc < <(env -u TORCH_CUDA_ARCH_LIST "$py" "$measure" "$kiln" build "$work/kiln2" --gpu "$gpu" --prune-archs --python "$py")
  report "same, warm ccache, fresh copy (rc=$rc)" "$wall" "$rss"
  cp build.log "$work/kiln2.log"
fi
so=$(cd /tmp && "$py" -c "import vecext._C as c; print(c.__file__)" 2>/dev/null)
echo; echo "kiln verify of the installed kiln-built module:"; "$kiln" verify "$so" --gpu "$gpu"; echo "verify exit=$?"
"$kiln" inspect "$so"
echo; echo "logs: $work/default.log $work/kiln.log"
