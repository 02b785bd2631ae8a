# Register counts per (arch, function) from cuobjdump --dump-resource-usage vs kiln --kernels --json.
import collections, json, re, sys
res, kj = sys.argv[1], sys.argv[2]
ref = collections.Counter(); arch = None; fn = None
for line in open(res, errors="replace"):
    m = re.match(r'\s*arch = (sm_\w+)', line)
    if m: arch = m.group(1); continue
    m = re.match(r'\s*Function (\S+):', line)
    if m: fn = m.group(1).rstrip(':'); continue
    m = re.search(r'REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)', line)
    if m and fn and arch:
        ref[(arch, fn, int(m.group(1)), int(m.group(3)))] += 1; fn = None
j = json.load(open(kj))
got = collections.Counter()
for e in j["files"][0]["entries"]:
    if e["kind"] != "sass": continue
    for k in e.get("kernels", []):
        if not k.get("entry", True): continue  # cuobjdump lists __global__ functions only
        got[(e["arch"], k["name"], k["registers"], k["shared"])] += 1
both = sum((ref & got).values())
def strip(c):  # (arch, name, REG, SHARED) -> (arch, name, REG), linear
    out = collections.Counter()
    for k, v in c.items(): out[k[:3]] += v
    return out
regs = sum((strip(ref) & strip(got)).values())
print(f"{res.split('/')[-1]}: cuobjdump functions {sum(ref.values())}, kiln functions {sum(got.values())}, "
      f"identical (arch, name, REG) {regs}, identical (arch, name, REG, SHARED) {both}")
diff = list((ref - got).items())[:5]
for d in diff: print("   only cuobjdump:", d)
for d in list((got - ref).items())[:5]: print("   only kiln:", d)
