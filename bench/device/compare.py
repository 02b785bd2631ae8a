# Counts per (kind, arch) from cuobjdump --list-elf/--list-ptx vs kiln inspect --json, per library.
import collections, json, os, re, sys
W, libs = sys.argv[1], [l.strip() for l in open(sys.argv[2]) if l.strip()]
pat = re.compile(r'\.(sm_\d+[af]?)\.(cubin|ptx)\s*$')
total_ok = 0
print(f"{'library':<34} {'cuobjdump ELF/PTX':>18} {'kiln SASS/PTX':>14} {'archs':>6}  result")
for f in libs:
    n = os.path.basename(f)
    ref = collections.Counter()
    for kind, ext in (("sass", "elf"), ("ptx", "ptx")):
        p = f"{W}/ref/{n}.{ext}"
        if not os.path.exists(p): continue
        for line in open(p):
            m = pat.search(line)
            if m: ref[(kind, m.group(1))] += 1
    try:
        j = json.load(open(f"{W}/kiln/{n}.json"))
        ents = j["files"][0]["entries"]
    except Exception as e:
        print(f"{n:<34} kiln json unreadable: {e}"); continue
    got = collections.Counter((e["kind"], e["arch"]) for e in ents)
    # cuobjdump 13.0 prints SASS sm_100f / sm_120f entries as sm_100 / sm_120 (PTX keeps the f); kiln keeps the f.
    folded = collections.Counter()
    for (k, a), v in got.items(): folded[(k, a[:-1] if a.endswith("f") and k == "sass" else a)] += v
    exact = ref == got
    ok = exact or ref == folded
    reloc = len(j["files"][0].get("relocatable_entries", []))
    total_ok += ok
    rs = sum(v for (k, a), v in ref.items() if k == "sass"); rp = sum(v for (k, a), v in ref.items() if k == "ptx")
    gs = sum(v for (k, a), v in got.items() if k == "sass"); gp = sum(v for (k, a), v in got.items() if k == "ptx")
    print(f"{n:<34} {f'{rs}/{rp}':>18} {f'{gs}/{gp}':>14} {len(set(a for _, a in ref)):>6}  {('MATCH' if exact else 'MATCH (f folded)') if ok else 'DIFF'}{f'  (+{reloc} __nv_relfatbin entries kept apart)' if reloc else ''}")
    if not ok:
        for key in sorted(set(ref) | set(folded)):
            if ref[key] != folded[key]: print(f"    {key}: cuobjdump {ref[key]} kiln {folded[key]}")
    if len(libs) <= 40 and ok:
        print("    " + ", ".join(f"{k}:{a}={c}" for (k, a), c in sorted(got.items(), key=lambda x: (x[0][0], int(re.sub(r'\D', '', x[0][1])), x[0][1]))))
print(f"{total_ok}/{len(libs)} libraries match exactly per (kind, arch)")
