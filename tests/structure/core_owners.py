#!/usr/bin/env python3
"""One owner per idea: the small helpers of core/ (text: trim, split, join, case, paths' parts,
prefixes, numbers; sizes; durations; did-you-mean; versions) are written once. A function or lambda
private to a file elsewhere in src/ (static, in an anonymous namespace, or `auto name = [...]`) that is named like one
of them is a copy: call core's instead, or, when the rule really differs, name it for what it reads
(`ar_field`, not `trim_right`). Run by ctest as structure.core_owners."""
import os
import re
import sys

# The headers whose functions are the owned helpers, and the other spellings a copy goes by.
OWNERS = ["core/text.hpp", "core/size_text.hpp", "core/duration_text.hpp", "core/spelling.hpp", "core/version.hpp"]
SYNONYMS = r"""
    l?r?trim\w* \w+_trim strip lstrip rstrip chomp split\w* join\w* starts_with ends_with
    (to_)?(lower|upper)(case)? basename dirname path_(base|dir)name replace_all
    (parse|to)_(int|uint|long|longlong|number|double|count|size)\w* \w*size_(bytes|kib)
    (human|pretty|format|fmt|print)_(duration|time|elapsed|seconds|secs|ms|span)\w* \w*duration_(text|string|str)
    (seconds|secs|elapsed|span)_(text|string|str)
    \w*edit_distance\w* \w*levenshtein\w* \w*(nearest|closest)\w* \w*suggest\w* did_you_mean \w*spell_?check\w*
    \w*version_(compare|cmp|less|greater|before|after|newer|older|parts?|numbers?|key|tuple|split|lt|gt|le|ge|eq)
    (compare|cmp|parse|split|less|sort)_versions?\w* \w*vercmp\w* release_(of|numbers?|parts?)
"""
DECL = re.compile(r"^[A-Za-z].*?\b([a-z_][a-z0-9_]*)\(", re.M)


def owned_names(src):
    names = set()
    for header in OWNERS:
        with open(os.path.join(src, header), encoding="utf-8") as f:
            for line in f:
                m = DECL.match(line)
                if m and not line.startswith(("//", "namespace", "#", "using")):
                    names.add(m.group(1))
    return names


def private_definitions(path):
    """(line, name) of each function defined static or in an anonymous namespace at file scope, and
    of each lambda bound to a name."""
    out = []
    in_anon = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines, 1):
        if re.match(r"^namespace\s*\{", line):
            in_anon = True
            continue
        if in_anon and re.match(r"^\}\s*//\s*namespace\s*$", line):
            in_anon = False
            continue
        lam = re.match(r"^\s*(?:const\s+)?auto\s+([a-z_][a-z0-9_]*)\s*=\s*\[", line)
        if lam:
            out.append((i, lam.group(1)))
            continue
        if line.startswith((" ", "#", "/", "}")) or line.rstrip().endswith(";"):
            continue
        fn = re.match(r"^(static\s+)?(?:inline\s+|constexpr\s+)*[A-Za-z_][\w:<>,\s*&]*?[\s*&]([a-z_][a-z0-9_]*)\(", line)
        if fn and (in_anon or fn.group(1)):
            out.append((i, fn.group(2)))
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")
    owned = owned_names(src)
    pattern = re.compile(r"^(?:" + "|".join(sorted(map(re.escape, owned)) + SYNONYMS.split()) + r")$")
    problems = []
    files = 0
    for dirpath, _, names in os.walk(src):
        if os.path.relpath(dirpath, src).split(os.sep)[0] == "core":
            continue
        for n in sorted(names):
            if not n.endswith((".cpp", ".hpp")):
                continue
            files += 1
            path = os.path.join(dirpath, n)
            for line, name in private_definitions(path):
                if pattern.match(name):
                    problems.append(f"src/{os.path.relpath(path, src)}:{line}: private '{name}' copies a core/ helper "
                                    f"({', '.join(OWNERS)}): call core's, or name it for what it reads")
    for p in sorted(problems):
        print(p)
    print(f"{files} files outside core/, {len(owned)} core helpers, {len(problems)} private copies")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
