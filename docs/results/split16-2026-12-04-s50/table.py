#!/usr/bin/env python3
"""The split-threshold sweep's table (README): per layer and K, each kind's
time over the default package of its dtype, the mean of the two timing
rounds (r3, r4 of timings.logs.tar.xz, kinds in opposite orders).

Usage: python3 table.py timings.logs.tar.xz
"""
import re, sys, tarfile
from math import exp, log

times = {}  # (round, kind, layer, k) -> ms
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        r = re.match(r"(r\d)/(\w+)\.verify\.log$", m.name)
        if not r:
            continue
        for line in t.extractfile(m).read().decode().splitlines():
            b = re.match(r"bench \S+/([\w.-]+?)\.\w+\.spp \S+ K=(\d+) .*spperm_ms=([\d.]+)", line)
            if b:
                times[(r[1], r[2], b[1], int(b[2]))] = float(b[3])
rounds = sorted({k[0] for k in times})
kinds = ["f32s32", "f32s64", "f32s192", "bf16s32", "bf16s64", "bf16s192"]
layers = sorted({k[2] for k in times})
ks = sorted({k[3] for k in times})
mean = lambda kind, layer, k: sum(times[(r, kind, layer, k)] for r in rounds) / len(rounds)
print("| layer | K | fp32 (µs) | bf16 (µs) | bf16 / fp32 | " + " | ".join(kinds) + " |")
print("|---" * (5 + len(kinds)) + "|")
geo = {(kind, k): [] for kind in kinds + ["ratio"] for k in ks}
for layer in layers:
    for k in ks:
        f, h = mean("f32", layer, k), mean("bf16", layer, k)
        cells = []
        for kind in kinds:
            v = mean(kind, layer, k) / (f if kind.startswith("f32") else h)
            geo[(kind, k)].append(v)
            cells.append(f"{v:.2f}")
        geo[("ratio", k)].append(h / f)
        print(f"| {layer} | {k} | {f*1e3:.1f} | {h*1e3:.1f} | {h/f:.2f} | " + " | ".join(cells) + " |")
g = lambda xs: exp(sum(map(log, xs)) / len(xs))
for k in ks:
    print(f"| geomean | {k} | | | {g(geo[('ratio', k)]):.3f} | " +
          " | ".join(f"{g(geo[(kind, k)]):.3f}" for kind in kinds) + " |")
# Round-to-round spread of the default packages.
spread = [abs(times[(rounds[0], kd, l, k)] / times[(rounds[1], kd, l, k)] - 1)
          for kd in ("f32", "bf16") for l in layers for k in ks]
print(f"\nround-to-round difference of the default packages: median {sorted(spread)[len(spread)//2]*100:.1f} %, max {max(spread)*100:.1f} %")
