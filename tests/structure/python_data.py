#!/usr/bin/env python3
"""The Python programs kiln runs live as data/*.py (embedded into the binary by cmake/embed_data.cmake)
so that Python's own tools can read them. Run by ctest as structure.python_data: each one compiles
(py_compile, as `python3 -m py_compile` would, the bytecode written to a temporary folder, not the
tree), parses under Python 3.8's grammar (the oldest interpreter kiln supports for a project), and is
named by kiln's C++ (src/) as data::file("NAME.py"), so none is dead weight or missing."""
import ast
import os
import py_compile
import sys
import tempfile


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    data = os.path.join(root, "data")
    programs = sorted(n for n in os.listdir(data) if n.endswith(".py"))
    sources = ""
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for n in names:
            if n.endswith((".cpp", ".hpp")):
                with open(os.path.join(dirpath, n), encoding="utf-8") as f:
                    sources += f.read()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in programs:
            path = os.path.join(data, name)
            try:
                py_compile.compile(path, cfile=os.path.join(tmp, name + "c"), doraise=True)
                with open(path, encoding="utf-8") as f:
                    ast.parse(f.read(), path, feature_version=(3, 8))
            except (py_compile.PyCompileError, SyntaxError) as e:
                problems.append(f"data/{name}: does not compile: {e}")
            if f'"{name}"' not in sources:
                problems.append(f'data/{name}: no data::file("{name}") in src/: embed it where it runs, or remove it')
    for p in problems:
        print(p)
    print(f"{len(programs)} Python programs in data/, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
