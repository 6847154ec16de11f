#!/usr/bin/env python3
"""bf16 selected packages (NAME.auto-bf16.spp) against the best cuSPARSE
algorithm at the same dtypes and against the faster of it and dense bf16
GEMM, both timed right after the package (paired): geomean, smallest and
the number below 1, per K and matrix group, over the measurements of every
bench.json given (each matrix and K once: a later file's replaces an
earlier one's).

Usage: table.py bench.json[.xz]...
"""
import collections
import json
import lzma
import math
import sys

rows = {}
for path in sys.argv[1:]:
    data = json.load(lzma.open(path) if path.endswith(".xz") else open(path))
    for m in data["measurements"]:
        if m.get("spperm_ms", -1) > 0 and m.get("cusparse_ms", -1) > 0:
            rows[(m["matrix"], m["k"])] = m
speed, library = collections.defaultdict(list), collections.defaultdict(list)
for (matrix, k), m in rows.items():
    dense = m["dense_ms"] if m.get("dense_ms", -1) > 0 else math.inf
    for group in ("all", matrix.split("__")[0]):
        speed[(k, group)].append(m["cusparse_ms"] / m["spperm_ms"])
        library[(k, group)].append(min(m["cusparse_ms"], dense) / m["spperm_ms"])


def fmt(values):
    g = math.exp(sum(map(math.log, values)) / len(values))
    return f"{g:.3f} ({min(values):.2f}, {sum(v < 1 for v in values)})"


order = {"all": 0, "dlmc": 1, "suitesparse": 2, "gnn": 3}
print("| K | set | matrices | vs cuSPARSE bf16 | vs the faster of cuSPARSE and dense bf16 |")
print("|---|---|---|---|---|")
for key in sorted(speed, key=lambda k: (k[0], order.get(k[1], 9), k[1])):
    print(f"| {key[0]} | {key[1]} | {len(speed[key])} | {fmt(speed[key])} | {fmt(library[key])} |")
