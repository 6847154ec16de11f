#!/usr/bin/env python3
"""The row orders of this record's isolated runs (README.md, "How").

Writes, into OUT (.gpu/mats), cora and citeseer with their rows in
  * the csr variant's order of session 54's packages (cora `lpt`, citeseer
    `bsa`; orders/*.txt, from `spperm-inspect M --strategy S
    --emit-permutation F`): NAME-lpt.mtx, NAME-bsa.mtx;
  * a random order (seed 3): NAME-rand.mtx;
  * "dealt" orders for B equal-row blocks: rows taken longest first, each
    to the block (with room left) holding the fewest entries + rows, then
    each block's rows in their original order: NAME-dealB.mtx.

    python make_orders.py SHARED_MATRICES_GNN_DIR OUT
"""
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    src, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(3)
    for name, order, deals in (("cora", "lpt", (16, 8, 4)),
                               ("citeseer", "bsa", (16, 8, 2))):
        a = sp.csr_matrix(scipy.io.mmread(os.path.join(src, name + ".mtx.gz")))
        n = a.shape[0]
        lengths = np.diff(a.indptr)
        p = np.loadtxt(os.path.join(HERE, "orders", f"{name}-{order}.txt"),
                       dtype=np.int64)
        scipy.io.mmwrite(os.path.join(out, f"{name}-{order}.mtx"), a[p])
        scipy.io.mmwrite(os.path.join(out, f"{name}-rand.mtx"),
                         a[rng.permutation(n)])
        longest = np.argsort(-lengths, kind="stable")
        for blocks in deals:
            cap = -(-n // blocks)
            room = [min(cap, n - b * cap) for b in range(blocks)]
            rows = [[] for _ in range(blocks)]
            load = [0] * blocks
            for r in longest:
                b = min((b for b in range(blocks) if len(rows[b]) < room[b]),
                        key=lambda b: load[b] + len(rows[b]))
                rows[b].append(r)
                load[b] += lengths[r]
            p = np.concatenate([np.sort(np.array(x, dtype=np.int64))
                                for x in rows])
            scipy.io.mmwrite(os.path.join(out, f"{name}-deal{blocks}.mtx"),
                             a[p])


if __name__ == "__main__":
    main()
