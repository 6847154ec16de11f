#!/usr/bin/env python3
"""A table of in_place_check.py logs (check-a.log, check-b.log): per matrix
and K, µs per launch (B aligned, arrays aligned) of the best unstaged
in-place kernel and of the staged one, per log; WRONG lines repeated.

    python summarize_check.py check-a.log check-b.log
"""
import collections
import lzma
import sys

rows = collections.OrderedDict()
tags = []
for path in sys.argv[1:]:
    tag = path.split("check-")[-1].split(".")[0]
    tags.append(tag)
    opener = lzma.open if path.endswith(".xz") else open
    for line in opener(path, "rt"):
        if "WRONG" in line:
            print(line.rstrip())
        if not line.startswith("inplace matrix="):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
        if f["b_offset"] != "0" or f["arrays"] != "aligned":
            continue
        kind = "staged" if ".staged." in f["shape"] else "unstaged"
        cell = rows.setdefault((f["matrix"], int(f["k"])), {})
        us = float(f["us"])
        cell[(tag, kind)] = min(us, cell.get((tag, kind), us))
cols = [(t, k) for t in tags for k in ("unstaged", "staged")]
print("| matrix | K | " + " | ".join(f"{t}: {k}" for t, k in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for (m, k), cell in rows.items():
    print(f"| {m} | {k} | " + " | ".join(
        f"{cell[c]:.2f}" if c in cell else "—" for c in cols) + " |")
