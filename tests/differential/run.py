#!/usr/bin/env python3
"""Differential tests: kiln's reading of an architecture spelling against the real tool's.

  run.py nvcc  --kiln KILN   nvcc --dryrun (and real compiles where marked) on tests/differential/nvcc.toml
  run.py cmake --kiln KILN   a real CMake configure per spec, its flags through nvcc --dryrun
  run.py torch --kiln KILN   torch.utils.cpp_extension._get_cuda_arch_flags (needs torch)

A case agrees when both accept and name the same fat-binary contents, or the tool refuses and
kiln refuses too (exit 2, the token quoted), says the local nvcc cannot build it (`--check`), or
reads it on purpose with a warning naming the tool. Prints one line per case and a summary;
--json FILE also writes every case. Exit 0 when all agree, 1 otherwise, 77 when the tool is absent.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGE = re.compile(r"--image3=kind=(elf|ptx),sm=([0-9]+[af]?)")


def load(name):
    with open(os.path.join(HERE, name + ".toml"), "rb") as f:
        return tomllib.load(f)["cases"]


def images_to_names(text):
    out = set()
    for kind, sm in IMAGE.findall(text):
        out.add(("sm_" if kind == "elf" else "compute_") + sm)
    return sorted(out, key=sort_key)


def sort_key(name):
    m = re.match(r"(sm|compute)_([0-9]+)([af]?)", name)
    return (int(m.group(2)), m.group(3), m.group(1) == "compute") if m else (0, name, False)


def first_error(text):
    for line in text.splitlines():
        if re.search(r"fatal|error", line, re.I):
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "failed"


def nvcc_oracle(nvcc, src, workdir, flags, compile_too=False):
    """What nvcc puts into the fat binary for these flags, or its refusal."""
    out_o = os.path.join(workdir, "k%d.o" % abs(hash(tuple(flags))))
    dry = subprocess.run([nvcc, "--dryrun", "-c", src, "-o", out_o] + flags, capture_output=True, text=True, timeout=120)
    text = dry.stdout + dry.stderr
    if dry.returncode != 0:
        return {"ok": False, "error": first_error(text), "unsupported": "Unsupported gpu architecture" in text}
    if compile_too:
        real = subprocess.run([nvcc, "-c", src, "-o", out_o] + flags, capture_output=True, text=True, timeout=300)
        if real.returncode != 0:
            t = real.stdout + real.stderr
            return {"ok": False, "error": first_error(t), "unsupported": False}
    return {"ok": True, "targets": images_to_names(text)}


def kiln_reads(kiln, syntax, spec, extra=()):
    """kiln archs --json --check: targets, refusal (exit 2) or what the local nvcc cannot build."""
    argv = [kiln, "archs", "--from", syntax, "--json"] + list(extra)
    if syntax != "torch":
        argv.append("--check")
    argv += shlex.split(spec) if syntax == "nvcc" else [spec]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    r = {"exit": p.returncode, "stderr": p.stderr.strip()}
    if p.returncode in (0, 1) and p.stdout.strip():
        j = json.loads(p.stdout)
        r["targets"] = sorted([t["arch"] if t["kind"] == "sass" else t["arch"].replace("sm_", "compute_") for t in j["targets"]], key=sort_key)
        r["unsupported"] = [u["arch"] for u in j.get("check", {}).get("unsupported", [])]
        r["warnings"] = j.get("warnings", [])
    return r


def judge(tool, oracle, kiln):
    """(agrees, how) for one case."""
    if oracle["ok"]:
        if kiln["exit"] == 2:
            return False, "%s accepts (%s) but kiln refuses: %s" % (tool, " ".join(oracle["targets"]), kiln["stderr"])
        if kiln.get("targets") != oracle["targets"]:
            return False, "%s builds %s, kiln says %s" % (tool, " ".join(oracle["targets"]), " ".join(kiln.get("targets", [])))
        if kiln.get("unsupported"):
            return False, "%s builds it but kiln --check says nvcc cannot build %s" % (tool, ", ".join(kiln["unsupported"]))
        return True, "same: " + " ".join(oracle["targets"])
    # The tool refuses.
    if kiln["exit"] == 2 and re.search(r"'[^']*'", kiln["stderr"]):
        return True, "both refuse; kiln: " + kiln["stderr"].splitlines()[-1]
    if kiln["exit"] == 1 and kiln.get("unsupported") and oracle.get("unsupported"):
        return True, "the local nvcc cannot build %s; kiln --check says so" % ", ".join(kiln["unsupported"])
    warned = [w for w in kiln.get("warnings", []) if tool.lower() in w.lower()]
    if kiln["exit"] == 0 and warned:
        return True, "kiln normalises with a warning: " + warned[0]
    return False, "%s refuses (%s) but kiln accepts: %s" % (tool, oracle["error"], " ".join(kiln.get("targets", [])))


def report(results, json_path):
    bad = [r for r in results if not r["agrees"]]
    for r in results:
        print("%s  %-58s %s" % ("ok  " if r["agrees"] else "DIFF", repr(r["input"]), r["how"]))
    print("%d cases, %d agree, %d disagree" % (len(results), len(results) - len(bad), len(bad)))
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if not bad else 1


def find_nvcc():
    for d in [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]:
        if d and os.access(os.path.join(d, "bin", "nvcc"), os.X_OK):
            return os.path.join(d, "bin", "nvcc")
    return shutil.which("nvcc")


def tiny_source(workdir):
    src = os.path.join(workdir, "k.cu")
    with open(src, "w") as f:
        f.write("__global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n")
    return src


def suite_nvcc(args):
    nvcc = find_nvcc()
    if not nvcc:
        print("skip: no nvcc")
        return 77
    cases = load("nvcc")
    with tempfile.TemporaryDirectory() as wd:
        src = tiny_source(wd)

        def one(case):
            flags = case["flags"]
            oracle = nvcc_oracle(nvcc, src, wd, shlex.split(flags), case.get("compile", False))
            kiln = kiln_reads(args.kiln, "nvcc", flags)
            ok, how = judge("nvcc", oracle, kiln)
            return {"input": flags, "oracle": oracle, "kiln": kiln, "agrees": ok, "how": how}

        with cf.ThreadPoolExecutor(args.jobs) as ex:
            results = list(ex.map(one, cases))
    return report(results, args.json)


def cmake_flags(build_dir):
    """The CUDA compile flags CMake wrote for the one object (FLAGS = ... in build.ninja)."""
    with open(os.path.join(build_dir, "build.ninja")) as f:
        text = f.read()
    block = text[text.find("k.cu.o:"):] if "k.cu.o:" in text else text
    m = re.search(r"^\s*FLAGS = (.*)$", block, re.M)
    return shlex.split(m.group(1)) if m else []


def suite_cmake(args):
    nvcc, cmake, ninja = find_nvcc(), shutil.which("cmake"), shutil.which("ninja")
    if not (nvcc and cmake and ninja):
        print("skip: needs nvcc, cmake and ninja")
        return 77
    cases = load("cmake")
    with tempfile.TemporaryDirectory() as wd:
        src_dir = os.path.join(wd, "p")
        os.makedirs(src_dir)
        tiny_source(src_dir)
        with open(os.path.join(src_dir, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.18)\nproject(d LANGUAGES CUDA)\nadd_library(k OBJECT k.cu)\n")
        src = os.path.join(src_dir, "k.cu")
        lanes = max(1, min(args.jobs, len(cases)))
        # One build folder per lane: the first configure finds the compiler (slow), later ones
        # only regenerate with the new CMAKE_CUDA_ARCHITECTURES.
        def lane(i):
            bdir = os.path.join(wd, "b%d" % i)
            base = [cmake, "-S", src_dir, "-B", bdir, "-G", "Ninja", "-DCMAKE_CUDA_COMPILER=" + nvcc]
            subprocess.run(base + ["-DCMAKE_CUDA_ARCHITECTURES=75"], capture_output=True, text=True, timeout=600)
            out = []
            for case in cases[i::lanes]:
                spec = case["spec"]
                p = subprocess.run(base + ["-DCMAKE_CUDA_ARCHITECTURES=" + spec], capture_output=True, text=True, timeout=600)
                if p.returncode != 0:
                    oracle = {"ok": False, "error": "cmake: " + first_error(p.stdout + p.stderr), "unsupported": False}
                else:
                    flags = cmake_flags(bdir)
                    oracle = nvcc_oracle(nvcc, src, bdir, flags)
                    oracle["cmake_flags"] = " ".join(flags)
                kiln = kiln_reads(args.kiln, "cmake", spec)
                ok, how = judge("CMake", oracle, kiln)
                out.append({"input": spec, "oracle": oracle, "kiln": kiln, "agrees": ok, "how": how})
            return out

        with cf.ThreadPoolExecutor(lanes) as ex:
            per_lane = list(ex.map(lane, range(lanes)))
    order = {c["spec"]: n for n, c in enumerate(cases)}
    results = sorted([r for l in per_lane for r in l], key=lambda r: order[r["input"]])
    return report(results, args.json)


def suite_torch(args):
    try:
        import torch  # noqa: F401
        from torch.utils import cpp_extension
    except Exception as e:  # no torch here: the suite belongs to the GPU host
        print("skip: torch is not importable (%s)" % e)
        return 77
    import inspect
    version = torch.__version__
    src = inspect.getsource(cpp_extension._get_cuda_arch_flags)
    m = re.search(r"supported_arches = \[(.*?)\]", src, re.S)
    torch_supported = re.findall(r"'([^']+)'", m.group(1)) if m else []
    nm = re.search(r"named_arches = collections\.OrderedDict\(\[(.*?)\]\)", src, re.S)
    named = re.findall(r"\('([^']+)', '([^']+)'\)", nm.group(1)) if nm else []
    with open(os.path.join(HERE, "..", "..", "data", "torch_archs.toml"), "rb") as f:
        tables = tomllib.load(f)["torch"]
    mine = tables[-1]
    table_same = sorted(mine["supported"]) == sorted(torch_supported) and [tuple(p) for p in mine["named"]] == named
    print("torch %s: supported_arches %s; named %s" % (version, torch_supported, named))
    print("data/torch_archs.toml %s: %s" % (mine["version"], "same table" if table_same else "DIFFERENT table"))
    results = []
    for spec in load("torch"):
        os.environ["TORCH_CUDA_ARCH_LIST"] = spec
        try:
            flags = cpp_extension._get_cuda_arch_flags()
            names = set()
            for fl in flags:
                mm = re.search(r"code=((sm|compute)_[0-9]+[af]?)", fl)
                if mm:
                    names.add(mm.group(1))
            oracle = {"ok": True, "targets": sorted(names, key=sort_key), "flags": flags}
        except Exception as e:
            oracle = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "unsupported": False}
        kiln = kiln_reads(args.kiln, "torch", spec, ["--torch", version])
        ok, how = judge("torch", oracle, kiln)
        results.append({"input": spec, "oracle": oracle, "kiln": kiln, "agrees": ok, "how": how})
    rc = report(results, args.json)
    if not table_same:
        print("DIFF the installed torch's table differs from data/torch_archs.toml")
        rc = 1
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", choices=["nvcc", "cmake", "torch"])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--json", help="write every case to this file")
    ap.add_argument("-j", "--jobs", type=int, default=max(2, os.cpu_count() or 2))
    args = ap.parse_args()
    args.kiln = os.path.abspath(args.kiln)
    return {"nvcc": suite_nvcc, "cmake": suite_cmake, "torch": suite_torch}[args.suite](args)


if __name__ == "__main__":
    sys.exit(main())
