#!/usr/bin/env bash
# A stop while kiln plans (issue 23): before the build lock, kiln only runs probes (nvcc, Python,
# torch), in its own process group, so a SIGTERM sent to kiln alone does not reach them. It died by
# the default action, printed nothing under --json and left the probe running. Here the probe is a
# fake interpreter (--python) that hangs: `kiln plan --json` and `kiln build --json` are stopped
# while it runs and must exit 128 + signal with kiln.error/1 (kind "interrupted") on stdout, leave
# no process of the probe behind and start no other probe. The second case is a shim that runs the
# real work as its child (as pyenv's does): the child outlives the shim and must be killed too.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need python3
work=$(mktemp -d)
marker="kiln-plan-interrupt-$$"
cleanup() { pkill -KILL -f "^$marker" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/p"
printf 'from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n' > "$work/p/setup.py"
# exec: the probe itself hangs. shim: the probe's child hangs, the probe waits for it.
printf '#!/usr/bin/env bash\necho probe >> %s/calls\nexec -a %s-exec sleep 60\n' "$work" "$marker" > "$work/py-exec"
printf '#!/usr/bin/env bash\necho probe >> %s/calls\n(exec -a %s-shim sleep 60)\n' "$work" "$marker" > "$work/py-shim"
chmod +x "$work/py-exec" "$work/py-shim"

# stop COMMAND SIGNAL PYTHON: runs `kiln COMMAND --json` on the project, stops it while the probe runs.
stop() {
  local command=$1 sig=$2 py=$3 want=$4
  rm -f "$work/calls"
  "$kiln" "$command" "$work/p" --json --python "$work/$py" --build-dir "$work/b" > "$work/out" 2> "$work/err" &
  local pid=$!
  for _ in $(seq 1 200); do pgrep -f "^$marker" > /dev/null && break; sleep 0.1; done
  pgrep -f "^$marker" > /dev/null || { cat "$work/err"; fail "$command: the probe never started"; }
  local t0=$SECONDS
  kill -"$sig" "$pid"
  set +e; wait "$pid"; local rc=$?; set -e
  local took=$((SECONDS - t0))
  [ "$rc" -eq "$want" ] || { cat "$work/err"; fail "kiln $command ($py, SIG$sig): exit $rc, not $want"; }
  if pgrep -af "^$marker"; then fail "kiln $command ($py): the probe still runs after kiln exited"; fi
  [ "$(wc -l < "$work/calls")" -eq 1 ] || fail "kiln $command: a probe started after the stop: $(cat "$work/calls")"
  python3 - "$work/out" "$command" "$want" <<'PY' || fail "kiln $command: no error document: $(cat "$work/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "kiln.error/1" and j["command"] == sys.argv[2], j
assert j["error"]["kind"] == "interrupted" and j["exit_code"] == int(sys.argv[3]), j
assert "while planning" in j["error"]["message"], j
PY
  grep -q "while planning" "$work/err" || fail "kiln $command: stderr does not say it was stopped: $(cat "$work/err")"
  echo "kiln $command, $py probe, SIG$sig: exit $rc in ${took}s, error document, no probe left"
}

stop plan TERM py-exec 143
stop build TERM py-exec 143
stop build INT py-shim 130
stop plan HUP py-shim 129
[ ! -e "$work/b/.kiln" ] || fail "kiln build made its build folder's lock although it was stopped while planning"
