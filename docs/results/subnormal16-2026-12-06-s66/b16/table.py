#!/usr/bin/env python3
"""bf16 selected packages (NAME.auto-bf16.spp) against the best cuSPARSE
algorithm at the same dtypes, and against the faster of it and dense bf16
GEMM, both timed right after the package (paired), at K = 32: geomean,
smallest and the number below 1 per matrix group.

Usage: table.py bench.json[.xz]
"""
import collections
import json
import lzma
import math
import sys

path = sys.argv[1]
data = json.load(lzma.open(path) if path.endswith(".xz") else open(path))
speed, library = collections.defaultdict(list), collections.defaultdict(list)
for m in data["measurements"]:
    if m.get("spperm_ms", -1) <= 0 or m.get("cusparse_ms", -1) <= 0:
        continue
    dense = m["dense_ms"] if m.get("dense_ms", -1) > 0 else math.inf
    for group in ("all", m["matrix"].split("__")[0]):
        speed[(m["k"], group)].append(m["cusparse_ms"] / m["spperm_ms"])
        library[(m["k"], group)].append(min(m["cusparse_ms"], dense) / m["spperm_ms"])


def fmt(values):
    g = math.exp(sum(map(math.log, values)) / len(values))
    return f"{g:.3f} ({min(values):.2f}, {sum(v < 1 for v in values)})"


print("| K | set | matrices | vs cuSPARSE bf16 | vs the faster of cuSPARSE and dense bf16 |")
print("|---|---|---|---|---|")
for key in sorted(speed):
    print(f"| {key[0]} | {key[1]} | {len(speed[key])} | {fmt(speed[key])} | {fmt(library[key])} |")
