#!/usr/bin/env python3
"""Benchmark table from spperm-verify's `bench` lines.

Usage: bench_table.py VERIFY_LOG OUT.json

Per source matrix (the package name up to .FORMAT.STRATEGY.spp) and K: the
best spperm variant over the packages of that matrix (format x strategy), the
best cuSPARSE algorithm (timed on the csr/identity package), the speedup and
the geometric mean. Writes every measurement and the table to OUT.json and
prints the table as Markdown.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict

line_re = re.compile(r"^bench (\S+) (\S+) K=(\d+) (.*)$")
records = []
for line in open(sys.argv[1]):
    m = line_re.match(line)
    if not m:
        continue
    fields = dict(kv.split("=", 1) for kv in m.group(4).split())
    pkg = os.path.basename(m.group(1))
    matrix = re.sub(r"\.[a-z]+\.[a-z0-9.-]+\.spp$", "", pkg)
    rec = {"package": pkg, "matrix": matrix, "layer": m.group(2),
           "k": int(m.group(3))}
    for key, value in fields.items():
        try:
            rec[key] = float(value) if key.endswith("_ms") else (
                int(value) if value.isdigit() else value)
        except ValueError:
            rec[key] = value
    records.append(rec)

best = defaultdict(lambda: {"spperm_ms": math.inf})
for r in records:
    key = (r["matrix"], r["k"])
    b = best[key]
    if r.get("spperm_ms", -1) > 0 and r["spperm_ms"] < b["spperm_ms"]:
        b.update(spperm_ms=r["spperm_ms"], variant=f'{r["format"]}/{r["strategy"]}',
                 rows=r["rows"], nnz=r["nnz"])
    if r.get("cusparse_ms", -1) > 0:
        b["cusparse_ms"] = r["cusparse_ms"]
        b["cusparse_alg"] = r["cusparse_alg"]

table = []
for (matrix, k), b in sorted(best.items()):
    if "cusparse_ms" not in b or not math.isfinite(b["spperm_ms"]):
        continue
    table.append({"matrix": matrix, "k": k, "rows": b["rows"], "nnz": b["nnz"],
                  "cusparse_ms": b["cusparse_ms"], "cusparse_alg": b["cusparse_alg"],
                  "spperm_ms": b["spperm_ms"], "variant": b["variant"],
                  "speedup": b["cusparse_ms"] / b["spperm_ms"]})

json.dump({"measurements": records, "table": table}, open(sys.argv[2], "w"), indent=1)

for k in sorted({t["k"] for t in table}):
    rows = [t for t in table if t["k"] == k]
    sp = [t["speedup"] for t in rows]
    geo = math.exp(sum(map(math.log, sp)) / len(sp))
    print(f"K = {k}: {len(rows)} matrices, geomean speedup {geo:.3f}, "
          f"min {min(sp):.3f}, max {max(sp):.3f}, below 1.0: {sum(s < 1 for s in sp)}")
    for group in ("dlmc", "suitesparse", "gnn", "big"):
        g = [t["speedup"] for t in rows if t["matrix"].startswith(group) or
             (group == "big" and t["matrix"] in ("rmat20", "banded1m"))]
        if g:
            print(f"  {group}: {len(g)} matrices, geomean "
                  f"{math.exp(sum(map(math.log, g)) / len(g)):.3f}")
print()
print("| matrix | K | rows | nnz | cuSPARSE best ms (alg) | spperm best ms (variant) | speedup |")
print("|---|---|---|---|---|---|---|")
for t in table:
    if t["matrix"].startswith("dlmc"):
        continue  # summarized above; every row is in the JSON
    print(f'| {t["matrix"]} | {t["k"]} | {t["rows"]} | {t["nnz"]} | '
          f'{t["cusparse_ms"]:.4f} ({t["cusparse_alg"].replace("cusparse-", "")}) | '
          f'{t["spperm_ms"]:.4f} ({t["variant"]}) | {t["speedup"]:.2f} |')
