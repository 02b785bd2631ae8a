#!/usr/bin/env python3
"""The include graph of src/ keeps its layers: no folder includes a folder above it, and no cycle
runs between files (a .hpp and its .cpp count as one file). Run by ctest as structure.layers."""
import os
import re
import sys

# Lowest first; a folder may include only folders at or below its own rank.
LAYERS = ["io", "core", "binary", "diagnose", "probe", "read", "plan", "launch", "drive", "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([A-Za-z0-9_]+)\.hpp"', re.M)


def graph(src):
    edges = {}
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            stem, ext = os.path.splitext(name)
            if ext not in (".hpp", ".cpp"):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = f.read()
            node = f"{folder}/{stem}"
            targets = edges.setdefault(node, set())
            for inc_folder, inc_stem in INCLUDE.findall(text):
                if f"{inc_folder}/{inc_stem}" != node:
                    targets.add(f"{inc_folder}/{inc_stem}")
    return edges


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")
    edges = graph(src)
    problems = []
    for node, targets in sorted(edges.items()):
        folder = node.split("/")[0]
        if folder not in RANK:
            problems.append(f"{node}: folder '{folder}' has no layer (add it to LAYERS in tests/structure/layers.py)")
            continue
        for t in sorted(targets):
            tf = t.split("/")[0]
            if tf in RANK and RANK[tf] > RANK[folder]:
                problems.append(f"{node} includes {t}: '{folder}' may not include the higher layer '{tf}'")
    for comp in cycles(edges):
        problems.append("include cycle between files: " + " <-> ".join(comp))
    folder_edges = {}
    for node, targets in edges.items():
        for t in targets:
            a, b = node.split("/")[0], t.split("/")[0]
            if a != b:
                folder_edges.setdefault(a, set()).add(b)
    for comp in cycles(folder_edges):
        problems.append("include cycle between folders: " + " <-> ".join(comp))
    for p in problems:
        print(p)
    print(f"{len(edges)} files, {sum(len(t) for t in edges.values())} includes, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
