#!/usr/bin/env python3
"""The packages of the bench.json files given that ran slower than the
faster of cuSPARSE and dense GEMM (paired) at some K, one a line, in name
order.

Usage: slow.py bench.json[.xz]...
"""
import json
import lzma
import sys

slow = set()
for path in sys.argv[1:]:
    data = json.load(lzma.open(path) if path.endswith(".xz") else open(path))
    for m in data["measurements"]:
        libraries = [t for t in (m.get("cusparse_ms", -1), m.get("dense_ms", -1)) if t > 0]
        if m.get("spperm_ms", -1) > 0 and libraries and m["spperm_ms"] > min(libraries):
            slow.add(m["package"])
print("\n".join(sorted(slow)))
