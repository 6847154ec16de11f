#!/usr/bin/env python3
"""Checks that every file holds a permutation of range(ROWS), one per line."""
import sys

rows = int(sys.argv[1])
files = sys.argv[2:]
for path in files:
    with open(path) as f:
        order = [int(line) for line in f.read().split("\n") if line != ""]
    if sorted(order) != list(range(rows)):
        print(f"{path}: not a permutation of {rows} rows")
        sys.exit(1)
print(f"{len(files)} files, all permutations of {rows} rows")
