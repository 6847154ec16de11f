#!/usr/bin/env python3
"""Writes a copy of a selector dataset (CSV) with one edit, for train.py's
error tests:
  edit_dataset.py SRC DST drop COLUMN       the column removed
  edit_dataset.py SRC DST set LINE COLUMN V the cell of line LINE (the
                                            header is line 1) set to V
  edit_dataset.py SRC DST short LINE        line LINE without its last field
  edit_dataset.py SRC DST rename OLD NEW    a column renamed
  edit_dataset.py SRC DST group G[,G...]    only the rows of these groups
"""
import csv
import sys

src, dst, op, *args = sys.argv[1:]
with open(src, newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
if op == "drop":
    i = header.index(args[0])
    rows = [r[:i] + r[i + 1:] for r in rows]
elif op == "set":
    rows[int(args[0]) - 1][header.index(args[1])] = args[2]
elif op == "short":
    rows[int(args[0]) - 1].pop()
elif op == "rename":
    header[header.index(args[0])] = args[1]
elif op == "group":
    g = header.index("group")
    rows = [header] + [r for r in body if r[g] in args[0].split(",")]
else:
    sys.exit("edit_dataset.py: unknown edit " + op)
with open(dst, "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
