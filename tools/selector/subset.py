#!/usr/bin/env python3
#===- subset.py - Which candidates a sweep needs ---------------------------===#
#
# Part of the spperm project.
#
#===------------------------------------------------------------------------===#
"""From a pilot sweep of every strategy x format (spperm-verify bench lines),
how close the oracle over a subset of the candidates comes to the oracle
over all of them (docs/Selector.md, "Candidates").

Usage: subset.py VERIFY_LOG[.xz]
"""
import itertools
import math
import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dataset import parse_logs  # noqa: E402

STRATEGIES = ["identity", "plain", "flipped", "lpt", "warp-aware", "cta-aware",
              "hybrid-1", "hybrid-2.1", "hybrid-2.2", "hybrid-2.3", "bsa"]
FORMATS = ["csr", "bell", "hbp"]


def gm(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    times, _ = parse_logs([sys.argv[1]])
    every = len(STRATEGIES) * len(FORMATS)
    full = {k: v for k, v in times.items() if len(v) == every}
    print("cases with all %d candidates: %d" % (every, len(full)))
    wins = Counter(min(v, key=v.get) for v in full.values())
    ratio = defaultdict(list)
    for v in full.values():
        b = min(v.values())
        for c, t in v.items():
            ratio[c].append(t / b)
    print("\n| candidate | fastest in | geomean time / fastest | worst |\n|---|---|---|---|")
    for c in sorted(ratio):
        print("| %s | %d | %.3f | %.2f |" % (c, wins[c], gm(ratio[c]), max(ratio[c])))

    def oracle(subset):
        return gm([min(v[c] for c in subset) / min(v.values()) for v in full.values()])
    print("\nOracle over a subset / oracle over all (geomean):\n")
    for f in FORMATS:
        print("- every strategy in %s only: %.4f" % (f, oracle(["%s.%s" % (f, s) for s in STRATEGIES])))
    for n in (3, 4, 5, 6):
        best = min(itertools.combinations(STRATEGIES, n),
                   key=lambda sub: oracle(["%s.%s" % (f, s) for f in ("csr", "bell") for s in sub]))
        print("- best %d strategies x {csr, bell}: %s: %.4f" % (
            n, ", ".join(best), oracle(["%s.%s" % (f, s) for f in ("csr", "bell") for s in best])))


if __name__ == "__main__":
    sys.exit(main())
