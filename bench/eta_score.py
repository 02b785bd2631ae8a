#!/usr/bin/env python3
"""Scores the ETA a `kiln build` printed (issue 35: within 20% from the first finished wave onwards).

    python3 bench/eta_score.py BUILD_LOG [--min-left S] [-v]
    python3 bench/eta_score.py STAMPED_LOG --stamped --exec KILN_EXEC_JSONL [--min-left S] [-v]

BUILD_LOG is what `kiln build` printed (bench/flash_attention.sh keeps it as OUT/build.log): its
progress lines `[bar] N/TOTAL  ELAPSED  LEFT left ...`, the plan's `jobs N` line (a wave: the first
N units to finish) and the summary (`built ... in T`, `compiles ...: ... the last ended B before
the end`), whose difference is when the last compile ended on the same clock as ELAPSED. Each line
is scored as said / true, true being that end minus ELAPSED; scored from the first finished wave
(N >= jobs) while more than --min-left seconds (default 60) are left. Prints the range and the
worst line, or says why nothing could be scored.

--stamped: each line of the log is `EPOCH<TAB>TEXT`, the time it arrived (bench/device/eta_live.sh
keeps kiln build's stderr so, without the summary). With --exec, a line's time is its stamp and the
end is the last end (start_ms + wall_ms) among the compiler runs of the build's kiln-exec.jsonl,
the runs the summary's `compiles` line counts."""
import argparse
import json
import re
import sys


def secs(text):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", text)
    if not m or not text:
        raise ValueError(text)
    return int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3) or 0)


def read_lines(path):
    """The file's lines, or None after saying in one line why it cannot be read."""
    try:
        return open(path, errors="replace").read().splitlines()
    except OSError as e:
        print(f"eta: cannot read {path}: {e.strerror}", file=sys.stderr)
        return None


def read_log(log, stamped):
    """jobs, the end on ELAPSED's clock (None without the summary) and the progress lines as
    (done, ELAPSED, said, stamp), stamp None unless stamped."""
    jobs = built = before_end = None
    progress = []
    for line in log:
        stamp = None
        if stamped:
            if not (m := re.match(r"(\d+(?:\.\d+)?)\t", line)):
                continue
            stamp, line = float(m.group(1)), line[m.end():]
        if m := re.match(r"jobs\s+(\d+)\b", line):
            jobs = int(m.group(1))
        elif m := re.match(r"built \S+ in (\S+?)[ ,(]", line + " "):
            built = secs(m.group(1))
        elif m := re.match(r"compiles .*the last ended (\S+) before the end", line):
            before_end = secs(m.group(1))
        elif m := re.search(r"\] (\d+)/(\d+)\s+(\S+)\s+(\S+) left\b", line):
            progress.append((int(m.group(1)), secs(m.group(3)), secs(m.group(4)), stamp))
    end = None if built is None or before_end is None else built - before_end
    return jobs, end, progress


def exec_end(records):
    """When the last compiler run of a kiln-exec.jsonl ended, in epoch seconds (None if none did)."""
    ends = []
    for record in records:
        try:
            r = json.loads(record)
            ends.append((r["start_ms"] + r["wall_ms"]) / 1000)
        except (ValueError, TypeError, KeyError):  # a blank or cut line, a record without times
            continue
    return max(ends) if ends else None


def main(argv):
    parser = argparse.ArgumentParser(prog="bench/eta_score.py", description="Scores the ETA a kiln build printed.")
    parser.add_argument("build_log")
    parser.add_argument("--min-left", type=float, default=60.0)
    parser.add_argument("-v", dest="verbose", action="store_true")
    parser.add_argument("--stamped", action="store_true", help="each line is EPOCH<TAB>TEXT (bench/device/eta_live.sh)")
    parser.add_argument("--exec", dest="exec_log", metavar="KILN_EXEC_JSONL",
                        help="the end from the build's kiln-exec.jsonl, each line timed by its stamp (needs --stamped)")
    args = parser.parse_args(argv)
    if args.exec_log and not args.stamped:
        parser.error("--exec times each line by its stamp: it needs --stamped")
    min_left, verbose = args.min_left, args.verbose
    log = read_lines(args.build_log)
    records = read_lines(args.exec_log) if args.exec_log else []
    if log is None or records is None:
        return 2
    jobs, end, lines = read_log(log, args.stamped)
    if args.exec_log:
        end = exec_end(records)
        if jobs is None or end is None:
            print(f"eta: not scored: the log lacks the plan's jobs line or {args.exec_log} has no compiler run")
            return 1
    elif jobs is None or end is None:
        print("eta: not scored: the log lacks the plan's jobs line or the build's summary (a build that did not finish?)")
        return 1
    scored = []
    for done, elapsed, said, stamp in lines:
        truth = end - (stamp if args.exec_log else elapsed)
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
