#!/usr/bin/env bash
# One binary for every x86-64 GPU host (issue 14): build/kiln needs no glibc newer than 2.28 (it is
# static: no dynamic glibc at all), and its doctor, inspect, verify and archs run unchanged inside
# the root file system of an older Debian made with debootstrap: Debian 10 (glibc 2.28) from
# archive.debian.org, else Debian 11 (glibc 2.31) from deb.debian.org. The root file system is
# cached in the build folder, so only the first run downloads (a few minutes). Skips (77) without
# root, debootstrap or the archive.
set -u
. "$(dirname "$0")/lib/common.sh"
kiln=$1

# 1. The symbol versions the binary asks of glibc: none above 2.28 (none at all when static).
if command -v objdump >/dev/null; then
  newest=$(objdump -T "$kiln" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
  echo "newest glibc symbol version: ${newest:-none (no dynamic glibc)}"
  if [ -n "$newest" ] && [ "$(printf '%s\n2.28\n' "$newest" | sort -V | tail -1)" != 2.28 ]; then
    fail "build/kiln needs GLIBC_$newest: $(objdump -T "$kiln" | grep "GLIBC_$newest" | head -3)"
  fi
fi

[ "$(id -u)" = 0 ] || skip "chroot needs root"
need debootstrap
command -v python3 >/dev/null || skip "python3 needed to write the test files"
cache=$(dirname "$kiln")/e2e-rootfs
mkdir -p "$cache"
root=""
for suite_mirror in "buster http://archive.debian.org/debian" "bullseye http://deb.debian.org/debian"; do
  set -- $suite_mirror
  if [ -x "$cache/$1/bin/sh" ] && [ -e "$cache/$1/.kiln-complete" ]; then root=$cache/$1; break; fi
  rm -rf "$cache/$1"
  echo "debootstrap --variant=minbase $1 (once; cached in $cache)"
  if timeout 900 debootstrap --variant=minbase "$1" "$cache/$1" "$2" > "$cache/$1.log" 2>&1; then
    touch "$cache/$1/.kiln-complete"; root=$cache/$1; break
  fi
  echo "debootstrap $1 failed: $(tail -1 "$cache/$1.log")"; rm -rf "$cache/$1"
done
[ -n "$root" ] || skip "no Debian archive reachable"
glibc=$(ls "$root"/lib/x86_64-linux-gnu/libc-*.so 2>/dev/null | sed 's/.*libc-//;s/\.so//')
echo "root file system: $root (glibc ${glibc:-?})"

work=$root/kiln-e2e
rm -rf "$work"; mkdir -p "$work"
trap 'umount "$root/proc" 2>/dev/null; rm -rf "$work"' EXIT
mount -t proc proc "$root/proc" 2>/dev/null || echo "note: /proc not mounted in the chroot"
cp "$kiln" "$work/kiln"
# A fat binary with sm_90 SASS and compute_90 PTX, laid out as CUDA 13 writes it.
python3 - "$work/k.fatbin" <<'PY'
import struct, sys
def entry(kind, sm):
    payload = b"x" * 32
    return struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, 64, len(payload), 0, 0, 0, 9 if kind == 1 else 1, sm, 0, 0, 0x11, 0, 0) + payload
body = entry(2, 90) + entry(1, 90)
open(sys.argv[1], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body)
PY
in_root() { chroot "$root" /kiln-e2e/kiln "$@"; }

out=$(in_root archs "8.0;9.0+PTX" --to cmake) || fail "archs exited $?: $out"
[ "$out" = "80-real;90" ] || [[ "$out" == *"80-real;90"* ]] || fail "archs printed: $out"
in_root inspect --json /kiln-e2e/k.fatbin > "$work/inspect.json" || fail "inspect exited $?"
grep -q '"arch": "sm_90"' "$work/inspect.json" || fail "inspect: no sm_90 in $(cat "$work/inspect.json")"
in_root verify --gpu h100 --no-deps /kiln-e2e/k.fatbin > "$work/verify.txt"; rc=$?
[ "$rc" = 0 ] || fail "verify on an H100 exited $rc: $(cat "$work/verify.txt")"
in_root verify --gpu a100 --no-deps /kiln-e2e/k.fatbin > "$work/verify2.txt"; rc=$?
[ "$rc" = 1 ] || fail "verify of sm_90 code on an A100 should exit 1, got $rc"
in_root doctor --json > "$work/doctor.json"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "doctor exited $rc"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema'].startswith('kiln.doctor/') and isinstance(d['findings'], list), d['schema']" "$work/doctor.json" \
  || fail "doctor JSON: $(head -c 300 "$work/doctor.json")"
echo "doctor, inspect, verify and archs ran in $(basename "$root") (glibc ${glibc:-?})"
