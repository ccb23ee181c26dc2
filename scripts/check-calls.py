#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the calls between the module's files and fail on a circle.

Each non-static function of hugetmpfs/*.c belongs to the file that defines
it; a file that calls it (directly, or through a static inline of a header
that calls it) depends on that file. The files must form no circle, so
that each can be read, and changed, knowing only those below it.

    check-calls.py [--list] [DIR]    (default DIR: hugetmpfs/ beside this)

Prints each circle found (and with --list every file's dependencies);
exits 1 if there is a circle, 0 if none.
"""
import os
import re
import sys

CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# A definition: a line starting at column 0, not static, name then "(",
# and the body's "{" on a later line at column 0 (kernel style).
DEF = re.compile(r"^(?!static\b)(?:[A-Za-z_][\w \t\*]*?[\s\*])?"
                 r"([A-Za-z_]\w*)\s*\([^;]*$")
INLINE = re.compile(r"^static\s+(?:__always_)?inline\b[^(]*?\b([A-Za-z_]\w*)\s*\(")


def strip(text):
    """Comments, strings and character constants out; lines kept"""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)


def heads(lines, start_re):
    """(line, name) of each function head start_re matches, also where
    the head's first line holds only the return type (kernel style allows
    "static inline int\nname(...)"), and not where it is an attribute
    such as __printf(1, 2) above the real head."""
    out = []
    for i, line in enumerate(lines):
        m = start_re.match(line)
        if m:
            out.append((i, m.group(1)))
        elif (i + 1 < len(lines) and "(" not in line and ";" not in line
              and line[:1].isalpha() and not line.rstrip().endswith(":")):
            m = start_re.match(line.rstrip() + " " + lines[i + 1])
            if m:
                out.append((i, m.group(1)))
    return out


def bodies(lines, start_re):
    """(name, body text) for each function whose head matches start_re"""
    out = []
    starts = heads(lines, start_re)
    for n, (i, name) in enumerate(starts):
        j = i + 1
        while j < len(lines) and not lines[j].startswith("{"):
            if ";" in lines[j] or (n + 1 < len(starts) and
                                   starts[n + 1][0] == j):
                break
            j += 1
        if j >= len(lines) or not lines[j].startswith("{"):
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        out.append((name, "\n".join(lines[j:k + 1])))
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    listing = "--list" in sys.argv[1:]
    top = args[0] if args else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "hugetmpfs")
    src = {}
    for name in sorted(os.listdir(top)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(top, name)) as f:
                src[name] = strip(f.read()).split("\n")
    owner = {}                          # function -> file defining it
    for name, lines in src.items():
        if name.endswith(".c"):
            for fn, _ in bodies(lines, DEF):
                owner[fn] = name
    inline_calls = {}                   # header inline -> functions it calls
    for name, lines in src.items():
        if name.endswith(".h"):
            for fn, body in bodies(lines, INLINE):
                inline_calls[fn] = set(CALL.findall(body))

    def reach(called, seen):
        for fn in called:
            if fn in seen:
                continue
            seen.add(fn)
            reach(inline_calls.get(fn, ()), seen)
        return seen

    deps = {}
    for name, lines in src.items():
        if not name.endswith(".c"):
            continue
        called = reach(set(CALL.findall("\n".join(lines))), set())
        deps[name] = {}
        for fn in sorted(called):
            o = owner.get(fn)
            if o and o != name:
                deps[name].setdefault(o, []).append(fn)
    if listing:
        for name in sorted(deps):
            for o in sorted(deps[name]):
                print("%s -> %s: %s" % (name, o, " ".join(deps[name][o])))

    # Strongly connected components (Tarjan): a component of two or more
    # files is a circle.
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in deps[v]:
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
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    circles = [sorted(c) for c in comps if len(c) > 1]
    for c in circles:
        print("circle of %d files: %s" % (len(c), " ".join(c)))
        for a in c:
            for b in sorted(deps[a]):
                if b in c:
                    print("  %s -> %s: %s" % (a, b, " ".join(deps[a][b])))
    if not circles:
        print("check-calls: %d files, %d dependencies, no circle" %
              (len(deps), sum(len(d) for d in deps.values())))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
