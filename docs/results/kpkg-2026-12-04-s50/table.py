#!/usr/bin/env python3
"""This record's table: per kind of package and K, the number of checks and
failures, and the geomean (min) of cuSPARSE's time over spperm's (the best
cuSPARSE algorithm at the package's dtype, as spperm-verify --bench times
it).

Usage: python3 table.py logs.tar.xz
"""
import re, sys, tarfile
from math import exp, log

rows = {}
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        r = re.match(r"w/k/([\w.]+)\.verify\.log$", m.name)
        if not r:
            continue
        kind = r[1]
        for line in t.extractfile(m).read().decode().splitlines():
            if line.startswith("summary"):
                s = re.search(r"(\d+) checks, (\d+) failures", line)
                rows.setdefault((kind, "checks"), (int(s[1]), int(s[2])))
            b = re.match(r"bench .* K=(\d+) .*spperm_ms=([\d.]+).* cusparse_ms=([\d.]+)", line)
            if b and float(b[3]) > 0:
                rows.setdefault((kind, int(b[1])), []).append(float(b[3]) / float(b[2]))
print("| kind | checks (failures) | K | cuSPARSE / spperm, geomean (min) over matrices |")
print("|---|---|---|---|")
for kind in ["auto.auto", "k32", "k128", "k512", "bf16k32", "bf16k128", "bf16k512"]:
    c = rows.get((kind, "checks"), (0, 0))
    for k in (32, 128, 512):
        v = rows.get((kind, k))
        if v:
            g = exp(sum(map(log, v)) / len(v))
            print(f"| {kind} | {c[0]} ({c[1]}) | {k} | {g:.3f} ({min(v):.2f}, n = {len(v)}) |")
