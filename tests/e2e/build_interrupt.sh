#!/usr/bin/env bash
# Ctrl-C during kiln build stops the whole build tree (ninja and the compilers under it), says
# where the log is, and exits 130.
set -euo pipefail
kiln=$1
command -v cmake >/dev/null && command -v ninja >/dev/null || { echo "skip: cmake/ninja missing"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
marker="kiln-interrupt-$$"
# A "compiler" that takes a minute per unit, so the build is surely running when interrupted.
cat > "$work/slowcc" <<SH
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in *unit_*.cpp) exec -a $marker sleep 60;; esac; done
exec c++ "\$@"
SH
chmod +x "$work/slowcc"
mkdir -p "$work/p"
printf 'cmake_minimum_required(VERSION 3.24)\nproject(i LANGUAGES CXX)\nadd_library(i STATIC unit_1.cpp unit_2.cpp)\n' > "$work/p/CMakeLists.txt"
echo 'int f1() { return 1; }' > "$work/p/unit_1.cpp"; echo 'int f2() { return 2; }' > "$work/p/unit_2.cpp"
"$kiln" build "$work/p" --no-ccache --build-dir "$work/b" -D CMAKE_CXX_COMPILER="$work/slowcc" > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 1 60); do pgrep -f "$marker" > /dev/null && break; sleep 0.5; done
pgrep -f "$marker" > /dev/null || { echo "the slow compile never started"; cat "$work/err"; exit 1; }
kill -INT "$pid"
set +e; wait "$pid"; rc=$?; set -e
echo "kiln build exited $rc"
[ "$rc" -eq 130 ]
grep -q "interrupted; stopped the build. Full log: $work/b/kiln-build.log" "$work/err"
sleep 1
if pgrep -f "$marker" > /dev/null; then echo "a compile outlived the interrupt"; pkill -f "$marker"; exit 1; fi
echo "the build tree stopped with kiln"
