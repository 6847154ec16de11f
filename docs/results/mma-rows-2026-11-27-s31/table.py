#!/usr/bin/env python3
"""Tables of tools/lab/mma_rows_proto.cu runs (docs/results/mma-rows-2026-11-27-s31).

Usage: table.py proto.log[.xz] [KERNEL ...]
Prints, per matrix and K, each kernel's time (us) over row32's (fp32) time,
and the geomean over the matrices per K. Default kernels: the bf16 ones.
"""
import lzma
import math
import sys
from collections import defaultdict


def main():
    path, kernels = sys.argv[1], sys.argv[2:]
    opener = lzma.open if path.endswith(".xz") else open
    us = {}
    order = []
    for line in opener(path, "rt"):
        if not line.startswith("mma "):
            continue
        f = line.split()
        kv = dict(t.split("=", 1) for t in f[2:] if "=" in t)
        key = (f[1], int(kv["K"]))
        if key not in order:
            order.append(key)
        us[key + (kv["kernel"],)] = float(kv["us"])
    if not kernels:
        kernels = ["row16", "row16b4", "row16w2", "row16x2", "mma16",
                   "mma16p", "mma16s"]
    print("| matrix | K | row32 (us) | " + " | ".join(kernels) + " |")
    print("|---|---|---|" + "---|" * len(kernels))
    ratios = defaultdict(list)
    for name, k in order:
        base = us.get((name, k, "row32"))
        if not base:
            continue
        cells = []
        for kern in kernels:
            t = us.get((name, k, kern))
            if t is None:
                cells.append("-")
                continue
            cells.append(f"{t / base:.2f}")
            ratios[(k, kern)].append(t / base)
        print(f"| {name} | {k} | {base:.1f} | " + " | ".join(cells) + " |")
    for k in sorted({k for _, k in order}):
        cells = []
        for kern in kernels:
            xs = ratios[(k, kern)]
            cells.append(f"{math.exp(sum(map(math.log, xs)) / len(xs)):.3f}"
                         if xs else "-")
        print(f"| geomean | {k} | | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
