#!/usr/bin/env bash
# A compile cache shared through Redis: kiln cache config points two empty local caches at one
# redis-server on loopback; the second build, in another folder with its own empty cache, is served
# by the remote storage (outcome.cache.remote_hits > 0).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
command -v redis-server >/dev/null || skip "redis-server missing (apt-get install redis-server)"
need cmake ninja
need_nvcc
need ccache
ccache --version | grep -q "redis-storage" || skip "this ccache has no Redis storage"
work=$(mktemp -d)
redis_pid=
cleanup() { [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" > "$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 50); do
  if command -v redis-cli >/dev/null; then redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
  else (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; fi
  sleep 0.1
done
kill -0 "$redis_pid" || { cat "$work/redis.log"; echo "redis-server did not start"; exit 1; }

proj=$work/proj; mkdir -p "$proj"
cat > "$proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(redis_e2e LANGUAGES CXX CUDA)
add_library(k SHARED a.cu b.cu)
CM
echo '__global__ void ka(float* p) { p[threadIdx.x] += 1.f; } void la(float* p) { ka<<<1, 32>>>(p); }' > "$proj/a.cu"
echo '__global__ void kb(float* p) { p[threadIdx.x] *= 2.f; } void lb(float* p) { kb<<<1, 32>>>(p); }' > "$proj/b.cu"
field() { python3 -c "import json,sys; d=json.load(open('$1')); print(eval('d' + sys.argv[1]))" "$2"; }
remote=redis://127.0.0.1:$port

# A server that does not answer is refused before anything changes (issue 21), unless --no-check.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if "$kiln" cache config --dir "$work/cacheX" --remote "redis://127.0.0.1:$closed" 2> "$work/unreach.err"; then
  echo "an unreachable remote was accepted"; exit 1
fi
grep -q "cannot reach 127.0.0.1:$closed" "$work/unreach.err" || { cat "$work/unreach.err"; exit 1; }
! grep -qs remote_storage "$work/cacheX/ccache.conf" || fail "the refused remote was written"
"$kiln" cache config --dir "$work/cacheX" --remote "redis://127.0.0.1:$closed" --no-check > /dev/null

# Runner 1: empty local cache A, pointed at Redis, fills it.
"$kiln" cache config --dir "$work/cacheA" --remote "$remote" --json > "$work/configA.json"
[ "$(field "$work/configA.json" "['remote_storage']['value']")" = "$remote" ]
"$kiln" build "$proj" --archs 80-real --build-dir "$work/b1" --cache-dir "$work/cacheA" --json > "$work/b1.json"
[ "$(field "$work/b1.json" "['outcome']['ok']")" = True ]
[ "$(field "$work/b1.json" "['outcome']['cache']['misses']")" -ge 2 ]

# Runner 2: another folder, another empty local cache B, same Redis.
"$kiln" cache config --dir "$work/cacheB" --remote "$remote" > /dev/null
[ ! -d "$work/cacheB/0" ] || fail "cache B is not empty"
"$kiln" build "$proj" --archs 80-real --build-dir "$work/b2" --cache-dir "$work/cacheB" --json > "$work/b2.json"
remote_hits=$(field "$work/b2.json" "['outcome']['cache']['remote_hits']")
misses=$(field "$work/b2.json" "['outcome']['cache']['misses']")
echo "second runner: $remote_hits remote hits, $misses misses"
[ "$remote_hits" -gt 0 ] && [ "$misses" -eq 0 ]
"$kiln" cache show --dir "$work/cacheB" --json > "$work/showB.json"
[ "$(field "$work/showB.json" "['stats']['remote_hits']")" -gt 0 ]
# Remote hits are not local ones (issue 21): runner 2's own cache served nothing.
[ "$(field "$work/showB.json" "['stats']['local_hits']")" -eq 0 ]
[ "$(field "$work/b2.json" "['outcome']['cache']['local_hits']")" -eq 0 ]
echo "remote cache shared through Redis"
