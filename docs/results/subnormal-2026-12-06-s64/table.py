"""Before/after table of bench-before.log and bench-after.log (µs)."""
import math
import re
import sys


def load(path):
    out = {}
    for line in open(path):
        if not line.startswith("bench "):
            continue
        name = line.split()[1].split("/")[-1]
        k = int(re.search(r" K=(\d+)", line).group(1))
        out[(name, k)] = float(re.search(r"spperm_ms=([0-9.e-]+)", line).group(1))
    return out


before, after = load(sys.argv[1]), load(sys.argv[2])
print("| package | K | before (µs) | after (µs) | after / before |")
print("|---|---|---|---|---|")
ratios = []
for key in sorted(before):
    if key in after:
        r = after[key] / before[key]
        ratios.append(r)
        print(f"| {key[0]} | {key[1]} | {before[key]*1e3:.2f} | {after[key]*1e3:.2f} | {r:.3f} |")
print(f"\ngeomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} over {len(ratios)}")
