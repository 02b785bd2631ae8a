#!/usr/bin/env python3
"""bench/eta_score.py on hand-written logs (tests/fixtures/eta/score/): the ratios it prints, its
first-wave and --min-left filters, and its refusals (not scored: exit 1; unreadable: one line, exit 2).

    python3 tests/bench/eta_score.py SOURCE_DIR

build.log: jobs 2; the last compile ends at 5m00s - 20.0s = 280 s on ELAPSED's clock, so the lines
at 1m20s, 2m00s, 3m00s and 3m40s have 200, 160, 100 and 60 s left and said 240, 80, 160 and 15 s
(1.20, 0.50, 1.60, 0.25); the line at 1m00s (1/6) is before the first wave ends. stamped.log is the
same build as bench/device/eta_live.sh keeps it (stderr only, each line `EPOCH<TAB>TEXT`: the
progress lines at 1800000000 + ELAPSED + 0.5) and exec.jsonl its compiler runs, the last (the link)
ending at 1800000280.5 and the last unit at 1800000265.0: scored by the stamps against the link's
end, the same figures."""
import os
import subprocess
import sys
import tempfile

failures = []


def score(source, *args):
    run = subprocess.run([sys.executable, os.path.join(source, "bench", "eta_score.py"), *args],
                         capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout, run.stderr


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}:\n  got  {got!r}\n  want {want!r}")


def stamped_exec(source, fixtures, tmp, log):
    stamped, records = os.path.join(fixtures, "stamped.log"), os.path.join(fixtures, "exec.jsonl")
    expect("--stamped --exec", score(source, stamped, "--stamped", "--exec", records), score(source, log))
    expect("--stamped --exec --min-left 150 -v",
           score(source, stamped, "--stamped", "--exec", records, "--min-left", "150", "-v"),
           score(source, log, "--min-left", "150", "-v"))
    expect("--stamped without --exec or summary", score(source, stamped, "--stamped")[:2],
           (1, "eta: not scored: the log lacks the plan's jobs line or the build's summary "
               "(a build that did not finish?)\n"))
    expect("--stamped on a log without stamps", score(source, log, "--stamped", "--exec", records),
           (1, f"eta: not scored: the log lacks the plan's jobs line or {records} has no compiler run\n", ""))
    whole = os.path.join(tmp, "stamped_whole.log")  # stamped with its summary: scored on ELAPSED's clock
    with open(log) as f, open(whole, "w") as out:
        out.writelines(f"{1900000000 + i}.25\t{line}" for i, line in enumerate(f))
    expect("--stamped with the summary", score(source, whole, "--stamped"), score(source, log))
    missing = os.path.join(tmp, "missing.jsonl")
    expect("unreadable --exec", score(source, stamped, "--stamped", "--exec", missing),
           (2, "", f"eta: cannot read {missing}: No such file or directory\n"))
    code, out, err = score(source, stamped, "--exec", records)
    expect("--exec without --stamped", (code, out, err.splitlines()[-1:]),
           (2, "", ["bench/eta_score.py: error: --exec times each line by its stamp: it needs --stamped"]))


def main(source):
    fixtures = os.path.join(source, "tests", "fixtures", "eta", "score")
    log = os.path.join(fixtures, "build.log")
    expect("default", score(source, log),
           (0, "eta: 3 lines from the first wave (2 units) with over 60 s left: 0.50 to 1.60 of the time left; "
               "worst at 4 done, 180 s: said 160 s, true 100 s\n", ""))
    expect("--min-left 0", score(source, log, "--min-left", "0"),
           (0, "eta: 4 lines from the first wave (2 units) with over 0 s left: 0.25 to 1.60 of the time left; "
               "worst at 5 done, 220 s: said 15 s, true 60 s\n", ""))
    expect("--min-left 150 -v", score(source, log, "--min-left", "150", "-v"),
           (0, "    2 at      80 s: said    240 s, true    200 s,  1.20\n"
               "    3 at     120 s: said     80 s, true    160 s,  0.50\n"
               "eta: 2 lines from the first wave (2 units) with over 150 s left: 0.50 to 1.20 of the time left; "
               "worst at 3 done, 120 s: said 80 s, true 160 s\n", ""))
    expect("--min-left 1000", score(source, log, "--min-left", "1000"),
           (1, "eta: not scored: no progress line from the first wave (2 units) with over 1000 s left\n", ""))
    with tempfile.TemporaryDirectory() as tmp:
        unfinished = os.path.join(tmp, "unfinished.log")
        with open(log) as f, open(unfinished, "w") as out:
            out.writelines(line for line in f if not line.startswith(("built ", "compiles ")))
        expect("no summary", score(source, unfinished),
               (1, "eta: not scored: the log lacks the plan's jobs line or the build's summary "
                   "(a build that did not finish?)\n", ""))
        missing = os.path.join(tmp, "missing.log")
        expect("unreadable", score(source, missing),
               (2, "", f"eta: cannot read {missing}: No such file or directory\n"))
        stamped_exec(source, fixtures, tmp, log)
    for failure in failures:
        print("FAIL", failure)
    print(f"eta_score: {'all passed' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")))
