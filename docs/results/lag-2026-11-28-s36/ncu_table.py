#!/usr/bin/env python3
"""Per kernel of each profiled package and K (ncu/NAME.kK.csv of
device.sh): instances, median duration (µs), warp instructions, registers,
grid, active warps (% of peak), global load requests and sectors, L2
sectors read by L1, DRAM bytes, L1 / L2 / DRAM throughput and issue-active
(% of peak). Usage: ncu_table.py DIR (the unpacked w/ncu)."""
import csv
import glob
import os
import statistics
import sys

COLS = [("gpu__time_duration.sum", "us", 1e-3),
        ("smsp__inst_executed.sum", "inst M", 1e-6),
        ("launch__registers_per_thread", "regs", 1),
        ("launch__grid_size", "grid", 1),
        ("sm__warps_active.avg.pct_of_peak_sustained_active", "warps %", 1),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "ld req K", 1e-3),
        ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "ld sec K", 1e-3),
        ("lts__t_sectors_srcunit_tex_op_read.sum", "L2 sec K", 1e-3),
        ("dram__bytes_read.sum", "DRAM rd MB", 1e-6),
        ("dram__bytes_write.sum", "DRAM wr MB", 1e-6),
        ("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "L1 %", 1),
        ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 %", 1),
        ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM %", 1),
        ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue %", 1)]


KEYS = {c[0] for c in COLS}


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return float("nan")


def rows(path):
    lines = [l for l in open(path) if l.startswith('"')]
    r = list(csv.reader(lines))
    if len(r) < 3:
        return []
    head, units, data = r[0], r[1], r[2:]
    out = []
    for d in data:
        rec = dict(zip(head, d))
        for i, h in enumerate(head):
            u = units[i] if i < len(units) else ""
            v = num(rec[h]) if h in KEYS else None
            if v is None:
                continue
            # ncu picks units per metric: normalize times to ns, bytes to B.
            scale = {"usecond": 1e3, "msecond": 1e6, "nsecond": 1, "Kbyte": 1e3,
                     "Mbyte": 1e6, "Gbyte": 1e9, "byte": 1}.get(u, 1)
            rec[h] = v * scale
        out.append(rec)
    return out


def main():
    d = sys.argv[1]
    print("| package | K | kernel | n | " + " | ".join(c[1] for c in COLS) + " |")
    print("|" + "---|" * (4 + len(COLS)))
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        base = os.path.basename(path)[:-4]
        name, k = base.rsplit(".k", 1)
        by = {}
        for rec in rows(path):
            by.setdefault(rec["Kernel Name"], []).append(rec)
        for kern, recs in by.items():
            cells = []
            for key, _, sc in COLS:
                vals = [r[key] for r in recs if isinstance(r.get(key), float)]
                cells.append(f"{statistics.median(vals) * sc:.3g}" if vals else "-")
            print(f"| {name} | {k} | {kern} | {len(recs)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
