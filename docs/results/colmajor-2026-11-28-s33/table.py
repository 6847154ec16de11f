#!/usr/bin/env python3
"""Prints this record's tables from bench.json (or the file given): per
layer and K, SparseLinear on a row-major X through the transposing kernel
and through torch's copy, over the row-major call (GPU time in CUDA
graphs), and the geomeans. A pair whose row-major time is more than twice
that of the same layer at a larger K is marked an outlier and left out of
the geomeans (none in this record's files)."""

import json
import math
import sys


def main():
    d = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench.json"))
    records = d["records"]
    print(f"device: {d['device']}")
    print("| layer | K | row-major | SparseLinear, row-major X "
          "(transposing kernel) | torch copy | chained |")
    print("|---|---|---|---|---|---|")
    kept = []
    for r in records:
        m = {k: v * 1e3 for k, v in r["ms"].items()}
        base = m["spperm_rowmajor_graph"]
        nxt = [s for s in records if s["layer"] == r["layer"]
               and s["k"] > r["k"]]
        outlier = bool(nxt) and base > 2e3 * min(
            s["ms"]["spperm_rowmajor_graph"] for s in nxt)
        if not outlier:
            kept.append(r)
        print(f"| {r['layer']} | {r['k']} | {base:.2f}"
              f"{' (outlier)' if outlier else ''} | "
              f"{m['sparse_linear_graph']:.2f} "
              f"({m['sparse_linear_graph'] / base:.2f}) | "
              f"{m['sparse_linear_copy_graph']:.2f} "
              f"({m['sparse_linear_copy_graph'] / base:.2f}) | "
              f"{m['sparse_linear_chained_graph']:.2f} "
              f"({m['sparse_linear_chained_graph'] / base:.2f}) |")
    print()
    print("| over row-major (geomean) | K = 32 | 128 | 512 | DLMC | graphs "
          "| all |")
    print("|---|---|---|---|---|---|---|")
    groups = [lambda r, k=k: r["k"] == k for k in (32, 128, 512)] + [
        lambda r: r["layer"].startswith("dlmc"),
        lambda r: r["layer"].startswith("gnn"), lambda r: True]
    for key, label in (("sparse_linear_graph", "transposing kernel"),
                       ("sparse_linear_copy_graph", "torch copy"),
                       ("sparse_linear_chained_graph", "chained")):
        cells = []
        for g in groups:
            ratios = [r["ms"][key] / r["ms"]["spperm_rowmajor_graph"]
                      for r in kept if g(r)]
            cells.append(f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"\n({len(kept)} of {len(records)} pairs in the geomeans)")


if __name__ == "__main__":
    main()
