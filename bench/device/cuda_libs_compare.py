# kiln inspect --json against cuobjdump --list-elf/--list-ptx per file and (kind, arch), for the fat
# binaries cuobjdump can see (.nv_fatbin, or what the .nvFatBinSegment records and fatbinData
# symbols point at). Containers kiln found by header scan in other sections (.ldata, .rodata,
# .cask_resource) are counted apart: cuobjdump does not list them.
# usage: cuda_libs_compare.py INSPECT_JSON REF_DIR
import collections, json, os, re, sys

inspect, ref_dir = json.load(open(sys.argv[1])), sys.argv[2]
pat = re.compile(r'\.(sm_\d+[af]?)\.(cubin|ptx)\s*$')

def described(section):
    return section in (".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment", "") or section.startswith("symbol ")

def fold(counter):
    # cuobjdump 13.0 names SASS sm_100f / sm_120f entries sm_100 / sm_120 (PTX keeps the f).
    out = collections.Counter()
    for (k, a), v in counter.items(): out[(k, a[:-1] if k == "sass" and a.endswith("f") else a)] += v
    return out

rows, match, compared, blind = [], 0, 0, 0
for f in inspect["files"]:
    if not (f["cuda"] or f.get("lto_ir_entries")): continue
    n = f["path"].replace("/", "_")
    ref = collections.Counter()
    for kind, ext in (("sass", "elf"), ("ptx", "ptx")):
        p = os.path.join(ref_dir, f"{n}.{ext}")
        if os.path.exists(p):
            for line in open(p, errors="replace"):
                m = pat.search(line)
                if m: ref[(kind, m.group(1))] += 1
    seen = collections.Counter((e["kind"], e["arch"]) for e in f["entries"] if described(e["section"]))
    scanned = [e for e in f["entries"] if not described(e["section"])]
    sections = sorted({e["section"] for e in scanned})
    lto = len(f.get("lto_ir_entries", []))
    if ref or seen:
        compared += 1
        ok = fold(seen) == fold(ref)
        match += ok
        verdict = "MATCH" if ok else "DIFF"
    else:
        verdict = "cuobjdump blind"
    if scanned and not ref: blind += 1
    rows.append((os.path.basename(f["path"]), sum(ref.values()), sum(seen.values()), len(scanned), ",".join(sections), lto, verdict))
    if verdict == "DIFF":
        for key in sorted(set(fold(ref)) | set(fold(seen))):
            if fold(ref)[key] != fold(seen)[key]: rows.append((f"    {key}", fold(ref)[key], fold(seen)[key], "", "", "", ""))

print(f"\n{'file':<40} {'cuobjdump':>9} {'kiln':>7} {'+scan':>7} {'scanned in':<24} {'LTO':>6}  result")
for r in rows: print(f"{r[0]:<40} {r[1]:>9} {r[2]:>7} {r[3]:>7} {r[4]:<24} {r[5]:>6}  {r[6]}")
print(f"\nSUMMARY: {match}/{compared} files where cuobjdump sees fat binaries agree per (kind, arch), f folded; "
      f"{sum(1 for r in rows if r[3] and r[6] != '')} files with containers outside .nv_fatbin found by header scan "
      f"({sum(r[3] for r in rows if isinstance(r[3], int))} entries)")
