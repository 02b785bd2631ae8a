#!/usr/bin/env bash
# The fuzz job (issue 23), part of `ctest --preset default` and so of CI: compiles the libFuzzer
# targets with clang, ASan and UBSan (`cmake --preset fuzz`, build-fuzz/) and runs each for a
# bounded time (KILN_FUZZ_SECONDS, default 5) over its seed corpus. A crash, a leak, a sanitizer
# report or a timeout fails the test and leaves the input under build-fuzz/artifacts/. Skips (77) when clang++ or its libFuzzer runtime is missing.
set -euo pipefail
src=$1
seconds=${KILN_FUZZ_SECONDS:-5}
command -v clang++ >/dev/null || { echo "skip: clang++ missing"; exit 77; }
probe=$(mktemp -d); trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/f.cpp"
clang++ -fsanitize=fuzzer "$probe/f.cpp" -o "$probe/f" 2>/dev/null || { echo "skip: clang's libFuzzer runtime is missing"; exit 77; }
cd "$src"
cmake --preset fuzz > /dev/null
start=$SECONDS
cmake --build --preset fuzz -j"${KILN_FUZZ_JOBS:-2}" | tail -3
echo "== fuzz build: $((SECONDS - start)) s"
mkdir -p build-fuzz/artifacts
for target in fuzz/*.cpp; do
  name=$(basename "$target" .cpp)
  seeds=fuzz/corpus
  [ -d "fuzz/corpus_${name#fuzz_}" ] && seeds=fuzz/corpus_${name#fuzz_}
  work=$(mktemp -d)
  echo "== $name: ${seconds}s over $seeds"
  set +e
  build-fuzz/"$name" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -artifact_prefix=build-fuzz/artifacts/"$name"- -print_final_stats=1 "$work" "$seeds" > "$work.log" 2>&1
  rc=$?
  set -e
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY)" "$work.log" || true
  [ "$rc" -eq 0 ] || { tail -40 "$work.log"; rm -rf "$work" "$work.log"; echo "FAIL: $name exited $rc"; exit 1; }
  rm -rf "$work" "$work.log"
done
echo "every fuzz target ran ${seconds}s without a finding"
