#!/usr/bin/env python3
"""tools/lab/check_bias.cpp's output: per K, the median over packages of
each timing of the dense GEMM over `fresh5` (its steady state), and of the
library check's own time of it (the SPPERM_LOG_CHOICES line) over
`fresh5`; with a spperm-verify bench.json of the same packages, that
run's steady-state times over the lab program's.

Usage: bias.py DIR [bench.json.xz]   (DIR with bias-kK.txt, choices-kK.txt[.xz])
"""
import glob
import json
import lzma
import os
import re
import statistics
import sys


def lines(path):
    return (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read().splitlines()


d = sys.argv[1]
bench = json.load(lzma.open(sys.argv[2]))["measurements"] if len(sys.argv) > 2 else []
med = lambda xs: f"{statistics.median(xs):.3f}" if xs else "—"
print("| K | packages | fresh1 | afterG | decided | the check's time | spperm-verify's dense GEMM | its package's choice | its layer's own kernels |")
print("|---|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{d}/*bias-k*.txt"), key=lambda p: int(re.search(r"k(\d+)", p)[1])):
    k = int(re.search(r"k(\d+)\.txt", path)[1])
    rows = [dict(f.split("=", 1) for f in l.split()[1:]) for l in lines(path) if l.startswith("bias")]
    stem = path.replace("bias-k", "choices-k")
    log = [l for l in lines(stem if os.path.exists(stem) else stem + ".xz") if l.startswith("spperm: layer")]
    ratio = lambda key: [float(r[key]) / float(r["fresh5"]) for r in rows if float(r["fresh5"]) > 0]
    check = []
    for r, l in zip(rows, log):
        m = re.search(r"against cublaslt-gemm ([0-9.]+) ms", l)
        if m and float(r["fresh5"]) > 0:
            check.append(1e3 * float(m[1]) / float(r["fresh5"]))
    lab = {os.path.basename(r["package"]): r for r in rows}
    vd, vs, vo = [], [], []
    for m in bench:
        r = lab.get(m["package"])
        if m["k"] != k or not r:
            continue
        if m["dense_ms"] > 0:
            vd.append(1e3 * m["dense_ms"] / float(r["fresh5"]))
        vs.append(1e3 * m["spperm_ms"] / float(r["spperm"]))
        own = float(m["variant_ms"].split(",")[0])
        if own > 0:
            vo.append(1e3 * own / float(r["own"]))
    print(f"| {k} | {len(rows)} | {med(ratio('fresh1'))} | {med(ratio('afterG'))} | {med(ratio('decided'))} | "
          f"{med(check)} ({len(check)}) | {med(vd)} | {med(vs)} | {med(vo)} |")
