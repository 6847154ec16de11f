"""Per-CTA work of the staged in-place kernel over a row order (a model).

For each row block (equal rows, or balanced by entries + rows) it counts the
walk's steps: rounds of `groups` rows, G lanes a row, a warp's round as long
as its longest row's ceil(len / G); rounds uniform over the grid (the
measured attempt) or over the CTA (balanced-rounds.patch). It also counts
the bytes a CTA stages. Prints the worst CTA's steps and staged bytes.
"""
import gzip, sys, math
import numpy as np, scipy.io, scipy.sparse as sp

def pow2ceil(x):
    return 1 << max(0, math.ceil(math.log2(max(x, 1))))

def shape(rowptr, cols, k, sms=132):
    rows = len(rowptr) - 1
    mean = rowptr[-1] / rows
    lanes = min(max(pow2ceil(math.ceil(mean / 4)), 8), 16)
    ctas = 1 << (sms.bit_length() - 1)
    t = 4 if k <= 32 else 8 if k <= 128 else 16
    blocks = min(pow2ceil(math.ceil(ctas / math.ceil(k / t))), rows)
    return t, lanes, blocks

def bounds(rowptr, blocks, balanced, cap=None):
    rows = len(rowptr) - 1
    if balanced == "capped":
        # Entries balanced, each block at most `cap` rows (the fewest rounds).
        nnz, starts = rowptr[-1], [0]
        while starts[-1] < rows and len(starts) <= blocks:
            r0, left = starts[-1], blocks - len(starts) + 1
            target = (nnz - rowptr[r0]) / left
            r = r0
            while r < rows and r - r0 < cap and rowptr[r + 1] - rowptr[r0] <= target:
                r += 1
            starts.append(max(r, r0 + 1) if left > 1 else rows)
        while len(starts) <= blocks:
            starts.append(rows)
        return starts
    if not balanced:
        br = math.ceil(rows / blocks)
        return [min(b * br, rows) for b in range(blocks + 1)]
    nnz = rowptr[-1]
    starts, b = [0], 1
    for r in range(rows):
        if b >= blocks:
            break
        if (rowptr[r + 1] + r + 1) * blocks >= b * (nnz + rows):
            starts.append(r + 1)
            b += 1
    while len(starts) <= blocks:
        starts.append(rows)
    return starts

def model(lens, cols, k, balanced, cta_rounds):
    rowptr = np.concatenate([[0], np.cumsum(lens)])
    t, g, blocks = shape(rowptr, cols, k)
    rows = len(lens)
    if balanced == "capped":
        br = math.ceil(rows / blocks)
        groups = min(max(pow2ceil(br * g), 256), 512) // g
        st = bounds(rowptr, blocks, balanced, math.ceil(br / groups) * groups)
    else:
        st = bounds(rowptr, blocks, balanced)
    brows = max(st[i + 1] - st[i] for i in range(blocks))
    threads = min(max(pow2ceil(brows * g), 256), 512)
    groups = threads // g
    per_warp = 32 // g
    grid_rounds = math.ceil(brows / groups)
    worst_steps, worst_bytes, worst_entries = 0, 0, 0
    for b in range(blocks):
        r0, r1 = st[b], st[b + 1]
        rounds = math.ceil((r1 - r0) / groups) if cta_rounds else grid_rounds
        steps = 0
        for rd in range(rounds):
            seg = lens[r0 + rd * groups: min(r0 + (rd + 1) * groups, r1)]
            w = np.zeros(groups // per_warp)
            for i, l in enumerate(seg):
                w[i // per_warp] = max(w[i // per_warp], math.ceil(l / g))
            steps += 1 + (w.max() if len(seg) else 0)  # 1: the reduction
        e = int(rowptr[r1] - rowptr[r0])
        worst_steps = max(worst_steps, steps)
        worst_entries = max(worst_entries, e)
        worst_bytes = max(worst_bytes, t * cols * 4 + 4 * (r1 - r0 + 1) + 6 * e)
    return dict(T=t, G=g, blocks=blocks, threads=threads,
                rounds=grid_rounds, steps=int(worst_steps),
                entries=worst_entries, kib=round(worst_bytes / 1024, 1))

def main():
    mtx, orders = sys.argv[1], sys.argv[2:]
    a = sp.csr_matrix(scipy.io.mmread(gzip.open(mtx) if mtx.endswith('.gz') else mtx))
    base = np.diff(a.indptr)
    for k in (32, 128, 512):
        for path in orders:
            order = np.loadtxt(path, dtype=np.int64)
            lens = base[order]
            for name, bal, cta in (("equal rows", False, False),
                                   ("balanced, grid rounds", True, False),
                                   ("balanced, CTA rounds", True, True),
                                   ("capped rows, balanced", "capped", True)):
                m = model(lens, a.shape[1], k, bal, cta)
                print(f"K={k:4d} {path.split('/')[-1]:22s} {name:22s} " +
                      " ".join(f"{x}={y}" for x, y in m.items()))

main()
