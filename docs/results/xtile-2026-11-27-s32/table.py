#!/usr/bin/env python3
"""The tables of this record's README from its logs.

    table.py [DIR]   (default: this file's directory)

DIR holds bench.json (tools/scripts/bench_sparse_linear.py) and
xtile.log[.xz] (tools/lab/xtile_proto.cu) from one machine session. Every
time is the CUDA-graph time per call in microseconds; ratios are over
spperm's row-major call on the same layer and K.
"""

import json
import lzma
import math
import os
import re
import sys


def read_log(d):
    path = os.path.join(d, "xtile.log")
    if os.path.exists(path):
        return open(path).read().splitlines()
    return lzma.open(path + ".xz", "rt").read().splitlines()


def short(layer):
    for a, b in (("dlmc__", ""), ("transformer__", "tf "),
                 ("magnitude_pruning__", "mag "), ("random_pruning__", "rand "),
                 ("_fully_connected", ""), ("body_", ""), ("gnn__", ""),
                 ("rn50__", "rn50 "), ("bottleneck_1_block_", ""),
                 ("layer_0_", ""), ("encdec_attention_multihead_attention_q",
                                    "attn_q")):
        layer = layer.replace(a, b)
    return layer.replace("__", " ")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    bench = json.load(open(os.path.join(d, "bench.json")))
    ms = {(r["layer"], r["k"]): r["ms"] for r in bench["records"]}
    tr, best = {}, {}
    for line in read_log(d):
        m = re.search(r"layer=(\S+?)\.s?mtx\.gz .*k=(\d+) kernel=tr .*"
                      r"graph_us=([\d.]+)", line)
        if m:
            tr[(m.group(1), int(m.group(2)))] = float(m.group(3))
        m = re.match(r"best layer=(\S+?)\.s?mtx\.gz k=(\d+) kernel=(\S+) "
                     r"graph_us=([\d.]+)", line)
        if m:
            best[(m.group(1), int(m.group(2)))] = (m.group(3),
                                                    float(m.group(4)))
    print(f"device: {bench['device']}\n")
    print("| layer | K | row-major | SparseLinear today (torch copy) | "
          "row-major + tiled transpose | xtile, best configuration | "
          "best of the three |")
    print("|---|---|---|---|---|---|---|")
    logs = {}
    for key in sorted(best, key=lambda x: ("gnn" in x[0], x)):
        t = ms[key]
        row = t["spperm_rowmajor_graph"] * 1e3
        copy = t["sparse_linear_graph"] * 1e3
        rowtr = row + tr[key]
        cfg, xt = best[key]
        three = min(copy, rowtr, xt)
        print(f"| {short(key[0])} | {key[1]} | {row:.2f} | {copy:.2f} "
              f"({copy / row:.2f}) | {rowtr:.2f} ({rowtr / row:.2f}) | "
              f"{xt:.2f} ({xt / row:.2f}, `{cfg}`) | {three / row:.2f} |")
        for name, v in (("copy", copy), ("rowtr", rowtr), ("xtile", xt),
                        ("best", three)):
            for group in ("all", "dlmc" if "gnn" not in key[0] else "gnn"):
                logs.setdefault((name, group, key[1]), []).append(
                    math.log(v / row))
                logs.setdefault((name, group, 0), []).append(
                    math.log(v / row))

    def g(name, group, k):
        v = logs[(name, group, k)]
        return math.exp(sum(v) / len(v))

    print("\n| over row-major (geomean) | layers | K = 32 | 128 | 512 | all |")
    print("|---|---|---|---|---|---|")
    for name, label in (("copy", "SparseLinear today"),
                        ("rowtr", "row-major + tiled transpose"),
                        ("xtile", "xtile"), ("best", "best of the three")):
        for group in ("dlmc", "gnn", "all"):
            print(f"| {label} | {group} | " +
                  " | ".join(f"{g(name, group, k):.3f}"
                             for k in (32, 128, 512, 0)) + " |")


if __name__ == "__main__":
    main()
