"""The --k packages' times, before / after, two runs (µs):
python3 table.py own-before-1.log own-after-1.log own-before-2.log own-after-2.log"""
import math
import re
import sys


def load(path):
    out = {}
    for line in open(path):
        if not line.startswith("bench "):
            continue
        name = line.split()[1].split("/")[-1].removesuffix(".spp")
        k = int(re.search(r" K=(\d+)", line).group(1))
        out[(name, k)] = float(re.search(r"spperm_ms=([0-9.e-]+)", line).group(1)) * 1e3
    return out


b1, a1, b2, a2 = map(load, sys.argv[1:5])
print("| package | K | before (µs) | after (µs) | after / before, run 1 | run 2 |")
print("|---|---|---|---|---|---|")
r1, r2 = [], []
for key in sorted(b1):
    x, y = a1[key] / b1[key], a2[key] / b2[key]
    r1.append(x)
    r2.append(y)
    print(f"| {key[0]} | {key[1]} | {b1[key]:.2f} | {a1[key]:.2f} | {x:.3f} | {y:.3f} |")
g = lambda r: math.exp(sum(map(math.log, r)) / len(r))
print(f"\ngeomean after / before: run 1 {g(r1):.3f}, run 2 {g(r2):.3f} ({len(r1)} layer x K each)")
