#!/usr/bin/env python3
"""What a transposing copy of X (K x cols, row-major, fp32) into B = Xᵀ
(cols x K, row-major) costs on the GPU, two ways:

  * torch: x.t().contiguous(), what SparseLinear does today;
  * geam:  cublasSgeam(OP_T, OP_N) through ctypes on libcublas, what a
           runtime path taking B column-major could call;

each checked against torch's result, and timed per call from 20 calls
captured in a CUDA graph and replayed (median of 15 replays), as
bench_sparse_linear.py's graph columns and xtile_proto.cu's `tr`.

    transpose_bench.py COLS:K [COLS:K ...]

Prints one line per shape. Needs PyTorch with CUDA and libcublas.so.*.
"""

import ctypes
import statistics
import sys

import torch


def load_cublas():
    for name in ("libcublas.so.13", "libcublas.so.12", "libcublas.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    sys.exit("transpose_bench.py: no libcublas.so found")


def graph_us(fn, calls=20, reps=15):
    """Microseconds per call of fn() from a CUDA graph of `calls` calls."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(calls):
            fn()
    for _ in range(calls):
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def main():
    cublas = load_cublas()
    handle = ctypes.c_void_p()
    if cublas.cublasCreate_v2(ctypes.byref(handle)) != 0:
        sys.exit("transpose_bench.py: cublasCreate failed")
    one = ctypes.c_float(1.0)
    zero = ctypes.c_float(0.0)
    print(f"device: {torch.cuda.get_device_name()}")
    for shape in sys.argv[1:]:
        cols, k = (int(v) for v in shape.split(":"))
        x = torch.randn(k, cols, device="cuda")
        b_torch = torch.empty(cols, k, device="cuda")
        b_geam = torch.empty(cols, k, device="cuda")

        def by_torch():
            b_torch.copy_(x.t())

        def by_geam():
            # Column-major view: x is cols x k (ld cols), b is k x cols
            # (ld k); b = 1 * op(x) with op = T, beta = 0 (B = C in place).
            stream = torch.cuda.current_stream().cuda_stream
            cublas.cublasSetStream_v2(handle, ctypes.c_void_p(stream))
            status = cublas.cublasSgeam(
                handle, 1, 0, k, cols, ctypes.byref(one),
                ctypes.c_void_p(x.data_ptr()), cols, ctypes.byref(zero),
                ctypes.c_void_p(b_geam.data_ptr()), k,
                ctypes.c_void_p(b_geam.data_ptr()), k)
            if status != 0:
                raise RuntimeError(f"cublasSgeam: status {status}")

        by_torch()
        by_geam()
        torch.cuda.synchronize()
        same = torch.equal(b_torch, b_geam) and torch.equal(b_torch, x.t())
        print(f"transpose cols={cols} k={k} bytes={x.numel() * 4} "
              f"torch_us={graph_us(by_torch):.2f} "
              f"geam_us={graph_us(by_geam):.2f} "
              f"{'ok' if same else 'WRONG'}", flush=True)
    cublas.cublasDestroy_v2(handle)


if __name__ == "__main__":
    main()
