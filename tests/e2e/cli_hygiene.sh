#!/usr/bin/env bash
# The command line under bad input, as a shell sees it: stdin that cannot be a log, FIFOs in a
# scanned folder, JSON errors, `--`, completion loaded by bash. Needs no CUDA.
set -u
. "$(dirname "$0")/lib/common.sh"
KILN=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# diagnose: unreadable or empty stdin is an error (exit 2), never "no failure found".
"$KILN" diagnose < /dev/null > "$work/out" 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "empty" "$work/err" || fail "stdin /dev/null: exit $rc: $(cat "$work/err")"
"$KILN" diagnose <&- > "$work/out" 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "stdin" "$work/err" || fail "closed stdin: exit $rc: $(cat "$work/err")"
"$KILN" diagnose < "$work" > "$work/out" 2> "$work/err"; rc=$?
[ $rc -eq 2 ] || fail "a folder as stdin: exit $rc"
"$KILN" diagnose --json < /dev/null 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); assert d['schema']=='kiln.error/1' and d['exit_code']==2, d" \
  || fail "diagnose --json error object"
printf 'x.cu(1): error: identifier "y" is undefined\n' | "$KILN" diagnose > /dev/null; [ $? -eq 1 ] || fail "piped log"

# A FIFO in a scanned folder: skipped with a note, and nothing waits on it.
mkdir "$work/lib" && mkfifo "$work/lib/pipe" && printf 'not elf' > "$work/lib/readme.txt"
timeout 20 "$KILN" inspect "$work/lib" > "$work/out" 2> "$work/err"; rc=$?
[ $rc -ne 124 ] || fail "inspect hung on a FIFO"
grep -q "pipe: skipped: a FIFO" "$work/err" || fail "inspect note: $(cat "$work/err")"
timeout 20 "$KILN" verify --gpu h100 "$work/lib" > "$work/out" 2> "$work/err"; rc=$?
[ $rc -ne 124 ] || fail "verify hung on a FIFO"
grep -q "pipe: skipped: a FIFO" "$work/err" || fail "verify note: $(cat "$work/err")"

# --json usage errors are JSON; `--` ends the options; did you mean.
"$KILN" gpus --json --bogus 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); assert d['error']['kind']=='usage', d" \
  || fail "usage error under --json"
[ "$("$KILN" archs --to cmake -- 8.0)" = "80-real" ] || fail "archs -- SPEC"
"$KILN" biuld 2>&1 | grep -q "did you mean 'build'" || fail "did you mean"
"$KILN" build --jobs 0 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--jobs 0"

# A malformed kiln.toml in the current folder names the line and the key.
( cd "$work" && printf '[gpus]\nlocall = true\n' > kiln.toml && "$KILN" gpus > /dev/null 2> err ); rc=$?
[ $rc -eq 2 ] && grep -q "kiln.toml:2: key 'locall'" "$work/err" || fail "kiln.toml: exit $rc: $(cat "$work/err")"

# --help names the schema the --json output carries (doctor's said /1 while it printed /2).
schema=$("$KILN" doctor --json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['schema'])")
"$KILN" doctor --help | grep -qF "(schema $schema," || fail "doctor --help does not name $schema"

# bash loads the completion and completes a command.
out=$(bash --norc -c 'source <("$1" completion bash); COMP_WORDS=(kiln insp); COMP_CWORD=1; _kiln; echo "${COMPREPLY[*]}"' _ "$KILN")
[ "$out" = "inspect" ] || fail "bash completion: '$out'"
# Issue 33's small items: -V is --version; CMake's build types in any case, passed in CMake's spelling.
"$KILN" -V | grep -q '^kiln [0-9]' || fail "-V does not print the version"
"$KILN" plan --example --build-type release --json 2>/dev/null | grep -q '"build_type": "Release"' \
  || fail "--build-type release is not taken as Release"
"$KILN" plan --example --build-type relase > /dev/null 2>&1; [ $? -eq 2 ] || fail "--build-type relase should exit 2"
echo PASS
