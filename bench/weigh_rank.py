#!/usr/bin/env python3
"""How well kiln's estimate before any history ranks a project's compile units: the Spearman rank
correlation between `kiln exec --weigh` and the CPU each unit really took in a build's exec records.

    python3 bench/weigh_rank.py KILN EXEC_JSONL SRC_ROOT [--marker DIR] [-v]

EXEC_JSONL is a build's kiln-exec.jsonl (each compile's source and cpu_ms; a split compile's cpu_ms
is its whole CPU). SRC_ROOT is a checkout of the same project on this machine: each record's source
path is taken from the last `/DIR/` in it (--marker, default the basename of SRC_ROOT) onwards.
The units are weighed as CUDA units for one target (.cu) or C++ units, without history (kiln exec
runs with PATH alone, none of the launcher's variables). -v prints each unit: measured CPU seconds, kiln's weight, name."""
import json
import os
import subprocess
import sys
import tempfile


def ranks(values):
    """Average ranks, ties sharing theirs."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


def main(argv):
    args = [a for a in argv[1:] if a != "-v"]
    marker = None
    if "--marker" in args:
        i = args.index("--marker")
        marker = args[i + 1]
        del args[i : i + 2]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    kiln, record, root = args
    marker = "/" + (marker or os.path.basename(os.path.normpath(root))) + "/"
    cpu, lines = {}, []
    with open(record, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            src = r.get("source") or ""
            if marker not in src or "cpu_ms" not in r:
                continue
            rel = src[src.rindex(marker) + len(marker) :]
            name = rel.replace("/", ":")
            cpu[name] = r["cpu_ms"] / 1000
            kind = "cuda" if rel.endswith(".cu") else "cxx"
            lines.append(f"unit\tp\t16\t{kind}\t1\t{name}\t{os.path.join(root, rel)}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as plan:
        plan.writelines(lines)
    try:
        env = {"PATH": os.environ.get("PATH", "")}  # no launcher variables: no history
        out = subprocess.run([kiln, "exec", "--weigh", plan.name], capture_output=True, text=True, env=env, check=True)
    finally:
        os.unlink(plan.name)
    weight = {}
    print(out.stdout.splitlines()[0].replace("\t", " "))  # basis estimate
    for line in out.stdout.splitlines()[1:]:
        w, name = line.split("\t", 1)
        weight[name] = float(w)
    names = sorted(n for n in cpu if n in weight)
    if "-v" in argv:
        for n in sorted(names, key=lambda n: -cpu[n]):
            print(f"{cpu[n]:8.1f} {weight[n]:8.0f}  {n}")
    rho = spearman([weight[n] for n in names], [cpu[n] for n in names])
    print(f"spearman {rho:.3f} over {len(names)} units")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
