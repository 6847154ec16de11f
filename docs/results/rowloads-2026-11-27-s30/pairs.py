#!/usr/bin/env python3
"""Paired time ratios of two package kinds (docs/results/rowloads-2026-11-27-s30).

Reads the spperm-verify logs of tools/scripts/gpu_kinds.sh (KIND.verify.log,
packages NAME.KIND.spp) from a directory or a .tar.xz of them and prints, per
K, the geomean over the layers timed in both kinds of NEW's time over BASE's,
then the five largest gains and losses. Layers are keyed by the package's
whole NAME (sweep_table.py of half-2026-11-27-s29 cuts names at the first
dot, which merges DLMC layers of different sparsities).
Usage: pairs.py LOGS BASE NEW
"""
import io
import math
import os
import sys
import tarfile
from collections import defaultdict


def read(path, kind):
    name = kind + ".verify.log"
    if os.path.isdir(path):
        return open(os.path.join(path, name)).read()
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if os.path.basename(m.name) == name:
                return tar.extractfile(m).read().decode()
    sys.exit(f"pairs.py: {path}: no {name}")


def times(text, kind):
    out = {}
    for line in io.StringIO(text):
        if not line.startswith("bench "):
            continue
        fields = line.split()
        kv = dict(f.split("=", 1) for f in fields if "=" in f)
        pkg = os.path.basename(fields[1])
        layer = pkg[: -len("." + kind + ".spp")]
        out[(layer, int(kv["K"]))] = float(kv["spperm_ms"])
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, base, new = sys.argv[1:]
    a, b = times(read(path, base), base), times(read(path, new), new)
    ratios = {key: b[key] / a[key] for key in a if key in b and a[key] > 0}
    per_k = defaultdict(list)
    for (layer, k), r in ratios.items():
        per_k[k].append(r)
    layers = len({layer for layer, _ in ratios})
    print(f"| K | {new} / {base} ({layers} layers) |")
    print("|---|---|")
    for k in sorted(per_k):
        v = per_k[k]
        print(f"| {k} | {math.exp(sum(map(math.log, v)) / len(v)):.3f} |")
    ranked = sorted(ratios.items(), key=lambda kv: kv[1])
    print("\nlargest gains:", ", ".join(f"{l} K={k} {r:.3f}" for (l, k), r in ranked[:5]))
    print("largest losses:", ", ".join(f"{l} K={k} {r:.3f} ({a[(l, k)]:.4f} -> {b[(l, k)]:.4f} ms)"
                                        for (l, k), r in ranked[-5:][::-1]))


if __name__ == "__main__":
    main()
