#!/usr/bin/env python3
"""Prints the README's table from a fused_proto log: µs per call, and each
arm's time above the row kernel alone (`rm`).

    python3 table.py fused3.log
"""
import collections
import re
import sys

ARMS = ["rm", "tr", "tr+rm", "tr+rm.pdl", "fused.t1", "fused.t2",
        "fused.t1.nowait", "fused.t1.sleep", "memset+rm", "fused.bid.t1"]
times = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"fused (\S+) k=(\d+) (\S+) graph_us=([\d.]+)", line)
    if m:
        times[(m[1].split(".")[0][:24], int(m[2]))][m[3]] = float(m[4])
    if "WRONG" in line:
        print("WRONG:", line.strip())
print("| layer | K | " + " | ".join(ARMS) + " |")
print("|---|---|" + "---|" * len(ARMS))
for (name, k), t in times.items():
    cells = [f"{t['rm']:.2f}"] + [
        f"{t[a]:.2f} (+{t[a] - t['rm']:.2f})" if a != "tr" else f"{t[a]:.2f}"
        for a in ARMS[1:] if a in t]
    print(f"| {name} | {k} | " + " | ".join(cells) + " |")
