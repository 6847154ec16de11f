#!/usr/bin/env python3
"""Checks and times generated in-place kernels on the GPU (CuPy, SciPy).

Reads the cases in_place_prepare.py wrote (CASES/<n>/kernels.ptx and
case.json) and the matrices under MATS. Per case: the matrix's structure
(in its own row order, as compiled: a kernel that stages its row block's
entries bakes in its blocks' entry counts) with random values, a random
row order (the kernels store row i into C's row order[i]) and a random X
(K x cols, row-major: B = Xᵀ column-major). Each launch runs on B 16-byte
aligned, on B one element off (the kernels' 4-byte staging path), and
with the matrix's arrays one element past their allocations' start (the
staged kernels' copies then start below the first entry), each against a
float64 reference (normwise 1e-5), C filled with NaN first so that a
missed element shows; then it is timed: 20 launches captured in a CUDA
graph, the median of 15 replays, per launch in µs. Prints one line per
launch, B alignment and arrays, `WRONG` where the check fails, and exits 1
if any did.

    python3 tools/lab/in_place_check.py CASES MATS
"""

import gzip
import json
import os
import sys

import cupy as cp
import numpy as np
import scipy.io
import scipy.sparse as sp


def load(path):
    """The matrix's structure (values are replaced)."""
    if ".smtx" in path:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            rows, cols, nnz = (int(v) for v in f.readline().split(","))
            ptr = np.array(f.readline().split(), dtype=np.int64)
            idx = np.array(f.readline().split(), dtype=np.int64)
        return sp.csr_matrix((np.ones(nnz), idx, ptr), shape=(rows, cols))
    return sp.csr_matrix(scipy.io.mmread(path).tocsr())


def memref(array):
    """A 1-D memref descriptor's kernel parameters: allocated and aligned
    pointers, offset, size, stride."""
    return [array, array, np.int64(0), np.int64(array.size), np.int64(1)]


def main():
    cases, mats = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    failed = 0
    for n in sorted(os.listdir(cases), key=int):
        with open(os.path.join(cases, n, "case.json")) as f:
            case = json.load(f)
        a = load(os.path.join(mats, case["matrix"]))
        a.sort_indices()
        a.sum_duplicates()
        assert a.shape == (case["rows"], case["cols"]), case
        rows, cols, k = case["rows"], case["cols"], case["k"]
        a.data = rng.standard_normal(a.nnz).astype(np.float32)
        # Row i of the matrix (as compiled: the staged kernels bake in
        # their row blocks' entry counts) goes to C's row order[i].
        order = rng.permutation(rows).astype(np.int32)
        x = rng.standard_normal((k, cols)).astype(np.float32)
        ref = np.empty((rows, k))
        ref[order] = a.astype(np.float64) @ x.astype(np.float64).T
        host = {
            "order": order,
            "csr.row_ptr": a.indptr.astype(np.int32),
            "csr.col_idx": a.indices.astype(np.int32),
            "csr.col_idx.u16": a.indices.astype(np.uint16),
            "csr.values": a.data.astype(np.float32),
        }

        def device_arrays(skew):
            # Each array `skew` elements past a 256-byte boundary.
            out = {}
            for name, h in host.items():
                buf = cp.zeros(h.size + skew, dtype=h.dtype)
                buf[skew:] = cp.asarray(h)
                out[name] = buf[skew:]
            return out

        aligned, skewed = device_arrays(0), device_arrays(1)
        module = cp.RawModule(path=os.path.join(cases, n, "kernels.ptx"))
        for launch in case["launches"]:
            kernel = module.get_function(launch["name"])
            shared = launch["shared_bytes"]
            kernel.max_dynamic_shared_size_bytes = shared
            for offset, arrays in ((0, aligned), (1, aligned), (0, skewed)):
                # Exactly B's elements past the offset, so that a read
                # past its end leaves the allocation.
                buffer = cp.zeros(k * cols + offset, dtype=cp.float32)
                b = buffer[offset:]
                b[:] = cp.asarray(x.reshape(-1))
                c = cp.full(rows * k, cp.nan, dtype=cp.float32)
                args = []
                for name in launch["args"]:
                    if name == "B_col":
                        args += memref(b)
                    elif name == "C":
                        args += memref(c)
                    elif name == "K":
                        args.append(np.int64(k))
                    else:
                        args += memref(arrays[name])
                grid, block = tuple(launch["grid"]), tuple(launch["block"])

                def run():
                    kernel(grid, block, tuple(args), shared_mem=shared)

                run()
                cp.cuda.runtime.deviceSynchronize()
                got = cp.asnumpy(c).reshape(rows, k).astype(np.float64)
                err = np.linalg.norm(got - ref) / max(np.linalg.norm(ref),
                                                      1e-30)
                ok = bool(np.isfinite(got).all()) and err <= 1e-5
                failed += not ok
                # 20 launches captured in a CUDA graph, replayed 15 times.
                stream = cp.cuda.Stream(non_blocking=True)
                with stream:
                    stream.begin_capture()
                    for _ in range(20):
                        run()
                    graph = stream.end_capture()
                graph.upload(stream)
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                times = []
                for _ in range(15):
                    start.record(stream)
                    graph.launch(stream)
                    stop.record(stream)
                    stop.synchronize()
                    times.append(cp.cuda.get_elapsed_time(start, stop) * 50)
                print(f"inplace matrix={case['matrix']} rows={rows} "
                      f"cols={cols} nnz={a.nnz} k={k} kernel={launch['name']} "
                      f"shape={launch['variant']} grid={grid[0]} "
                      f"block={block[0]} shared={shared} b_offset={offset} "
                      f"arrays={'skewed' if arrays is skewed else 'aligned'} "
                      f"us={np.median(times):.2f} err={err:.1e}"
                      + ("" if ok else " WRONG"), flush=True)
    print(f"inplace: {failed} wrong")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
