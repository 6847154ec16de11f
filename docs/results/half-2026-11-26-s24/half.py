#!/usr/bin/env python3
"""Per-K tables of a half-precision GPU suite run (docs/results/half-*/).

Reads spperm-verify `bench` lines of packages NAME.auto.auto.spp (fp32),
NAME.f16.spp and NAME.bf16.spp (compiled with --dtype; values of that type),
NAME.bf16v32.spp (--values-dtype f32), NAME.bf16kN.spp and NAME.f32kN.spp
(--k N) and
NAME.f32wide.spp / NAME.bf16wide.spp (--narrow-indices never) and prints, per K and package kind, geomeans (min, count below 1) of:
  - speedup over the best cuSPARSE algorithm at the same dtype (A, B and C
    of that type, fp32 compute), paired (timed right after the package);
  - speedup over the faster of cuSPARSE and dense cuBLAS GEMM at the dtype;
  - the 16-bit package's time over the fp32 package's (same matrix, K),
    over all matrices and over those memory-bound in fp32 (working set
    above the L2, or fp32 time at least 2x the launch floor).
Usage: half.py [--base KIND] verify.log [verify.log ...]
  --base KIND: the package kind the time ratios divide by and whose time
  decides "memory-bound" (default f32, the NAME.auto.auto.spp packages).
"""
import math
import re
import sys
from collections import defaultdict

L2 = 50e6


def geo(xs):
    xs = [x for x in xs if x > 0]
    if not xs:
        return "-"
    g = math.exp(sum(math.log(x) for x in xs) / len(xs))
    return f"{g:.3f} ({min(xs):.2f}, {sum(x < 1 for x in xs)})"


def main():
    rows = {}
    args = sys.argv[1:]
    base = "f32"
    if args[:1] == ["--base"]:
        base, args = args[1], args[2:]
    for path in args:
        for line in open(path):
            if not line.startswith("bench "):
                continue
            f = line.split()
            pkg = f[1].rsplit("/", 1)[-1]
            kv = dict(t.split("=", 1) for t in f[3:] if "=" in t)
            m = re.match(r"(.*)\.(auto\.auto|f16|bf16|bf16v32|bf16k\d+|f32k\d+|f32wide|bf16wide)\.spp$",
                         pkg)
            if not m:
                continue
            name, kind = m.group(1), m.group(2)
            # bf16v32: fp32 values; bf16kN: compiled for K = N.
            dtype = {"auto.auto": "f32"}.get(kind, kind)
            k = int(kv["K"])
            rows[(name, dtype, k)] = {
                "spperm": float(kv["spperm_ms"]),
                "cusparse": float(kv.get("cusparse_ms", -1)),
                "dense": float(kv.get("dense_ms", -1)),
                "rows": int(kv["rows"]), "cols": int(kv["cols"]),
                "nnz": int(kv["nnz"]),
            }
    ks = sorted({k for (_, _, k) in rows})
    print("| K | dtype | n | vs cuSPARSE (same dtype) | vs faster of cuSPARSE and dense | "
          f"time / {base} time | same, memory-bound in {base} (n) |")
    print("|---|---|---|---|---|---|---|")
    for k in ks:
        kinds = sorted({d for (_, d, kk) in rows if kk == k},
                       key=lambda d: (d != "f32", len(d), d))
        for dtype in kinds:
            vs, vsd, ratio, ratioMb = [], [], [], []
            for (name, d, kk), r in rows.items():
                if d != dtype or kk != k or r["spperm"] <= 0:
                    continue
                if r["cusparse"] > 0:
                    vs.append(r["cusparse"] / r["spperm"])
                    lib = min(x for x in (r["cusparse"], r["dense"]) if x > 0)
                    vsd.append(lib / r["spperm"])
                f32 = rows.get((name, base, k))
                if dtype != base and f32 and f32["spperm"] > 0:
                    q = r["spperm"] / f32["spperm"]
                    ratio.append(q)
                    ws = 8 * r["nnz"] + 4 * (r["cols"] + r["rows"]) * k
                    if ws > L2 or f32["spperm"] >= 0.02:
                        ratioMb.append(q)
            # Ratios: the geomean of time / fp32 time (lower is better).
            print(f"| {k} | {dtype} | {len(vs)} | {geo(vs)} | {geo(vsd)} | "
                  f"{geo(ratio) if ratio else '-'} | "
                  f"{geo(ratioMb) if ratioMb else '-'} ({len(ratioMb)}) |")


if __name__ == "__main__":
    main()
