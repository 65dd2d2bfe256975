#!/usr/bin/env python3
"""Checks that the source tree keeps the shape docs/architecture.md gives it.

  1. Every folder of src/ and every subfolder of src/daemon and src/sim is
     named in the layout block of docs/architecture.md ("## The parts").
  2. No two modules of src/daemon, src/sim or src/shim depend on each
     other, directly or through others. A module is a header and the .c
     file of the same name; it depends on another when its .c or .h
     includes the other's header.

Usage: check_layout.py SOURCE_ROOT. Exit status 0 when both hold, 1 with
each problem on stderr."""
import os
import re
import sys

CHECKED = ("daemon", "sim", "shim")


def layout_block(root):
    text = open(os.path.join(root, "docs", "architecture.md")).read()
    part = text.split("## The parts", 1)[1]
    return part.split("```")[1]


def missing_folders(root):
    block = layout_block(root)
    src = os.path.join(root, "src")
    problems = []
    for top in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, top)):
            continue
        if f"src/{top}/" not in block:
            problems.append(f"src/{top}/ is not in docs/architecture.md's layout")
        if top not in ("daemon", "sim"):
            continue
        for sub in sorted(os.listdir(os.path.join(src, top))):
            if os.path.isdir(os.path.join(src, top, sub)) and \
                    not re.search(rf"(^|\s){re.escape(sub)}/", block, re.M):
                problems.append(f"src/{top}/{sub}/ is not in docs/architecture.md's layout")
    return problems


def module_graph(root):
    src = os.path.join(root, "src")
    files = []
    for top in CHECKED:
        for d, _, names in os.walk(os.path.join(src, top)):
            files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    headers = {os.path.relpath(f, src) for f in files if f.endswith(".h")}
    graph = {}
    for f in files:
        mod = os.path.splitext(os.path.relpath(f, src))[0]
        for line in open(f, errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and m.group(1) in headers:
                dep = os.path.splitext(m.group(1))[0]
                if dep != mod:
                    graph.setdefault(mod, set()).add(dep)
    return graph


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    problems = missing_folders(root)
    for comp in cycles(module_graph(root)):
        problems.append("modules that depend on each other: " + ", ".join(comp))
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
