#!/usr/bin/env bash
# The memory governor never waits without bound and never outlives its compile (issue 14):
#  1. a ledger lock held by another process: `kiln exec` gives up on the lock, compiles anyway,
#     and says so in its output and its exec log;
#  2. ledger entries of a live but unrelated process (pid 1) and of the first format without a
#     start time: ignored and cleared, the compile is not held back;
#  3. `kill -9` of `kiln exec`: the compile under it (and its own child) dies too.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
command -v flock >/dev/null || skip "flock (util-linux) missing"
work=$(mktemp -d)
marker="kiln-governor-fault-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
export KILN_LEDGER=$work/ledger KILN_MEM_BUDGET_KIB=1000 KILN_EXEC_LOG=$work/exec.jsonl

# 1. Another process holds the lock for a minute.
flock "$KILN_LEDGER" sleep 60 > /dev/null 2>&1 & holder=$!
sleep 0.3
start=$(date +%s)
timeout 30 "$kiln" exec -- true -c unit.cpp -o "$work/unit.o" 2> "$work/err" || fail "kiln exec failed or hung with the lock held: $(cat "$work/err")"
took=$(( $(date +%s) - start ))
pkill -P "$holder" sleep 2>/dev/null || true; kill "$holder" 2>/dev/null || true; wait "$holder" 2>/dev/null || true
echo "1. lock held elsewhere: compiled after ${took}s"
[ "$took" -le 15 ] || fail "waited ${took}s for the lock"
grep -q "kiln exec: warning: memory governor skipped: the lock on $KILN_LEDGER was held" "$work/err" || fail "no warning: $(cat "$work/err")"
grep -q '"warning":"memory governor skipped' "$KILN_EXEC_LOG" || fail "no warning in the exec log"

# 2. pid 1 is alive but is not a compile; "1 5000000" is the first format, without a start time.
printf 'pid=1 kib=5000000 start=1\n1 5000000\n' > "$KILN_LEDGER"
timeout 30 "$kiln" exec -- true 2> "$work/err" || fail "held back by stale ledger entries (or failed): $(cat "$work/err")"
! grep -q "kib=5000000" "$KILN_LEDGER" || fail "stale entries were not cleared: $(cat "$KILN_LEDGER")"
echo "2. stale entries ignored and cleared"

# 3. kill -9 of the launcher: its compile and the compile's child go with it.
: > "$KILN_LEDGER"
"$kiln" exec -- bash -c "bash -c 'exec -a $marker sleep 60' & exec -a $marker sleep 60" &
launcher=$!
for _ in $(seq 1 60); do [ "$(pgrep -c -f "^$marker")" -ge 2 ] && break; sleep 0.25; done
[ "$(pgrep -c -f "^$marker")" -ge 2 ] || fail "the compile never started"
kill -9 "$launcher"; wait "$launcher" 2>/dev/null || true
for _ in $(seq 1 40); do pgrep -f "^$marker" > /dev/null || break; sleep 0.25; done
if pgrep -f "^$marker" > /dev/null; then fail "the compile outlived kill -9 of its launcher"; fi
echo "3. kill -9 of kiln exec took its compile tree with it"
