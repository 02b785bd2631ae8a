#!/usr/bin/env python3
"""Cuts a flash-attention 2 checkout down to some head dims, in place, for a build that fits a device call.

usage: bench/fa_cut.py CHECKOUT HDIM [HDIM ...]     e.g. bench/fa_cut.py /tmp/fa/flash-attention 64

Two edits, both on the user's copy (nothing of flash-attention is kept in this repository):
  1. setup.py's source list keeps the csrc/flash_attn/src/flash_*_hdimN_* units of the head dims given
     (the other source lines are left as they are);
  2. HEADDIM_SWITCH (csrc/flash_attn/src/static_switch.h) throws for a head dim cut out instead of
     calling its kernels, so the module references only the units built: it loads, `kiln verify`
     passes, and the checks run on the head dims kept.
Without 2 the module has undefined symbols for every head dim cut out, and fails verify by design.
"""
import pathlib
import re
import sys


def cut_setup(text, keep):
    out = []
    for line in text.splitlines(keepends=True):
        unit = re.search(r"csrc/flash_attn/src/flash_\w+?_hdim(\d+)_", line)
        if unit and int(unit.group(1)) not in keep:
            continue
        out.append(line)
    return "".join(out)


def cut_switch(text, keep):
    # One branch per head dim: `constexpr static int kHeadDim = N;` then `return __VA_ARGS__();`.
    branch = re.compile(r"constexpr static int kHeadDim = (\d+);(\s*\\\s*)return __VA_ARGS__\(\);")

    def repl(m):
        if int(m.group(1)) in keep:
            return m.group(0)
        return (f'throw std::runtime_error("head dim {m.group(1)} was cut out of this build");'
                f"{m.group(2)}")

    body = text[text.index("#define HEADDIM_SWITCH"):]
    end = body.index("}()") + 3
    cut = branch.sub(repl, body[:end])
    return text.replace(body[:end], cut), cut != body[:end]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: fa_cut.py CHECKOUT HDIM [HDIM ...]")
    root = pathlib.Path(sys.argv[1])
    keep = {int(h) for h in sys.argv[2:]}
    setup = root / "setup.py"
    switch = root / "csrc/flash_attn/src/static_switch.h"
    for f in (setup, switch):
        if not f.is_file():
            sys.exit(f"fa_cut.py: {f} is missing: CHECKOUT must be a flash-attention 2 checkout")
    before = setup.read_text()
    after = cut_setup(before, keep)
    setup.write_text(after)
    text, changed = cut_switch(switch.read_text(), keep)
    if not changed:
        sys.exit(f"fa_cut.py: no HEADDIM_SWITCH branch to cut in {switch}")
    if "#include <stdexcept>" not in text:
        text = "#include <stdexcept>\n" + text
    switch.write_text(text)
    units = len(re.findall(r"csrc/flash_attn/src/flash_\w+\.cu", after))
    print(f"fa_cut.py: kept head dims {sorted(keep)}: {units} units in setup.py")


if __name__ == "__main__":
    main()
