#!/usr/bin/env bash
# A project's default build that outlives the call starting it (a GPU host lent in calls of at most
# 600 s, kept while calls follow each other): `start` runs bench/default_build_probe.sh detached;
# `wait` waits at most SECONDS for its summary line and prints it, else how far it got.
# usage: bench/default_detached.sh start PYTHON SRC OUT   |   bench/default_detached.sh wait OUT SECONDS
set -u
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  start)
    py=$2; src=$(readlink -f "$3"); out=$4; mkdir -p "$out"; out=$(readlink -f "$out")
    setsid nohup bash "$here/default_build_probe.sh" "$py" "$src" "$out" 100000 > "$out/probe.out" 2>&1 < /dev/null &
    echo "started pid $! at $(date +%s)" | tee "$out/started" ;;
  wait)
    out=$2; secs=$3; t0=$(date +%s)
    while [ ! -f "$out/default.summary" ] && [ $(( $(date +%s) - t0 )) -lt "$secs" ]; do sleep 5; done
    if [ -f "$out/default.summary" ]; then cat "$out/default.summary"
    else echo "still running after $(( $(date +%s) - $(awk '{print $5}' "$out/started") )) s"; tail -2 "$out/default.log"; fi ;;
  *) echo "usage: $0 start PYTHON SRC OUT | wait OUT SECONDS" >&2; exit 2 ;;
esac
