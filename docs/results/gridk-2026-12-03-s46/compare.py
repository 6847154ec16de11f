#!/usr/bin/env python3
"""After over before, per K, from two bench_sparse_linear.py JSONs.

Usage: compare.py BEFORE.json AFTER.json [column] [-v]
Prints, per K, the geomean (best / worst layer) of after / before for the
column (default spperm_rowmajor_graph: the row-major call, GPU time of a
CUDA graph); with -v, every layer's two times in microseconds.
"""
import json
import math
import sys

args = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv
before, after = (json.load(open(f))["records"] for f in args[:2])
column = args[2] if len(args) > 2 else "spperm_rowmajor_graph"
old = {(r["layer"], r["k"]): r["ms"][column] for r in before}
for k in sorted({r["k"] for r in after}):
    pairs = [(r["layer"], old[(r["layer"], k)], r["ms"][column])
             for r in after if r["k"] == k and (r["layer"], k) in old]
    q = [n / o for _, o, n in pairs]
    g = math.exp(sum(map(math.log, q)) / len(q))
    print(f"K = {k:5d}  {column}: after / before {g:.3f} "
          f"(best {min(q):.2f}, worst {max(q):.2f}, {len(q)} layers)")
    if verbose:
        for layer, o, n in pairs:
            print(f"    {layer[-60:]:60s} {1e3 * o:8.2f} -> {1e3 * n:8.2f} us "
                  f"({n / o:.2f})")
