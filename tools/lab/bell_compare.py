#!/usr/bin/env python3
"""Compares bell packages timed by gpu_suite.sh with the selector's sweep.

Usage: bell_compare.py VERIFY_LOG [--dataset tools/selector/dataset/sm_90.csv]

VERIFY_LOG is spperm-verify's output (plain or .xz) of packages named
NAME.bell.identity.spp, NAME.bell16.identity.spp (--block 16) and
NAME.csr.identity.spp. For each matrix and K it prints the sweep's bell and
best csr times, the new bell times and cuSPARSE's (ms x 1000 = us), then the
geomean of old bell / new bell per K (docs/results/bell-tile-2026-11-21-s9).
"""
import argparse
import collections
import csv
import lzma
import math
import re

STRATEGIES = ["identity", "lpt", "cta-aware", "hybrid-1", "bsa"]
VARIANTS = (".bell16.identity", ".bell.identity", ".csr.identity")


def read_bench(path):
    opener = lzma.open if path.endswith(".xz") else open
    times = collections.defaultdict(dict)
    with opener(path, "rt") as f:
        for line in f:
            if not line.startswith("bench "):
                continue
            pkg = line.split()[1]
            k = re.search(r" K=(\d+)", line).group(1)
            ms = float(re.search(r"spperm_ms=(\S+)", line).group(1))
            stem = pkg.rsplit("/", 1)[-1][: -len(".spp")]
            variant = next((v for v in VARIANTS if stem.endswith(v)), None)
            if variant is None:
                continue
            base = stem[: -len(variant)]
            name = "gen__" + base if "/gen/" in pkg else base
            times[(name, k)][variant[1:]] = ms
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--dataset", default="tools/selector/dataset/sm_90.csv")
    args = ap.parse_args()
    with open(args.dataset) as f:
        sweep = {(r["name"], r["k"]): r for r in csv.DictReader(f)}
    ratios = collections.defaultdict(list)
    for key, t in sorted(read_bench(args.log).items()):
        row = sweep.get(key)
        if row is None or "bell.identity" not in t:
            continue
        old = float(row["t:bell.identity"])
        csr = min(float(row["t:csr." + s]) for s in STRATEGIES)
        b32 = t["bell.identity"]
        b16 = t.get("bell16.identity", b32)
        ratios[key[1]].append((old / b32, old / min(b32, b16)))
        print(f"{key[0][:44]:44s} K={key[1]:>3} old_bell={old * 1e3:7.1f} "
              f"bell32={b32 * 1e3:7.1f} bell16={b16 * 1e3:7.1f} "
              f"csr_best={csr * 1e3:7.1f} cus={float(row['t:cusparse']) * 1e3:7.1f}")
    for k, v in sorted(ratios.items(), key=lambda kv: int(kv[0])):
        geo = [math.exp(sum(math.log(x[i]) for x in v) / len(v)) for i in (0, 1)]
        print(f"K={k}: {len(v)} matrices, old bell / new bell (tau 32) "
              f"{geo[0]:.3f}, old bell / best of tau 32, 16 {geo[1]:.3f}")


if __name__ == "__main__":
    main()
