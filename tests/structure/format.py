#!/usr/bin/env python3
"""kiln's own C++ (src/, tests/unit/, tests/support/, fuzz/, bench/) is formatted by .clang-format. Run by
ctest as structure.format; lists every file clang-format would change and how to fix it. Example projects and
test fixtures are inputs that imitate users' code, so they keep their own layout."""
import os
import shutil
import subprocess
import sys

FOLDERS = ("src", "tests/unit", "tests/support", "fuzz", "bench")
SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    tool = os.environ.get("CLANG_FORMAT") or shutil.which("clang-format")
    if not tool:
        print("clang-format not found: install Debian's clang-format (README command 1)")
        return 77
    files = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(SUFFIXES)]
    bad = []
    for i in range(0, len(files), 64):
        batch = files[i:i + 64]
        out = subprocess.run([tool, "--dry-run", "--style=file"] + batch, capture_output=True, text=True)
        for line in out.stderr.splitlines():
            if "warning:" in line or "error:" in line:
                path = line.split(":", 1)[0]
                if path not in bad:
                    bad.append(path)
    for path in bad:
        print(f"{os.path.relpath(path, root)}: not formatted: run clang-format -i {os.path.relpath(path, root)}")
    print(f"{len(files)} files, {len(bad)} not formatted")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
