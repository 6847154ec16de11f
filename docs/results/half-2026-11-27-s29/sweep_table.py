#!/usr/bin/env python3
"""Per-layer times of a kernel-knob sweep (docs/results/half-2026-11-27-s29).

Reads the spperm-verify logs of tools/scripts/gpu_kinds.sh (one KIND.verify.log
per package kind, packages NAME.KIND.spp of one variant each: CSR, lpt) from a
directory or a .tar.xz of them, and prints each layer's time per kind at each
K, with the geomean over the layers of each kind's time over BASE's.
Usage: sweep_table.py LOGS BASE KIND...
"""
import io
import math
import os
import sys
import tarfile
from collections import defaultdict


def logs(path):
    if os.path.isdir(path):
        for f in sorted(os.listdir(path)):
            if f.endswith(".verify.log"):
                yield f.split(".")[0], open(os.path.join(path, f)).read()
        return
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.name.endswith(".verify.log"):
                text = tar.extractfile(m).read().decode()
                yield os.path.basename(m.name).split(".")[0], text


def main():
    path, base, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
    times = defaultdict(dict)
    for kind, text in logs(path):
        for line in io.StringIO(text):
            if not line.startswith("bench "):
                continue
            f = line.split()
            kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
            name = f[1].rsplit("/", 1)[-1].split(".")[0]
            times[(name, int(kv["K"]))][kind] = float(kv["spperm_ms"])
    order = [base] + [k for k in kinds if k != base]
    print("| layer | K | " + " | ".join(order) + " |")
    print("|---|---|" + "---|" * len(order))
    ratios = defaultdict(list)
    for (name, k), row in sorted(times.items()):
        if not all(kind in row for kind in order):
            continue
        print(f"| {name} | {k} | " + " | ".join(f"{row[x]:.4f}" for x in order) + " |")
        for x in order:
            ratios[(k, x)].append(row[x] / row[base])
    print()
    print("| K | " + " | ".join(f"{x} / {base}" for x in order) + " |")
    print("|---|" + "---|" * len(order))
    for k in sorted({k for (k, _) in ratios}):
        geo = [math.exp(sum(map(math.log, ratios[(k, x)])) / len(ratios[(k, x)]))
               for x in order]
        print(f"| {k} | " + " | ".join(f"{g:.3f}" for g in geo) + " |")


if __name__ == "__main__":
    main()
