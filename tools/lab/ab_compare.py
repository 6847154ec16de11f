#!/usr/bin/env python3
"""Compares the arms of a parameter experiment from spperm-verify logs.

Packages named MATRIX.ARM.spp (gpu_suite_prepare.sh MAIN_EXTRA/BIG_EXTRA
suffixes) are grouped by matrix; for each pair of arms given as
`--pair BASE:ARM` the script prints the geomean of t(BASE) / t(ARM) (> 1:
ARM is faster) per K, matrix set and size class, with the count of matrices
where ARM is more than 2 % slower or faster, and optionally the speedup of
each arm over the best cuSPARSE time of a recorded run (`--reference
bench.json`, the `table` of bench_table.py: same matrix and K).

Usage: ab_compare.py verify.log[.xz]... --pair s1-k128:s0-k128 ...
       [--reference docs/results/perf-.../bench.json.xz]
"""

import argparse
import collections
import json
import lzma
import math
import re
import sys


def read_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt").read()
    return open(path).read()


def parse(paths):
    """{(package stem, K): (spperm_ms, nnz)} from the bench lines."""
    out = {}
    for path in paths:
        for line in read_text(path).splitlines():
            if not line.startswith("bench "):
                continue
            fields = line.split()
            pkg = fields[1].rsplit("/", 1)[-1]
            if not pkg.endswith(".spp"):
                continue
            kv = dict(f.split("=", 1) for f in fields[3:] if "=" in f)
            out[(pkg[:-len(".spp")], int(kv["K"]))] = (float(kv["spperm_ms"]),
                                                      int(kv["nnz"]))
    return out


def set_of(matrix):
    if matrix.startswith("dlmc__"):
        return "dlmc"
    if matrix in ("rmat20", "banded1m", "block1m"):
        return "big"
    if "__" in matrix:
        return matrix.split("__")[0]
    return "generated"


def size_class(nnz):
    for bound, name in ((2e4, "<20K"), (1e5, "20K-100K"), (1e6, "100K-1M")):
        if nnz < bound:
            return name
    return ">=1M"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--pair", action="append", required=True)
    ap.add_argument("--reference")
    args = ap.parse_args()
    times = parse(args.logs)
    ref = {}
    if args.reference:
        d = json.loads(read_text(args.reference))
        ref = {(r["matrix"], r["k"]): r["cusparse_ms"] for r in d["table"]}
    for pair in args.pair:
        base, arm = pair.split(":")
        # MATRIX.ARM.spp against MATRIX.BASE.spp, the same K; an arm may hold
        # dots (csr.lpt.none).
        rows = collections.defaultdict(lambda: collections.defaultdict(list))
        for (stem, k), (t, nnz) in times.items():
            if not stem.endswith("." + arm):
                continue
            matrix = stem[:-len(arm) - 1]
            if (matrix + "." + base, k) not in times:
                continue
            tb = times[(matrix + "." + base, k)][0]
            cus = ref.get((matrix, k))
            for key in (("all", ""), (set_of(matrix), ""),
                        (set_of(matrix), size_class(nnz))):
                rows[k][key].append((tb / t, cus / tb if cus else None,
                                     cus / t if cus else None))
        for k in sorted(rows):
            print(f"## {base} -> {arm}, K = {k}: t({base}) / t({arm})")
            print("| set | size | n | geomean | min | max | slower > 2 % "
                  "| faster > 2 % | vs cuSPARSE: base | arm |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for key in sorted(rows[k]):
                r = rows[k][key]
                ratio = [x[0] for x in r]
                cb = [x[1] for x in r if x[1]]
                ca = [x[2] for x in r if x[2]]
                print(f"| {key[0]} | {key[1] or 'all'} | {len(r)} | "
                      f"{geomean(ratio):.3f} | {min(ratio):.2f} | "
                      f"{max(ratio):.2f} | {sum(x < 0.98 for x in ratio)} | "
                      f"{sum(x > 1.02 for x in ratio)} | {geomean(cb):.3f} | "
                      f"{geomean(ca):.3f} |")
            print()

if __name__ == "__main__":
    sys.exit(main())
