#!/usr/bin/env python3
"""bf16 / fp32 time by how memory-bound the fp32 call is (BENCHMARK.md's
roofline: 8 nnz + 4 (M + 1) + 4 N K + 4 M K bytes over 3.0 TB/s, the H100),
against half.py's criterion (working set above the L2 or fp32 time >= 20 us).
Usage: roofline_bands.py F32.verify.log BF16.verify.log
(s31's whole-set H100 logs: ../half-2026-11-27-s31/whole.logs.tar.xz, k/;
the bf16 one scaled by ../direct-2026-11-28-s35/estimate.py)."""
import math
import sys


def load(path, suffix):
    out = {}
    for line in open(path):
        if not line.startswith("bench "):
            continue
        f = line.split()
        kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
        name = f[1].rsplit("/", 1)[-1]
        if name.endswith(suffix):
            out[(name[:-len(suffix)], int(kv["K"]))] = (
                float(kv["spperm_ms"]) * 1e-3, int(kv["nnz"]),
                int(kv["rows"]), int(kv["cols"]))
    return out


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    f32 = load(sys.argv[1], ".auto.auto.spp")
    b16 = load(sys.argv[2], ".bf16.spp")
    print("| K | half.py's criterion | fp32 at >= 30 % of the roofline | "
          ">= 40 % | >= 50 % |")
    print("|---|---|---|---|---|")
    for k in (32, 64, 128, 512):
        rows = []
        for (name, kk), (t, nnz, m, n) in f32.items():
            if kk != k or (name, kk) not in b16:
                continue
            floor = (8 * nnz + 4 * (m + 1) + 4 * n * k + 4 * m * k) / 3.0e12
            ws = 8 * nnz + 4 * (n + m) * k
            rows.append((floor / t, b16[(name, kk)][0] / t,
                         ws > 50e6 or t >= 20e-6))
        cells = [[r[1] for r in rows if r[2]]] + [
            [r[1] for r in rows if r[0] >= lo] for lo in (0.3, 0.4, 0.5)]
        print(f"| {k} | " + " | ".join(f"{geo(c):.3f} ({len(c)})"
                                       for c in cells) + " |")


if __name__ == "__main__":
    main()
