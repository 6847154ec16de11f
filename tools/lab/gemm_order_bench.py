#!/usr/bin/env python3
"""Dense fp32 GEMM C = A * B (C row-major) with B row-major against B
column-major, through torch.mm with TF32 off: cuBLAS SGEMM with op(B) = N
against op(B) = T in its column-major terms, what the runtime's dense
candidate runs for sprt_spmm and for a column-major B (DensePlan.cpp).
Each is timed per call from 20 calls captured in a CUDA graph and replayed
(median of 15 replays): transpose_bench.py's graph_us, as
bench_sparse_linear.py's graph columns.

    gemm_order_bench.py [ROWS:COLS ...]     (default 2048:512 512:2048)

Prints one `gemm` line per shape and K (32, 128, 512). Needs PyTorch with
CUDA.
"""

import sys

import torch

from transpose_bench import graph_us


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes = sys.argv[1:] or ["2048:512", "512:2048"]
    print(torch.cuda.get_device_name())
    for shape in shapes:
        rows, cols = map(int, shape.split(":"))
        a = torch.randn(rows, cols, device="cuda")
        for k in (32, 128, 512):
            b_row = torch.randn(cols, k, device="cuda")
            b_col = b_row.t().contiguous().t()  # the same B, column-major
            c = torch.empty(rows, k, device="cuda")
            n = graph_us(lambda: torch.mm(a, b_row, out=c))
            t = graph_us(lambda: torch.mm(a, b_col, out=c))
            print(f"gemm rows={rows} cols={cols} K={k} opN_us={n:.2f} "
                  f"opT_us={t:.2f} ratio={t / n:.3f}")


if __name__ == "__main__":
    main()
