#!/usr/bin/env python3
"""No function in src/ is longer than 120 lines, counted from the first line of its signature to its
closing brace (lambdas count toward the function that holds them). A long function does several
jobs; name its steps instead. Run by ctest as structure.function_length; lists every offender."""
import os
import re
import sys

LIMIT = 120

# Functions known to be long whose split belongs to other work in progress, each with its owner.
# Every entry must still be an offender (a stale entry is a problem too), so the list only shrinks.
KNOWN = {}

SCOPE = re.compile(r"\b(namespace|struct|class|union)\b")
NAME = re.compile(r"([A-Za-z_~][A-Za-z0-9_:~]*(?:operator\s*[^\s(]+)?)\s*\($")


def strip(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        elif c == "#" and (i == 0 or text[i - 1] == "\n"):  # a preprocessor line
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The function's name if `header` (the text before a '{' in a namespace or class) is a function
    signature, else None."""
    h = " ".join(header.split())
    if not h or "=" in h.split("(")[0] or SCOPE.search(h.split("(")[0]) or h.startswith("enum"):
        return None
    if ")" not in h:
        return None
    # Drop a constructor's member initialisers: the signature ends at the ')' closing its parameters.
    depth, end = 0, None
    for k, ch in enumerate(h):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                end = k
                break
    if end is None:
        return None
    start = h.find("(")
    m = NAME.search(h[:start + 1])
    return m.group(1) if m else None


def functions(text):
    """(name, first line, last line) of every function body in the text."""
    s = strip(text)
    out = []
    stack = []  # each open brace: "scope" (namespace, class: functions may start inside), "fn", "other"
    header_start = 0  # where the text before the next '{' in a scope begins
    fn_open = None
    line = 1
    line_at = []
    for ch in s:
        line_at.append(line)
        if ch == "\n":
            line += 1
    for i, ch in enumerate(s):
        in_scope = all(k == "scope" for k in stack)
        if ch == "{":
            if in_scope:
                header = s[header_start:i]
                name = function_name(header)
                if name:
                    first = header_start + len(header) - len(header.lstrip())
                    fn_open = (name, line_at[first])
                    stack.append("fn")
                elif SCOPE.search(header.split("(")[0]) and "=" not in header.split("{")[0].split("(")[0]:
                    stack.append("scope")
                else:
                    stack.append("other")
            else:
                stack.append("inner")
        elif ch == "}":
            kind = stack.pop() if stack else "scope"
            if kind == "fn" and fn_open:
                out.append((fn_open[0], fn_open[1], line_at[i]))
                fn_open = None
            if all(k == "scope" for k in stack):
                header_start = i + 1
        elif ch == ";" and in_scope:
            header_start = i + 1
        elif ch == ":" and in_scope and re.search(r"\b(public|private|protected)\s*$", s[header_start:i]):
            header_start = i + 1
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")
    long_ones, seen = [], set()
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for fn, first, last in functions(text):
                length = last - first + 1
                if length > LIMIT:
                    key = f"{rel}:{fn.split('::')[-1]}"
                    long_ones.append((length, key, first))
    problems = 0
    for length, key, first in sorted(long_ones, reverse=True):
        seen.add(key)
        file, fn = key.split(":", 1)
        if key in KNOWN:
            print(f"known: {file}:{first}: {fn} is {length} lines ({KNOWN[key]})")
        else:
            print(f"{file}:{first}: {fn} is {length} lines (limit {LIMIT}): name its steps")
            problems += 1
    for key in sorted(set(KNOWN) - seen):
        print(f"stale: {key} is listed as known in tests/structure/function_length.py but is no longer over {LIMIT} lines: remove it")
        problems += 1
    print(f"{len(long_ones)} functions over {LIMIT} lines, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
