#!/usr/bin/env python3
"""Per-layer times of two or more kinds from gpu_kinds.sh's verify logs.

Usage: compare.py BASE.verify.log OTHER.verify.log [...]
For every layer (spperm-verify's matrix name) and K: the runtime's
choice's time (spperm_ms) of each log in µs, with OTHER / BASE in brackets,
and per K the geomean of each OTHER / BASE.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "pdl-wait-2026-11-28-s34"))
import pairs  # noqa: E402  (the record's shared bench-line parser)


def load(path):
    """(matrix, K) -> the runtime's choice's time in µs."""
    return {(key[1], key[2]): v[0] * 1000
            for key, v in pairs.load(path).items()}


logs = [load(p) for p in sys.argv[1:]]
base = logs[0]
ks = sorted({k for _, k in base})
names = sorted({n for n, _ in base})
print("| layer | " + " | ".join(f"K = {k}" for k in ks) + " |")
print("|---" * (len(ks) + 1) + "|")
for n in names:
    cells = []
    for k in ks:
        if (n, k) not in base:
            cells.append("-")
            continue
        b = base[(n, k)]
        parts = [f"{b:.1f}"]
        for o in logs[1:]:
            if (n, k) in o:
                parts.append(f"{o[(n, k)]:.1f} ({o[(n, k)] / b:.2f})")
        cells.append(" → ".join(parts))
    print(f"| {n} | " + " | ".join(cells) + " |")
for i, o in enumerate(logs[1:], 1):
    row = []
    for k in ks:
        r = [o[(n, k)] / base[(n, k)] for n in names
             if (n, k) in base and (n, k) in o]
        row.append(f"{math.exp(sum(map(math.log, r)) / len(r)):.3f}"
                   if r else "-")
    print(f"| geomean {sys.argv[i + 1].rsplit('/', 1)[-1]} | " +
          " | ".join(row) + " |")
