#!/usr/bin/env bash
# kiln report --html on a real Ninja build of a generated C++ project, plus launcher records
# written by hand (the kiln exec schema), rendered in headless Chromium: the screenshot must exist
# and be more than a blank page.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need cmake ninja
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip "chromium missing (apt-get install chromium)"
need python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
proj=$work/proj; mkdir -p "$proj"
{
  echo 'cmake_minimum_required(VERSION 3.16)'
  echo 'project(rh LANGUAGES CXX)'
  echo 'add_library(core STATIC c1.cpp c2.cpp c3.cpp c4.cpp)'
  echo 'add_executable(app main.cpp)'
  echo 'target_link_libraries(app core)'
} > "$proj/CMakeLists.txt"
for i in 1 2 3 4; do echo "int f$i() { return $i; }" > "$proj/c$i.cpp"; done
echo 'int f1(); int main() { return f1() - 1; }' > "$proj/main.cpp"
cmake -S "$proj" -B "$work/b" -G Ninja >/dev/null
ninja -C "$work/b" -j2 >/dev/null
# Two records as kiln exec would append them, one for an object of this build and one torn line.
now=$(date +%s%3N)
cat > "$work/b/kiln-exec.jsonl" <<JL
{"output": "CMakeFiles/core.dir/c1.cpp.o", "source": "$proj/c1.cpp", "start_ms": $now, "wall_ms": 40, "cpu_ms": 35, "peak_rss_kib": 65536, "exit": 0, "waited_ms": 0, "archs": 0}
{"output": "CMakeFiles/core.dir/c2.cpp.o", "source": "$proj/c2.cpp", "start_ms": $now, "wall_ms": 40, "cpu_ms": 30, "peak_rss_kib": 131072, "exit": 0, "waited_ms": 0, "archs": 0}
{"output": "CMakeFiles/core.dir/c3.cpp.o", "start_ms":
JL
"$kiln" report "$work/b" --html "$work/report.html" --top 5 > "$work/report.txt"
cat "$work/report.txt"
grep -q "critical" "$work/report.txt"
grep -q "skipped 1 line" "$work/report.txt"
"$kiln" report "$work/b" --json > "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["jobs"] >= 6, d["jobs"]
assert d["critical_path"]["from_graph"] is True
assert d["critical_path"]["units"][-1]["name"] == "app", d["critical_path"]
assert d["memory"]["exec_log_units"] == 2
assert d["memory"]["peak_bytes"] is not None and d["memory"]["peak_bytes"] >= 64 << 20
assert d["efficiency"] >= 0.99
PY
grep -q "<svg id='timeline'" "$work/report.html"
! grep -q "https\?://" "$work/report.html" || fail "the page refers to the network"
"$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --screenshot="$work/out.png" \
  --window-size=1400,1000 "file://$work/report.html" >/dev/null 2>&1 || true
[ -s "$work/out.png" ] || fail "chromium wrote no screenshot"
# Non-trivial: a PNG of the right size whose pixels are not all one colour.
python3 - "$work/out.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1400, 1000), (w, h)
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT": idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
stride = len(raw) // h
rows = [raw[r * stride + 1:(r + 1) * stride] for r in range(h)]
colours = set()
for r in range(0, h, 7):
    row = rows[r]
    for x in range(0, len(row) - 3, 3 * 11):
        colours.add(row[x:x + 3])
print(f"screenshot {w}x{h}, {len(data)} bytes, {len(colours)} sampled colours")
assert len(colours) >= 8, "the page rendered (nearly) blank"
PY
[ -n "${KILN_KEEP_SCREENSHOT:-}" ] && cp "$work/out.png" "$KILN_KEEP_SCREENSHOT"
echo "report page renders"
