#!/usr/bin/env python3
"""A PyTorch-sized build, recorded as kiln records it, for `kiln report --simulate`.

Writes DIR/build.ninja (the dependency structure), DIR/.ninja_log (when each step ran, as a
32-core build would have run them) and DIR/kiln-exec.jsonl (each compile's peak memory), then
`kiln report DIR --simulate ...` projects it onto clusters. Nothing here is measured: the sizes are
assumptions, stated below, calibrated to the seeds' figure for a CUDA build of PyTorch: about
140 minutes on 32 cores (../shared/seeds, "Build time (32 cores) ~140 minutes"; other seeds give
1.5-2.5 hours for one to four architectures). Replace it with a recorded build's folder when one
exists: `kiln report BUILD --simulate 16x32x256G` reads the same files.

Usage: slurm_simulate_pytorch.py DIR
"""
import json
import random
import sys
from pathlib import Path

# Assumptions (per unit CPU seconds are lognormal around these medians):
#   codegen: one 60 s step (torchgen) before anything compiles, on the head node
#   libtorch_cpu: 1,900 C++ units, median 35 s, 1.5 GiB
#   libtorch_cuda: 680 CUDA units for 4 architectures, median 150 s, 3 GiB
#   20 heavy CUDA units (flash attention and the like): 10-14 min, 8-12 GiB
#   _C (the Python module): 60 C++ units, median 25 s
#   links on the head node: libtorch_cpu.so 90 s, libtorch_cuda.so 150 s, _C.so 15 s
rng = random.Random(1)


def lognormal(median, sigma=0.6):
    return median * rng.lognormvariate(0, sigma)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    units = []  # (output, kind, seconds, kib, deps)

    def add(name, kind, secs, kib, deps):
        units.append((name, kind, secs, kib, deps))
        return name

    gen = add("gen/torchgen.stamp", "other", 60, 2 << 20, [])
    cpu = [add(f"caffe2/CMakeFiles/torch_cpu.dir/u{i}.cpp.o", "c++", lognormal(35), int(lognormal(1.5) * (1 << 20)), [gen])
           for i in range(1900)]
    cuda = [add(f"caffe2/CMakeFiles/torch_cuda.dir/k{i}.cu.o", "cuda", lognormal(150), int(lognormal(3) * (1 << 20)), [gen])
            for i in range(680)]
    cuda += [add(f"caffe2/CMakeFiles/torch_cuda.dir/flash{i}.cu.o", "cuda", rng.uniform(600, 840),
                 int(rng.uniform(8, 12) * (1 << 20)), [gen]) for i in range(20)]
    libcpu = add("lib/libtorch_cpu.so", "link", 90, 6 << 20, cpu)
    libcuda = add("lib/libtorch_cuda.so", "link", 150, 10 << 20, cuda + [libcpu])
    py = [add(f"torch/CMakeFiles/_C.dir/p{i}.cpp.o", "c++", lognormal(25), int(lognormal(1.2) * (1 << 20)), [gen])
          for i in range(60)]
    add("lib/_C.so", "link", 15, 2 << 20, py + [libcpu, libcuda])

    with open(out / "build.ninja", "w") as f:
        f.write("rule cxx\n  command = true\nrule cuda\n  command = true\nrule link\n  command = true\n"
                "rule gen\n  command = true\n")
        rule = {"c++": "cxx", "cuda": "cuda", "link": "link", "other": "gen"}
        for name, kind, _, _, deps in units:
            f.write(f"build {name}: {rule[kind]} {' '.join(deps)}\n")

    # The recorded schedule: a 32-core machine running them longest-first as dependencies allow.
    by = {u[0]: u for u in units}
    end, free, t, running, done = {}, 32, 0.0, [], set()
    pending = list(units)
    records = []
    while pending or running:
        ready = sorted((u for u in pending if all(d in done for d in u[4])), key=lambda u: -u[2])
        for u in ready:
            if free == 0:
                break
            pending.remove(u)
            free -= 1
            running.append((t + u[2], u[0], t))
        running.sort()
        fin, name, start = running.pop(0)
        t = fin
        free += 1
        done.add(name)
        end[name] = (start, fin)
    with open(out / ".ninja_log", "w") as f:
        f.write("# ninja log v5\n")
        for name, (s, e) in sorted(end.items(), key=lambda kv: kv[1][1]):  # ninja appends as steps end
            f.write(f"{int(s * 1000)}\t{int(e * 1000)}\t0\t{name}\t{abs(hash(name)):x}\n")
    with open(out / "kiln-exec.jsonl", "w") as f:
        for name, kind, secs, kib, _ in units:
            if kind in ("c++", "cuda"):
                s, e = end[name]
                f.write(json.dumps({"output": name, "source": name[:-2], "start_ms": 1_700_000_000_000 + int(s * 1000),
                                    "wall_ms": int((e - s) * 1000), "cpu_ms": int(secs * 1000), "peak_rss_kib": kib,
                                    "exit": 0, "waited_ms": 0, "archs": 4 if kind == "cuda" else 0}) + "\n")
    cpu_h = sum(u[2] for u in units) / 3600
    print(f"{len(units)} steps, {cpu_h:.1f} CPU hours; recorded on 32 cores: {t / 60:.0f} min")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
