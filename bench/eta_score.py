#!/usr/bin/env python3
"""Scores the ETA a `kiln build` printed (issue 35: within 20% from the first finished wave onwards).

    python3 bench/eta_score.py BUILD_LOG [--min-left S] [-v]

BUILD_LOG is what `kiln build` printed (bench/flash_attention.sh keeps it as OUT/build.log): its
progress lines `[bar] N/TOTAL  ELAPSED  LEFT left ...`, the plan's `jobs N` line (a wave: the first
N units to finish) and the summary (`built ... in T`, `compiles ...: ... the last ended B before
the end`), whose difference is when the last compile ended on the same clock as ELAPSED. Each line
is scored as said / true, true being that end minus ELAPSED; scored from the first finished wave
(N >= jobs) while more than --min-left seconds (default 60) are left. Prints the range and the
worst line, or says why nothing could be scored."""
import argparse
import re
import sys


def secs(text):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", text)
    if not m or not text:
        raise ValueError(text)
    return int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3) or 0)


def main(argv):
    parser = argparse.ArgumentParser(prog="bench/eta_score.py", description="Scores the ETA a kiln build printed.")
    parser.add_argument("build_log")
    parser.add_argument("--min-left", type=float, default=60.0)
    parser.add_argument("-v", dest="verbose", action="store_true")
    args = parser.parse_args(argv)
    min_left, verbose = args.min_left, args.verbose
    jobs = built = before_end = None
    lines = []
    try:
        log = open(args.build_log, errors="replace").read().splitlines()
    except OSError as e:
        print(f"eta: cannot read {args.build_log}: {e.strerror}", file=sys.stderr)
        return 2
    for line in log:
        if m := re.match(r"jobs\s+(\d+)\b", line):
            jobs = int(m.group(1))
        elif m := re.match(r"built \S+ in (\S+?)[ ,(]", line + " "):
            built = secs(m.group(1))
        elif m := re.match(r"compiles .*the last ended (\S+) before the end", line):
            before_end = secs(m.group(1))
        elif m := re.search(r"\] (\d+)/(\d+)\s+(\S+)\s+(\S+) left\b", line):
            lines.append((int(m.group(1)), secs(m.group(3)), secs(m.group(4))))
    if jobs is None or built is None or before_end is None:
        print("eta: not scored: the log lacks the plan's jobs line or the build's summary (a build that did not finish?)")
        return 1
    end = built - before_end
    scored = []
    for done, elapsed, said in lines:
        truth = end - elapsed
        if done >= jobs and truth > min_left:
            scored.append((said / truth, done, elapsed, said, truth))
            if verbose:
                print(f"{done:>5} at {elapsed:7.0f} s: said {said:6.0f} s, true {truth:6.0f} s, {said / truth:5.2f}")
    if not scored:
        print(f"eta: not scored: no progress line from the first wave ({jobs} units) with over {min_left:.0f} s left")
        return 1
    lo, hi = min(scored), max(scored)
    worst = max(scored, key=lambda s: abs(s[0] - 1))
    print(f"eta: {len(scored)} lines from the first wave ({jobs} units) with over {min_left:.0f} s left: "
          f"{lo[0]:.2f} to {hi[0]:.2f} of the time left; worst at {worst[1]} done, {worst[2]:.0f} s: "
          f"said {worst[3]:.0f} s, true {worst[4]:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
