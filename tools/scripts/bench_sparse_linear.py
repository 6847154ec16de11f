#!/usr/bin/env python3
"""SparseLinear against spperm's row-major product and torch's sparse and
dense paths (docs/Python.md, "Speed"; BENCHMARK.md's queued timing).

    bench_sparse_linear.py PKG.spp [PKG.spp ...] [--ks 32,128,512] [--json F]

For every one-layer package (its matrix W is out x in) and K, on the GPU:
  * sparse_linear: spperm.torch.SparseLinear on a row-major X (K x in):
    Y = X · Wᵀ, B = Xᵀ column-major, through the layer's transposing
    kernel (docs/RuntimeABI.md, "Column-major B");
  * sparse_linear_copy: the same product with torch's transposing copy of
    X into a row-major B first (what SparseLinear does for packages without
    transposing kernels);
  * sparse_linear_chained: SparseLinear on X given as the transposed view
    a SparseLinear returns (X.t() contiguous: the layers after the first
    of a chain), no copy;
  * spperm_rowmajor: the package's own C = W · B with B (in x K) row-major;
  * torch_sparse_mm: torch.sparse.mm(W_csr, Xᵀ) (W as a torch CSR tensor);
  * torch_linear_csr: torch.nn.functional.linear(X, W_csr);
  * torch_linear_dense: torch.nn.functional.linear(X, W) with W dense (strict
    fp32: TF32 off).
Each time is the median over 7 repetitions of 20 queued calls timed with
CUDA events, per call. SparseLinear's result is checked against a float64
product (normwise 1e-5). A package compiled with --dtype f16|bf16 runs in
its dtype (X, W and the torch baselines too: dense F.linear on tensor cores
at that dtype), checked within the type's unit roundoff.
"""

import argparse
import json
import re
import statistics
import sys

import numpy as np
import torch

import spperm
from spperm.torch import SparseLinear


def median_ms(run, calls, reps=7):
    """The median over `reps` timings (CUDA events) of run(), which does
    `calls` calls, per call."""
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def queued_ms(fn, calls=20):
    """Time per call of `calls` calls queued back to back."""
    fn()
    torch.cuda.synchronize()

    def run():
        for _ in range(calls):
            fn()

    return median_ms(run, calls)


def graph_ms(fn, calls=20):
    """GPU time per call: `calls` calls captured in a CUDA graph, replayed
    (no CPU launch overhead; BENCHMARK.md's kernel time)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()  # the first call of a K chooses the variant: outside capture
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    return median_ms(graph.replay, calls)


def weight_of(pkg):
    """W as a dense tensor of the layer's dtype: the package's product with
    the identity on the CPU executor (exact: one term per element)."""
    layer = pkg[0]
    eye = torch.eye(layer.cols, dtype=getattr(torch, layer.dtype))
    try:
        return layer(eye).contiguous()
    except spperm.InvalidArgumentError as e:
        # A package compiled for one K (--k): the identity's columns in
        # blocks of that K (zero-padded at the end).
        m = re.search(r"compiled for K = (\d+)", str(e))
        if not m:
            raise
        k = int(m.group(1))
        pad = torch.zeros(layer.cols, -layer.cols % k, dtype=eye.dtype)
        wide = torch.cat([eye, pad], dim=1)
        parts = [layer(wide[:, j:j + k].contiguous())
                 for j in range(0, wide.shape[1], k)]
        return torch.cat(parts, dim=1)[:, :layer.cols].contiguous()


#: The largest normwise error of SparseLinear per dtype: fp32 accumulation
#: for float32, the rounding of C once for the 16-bit types.
TOLERANCE = {"float32": 1e-5, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--ks", default="32,128,512")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    ks = [int(k) for k in args.ks.split(",")]
    records, failed = [], 0
    print("eager: 20 queued calls; graph: the same captured in a CUDA graph "
          "(GPU time); microseconds per call")
    print(f"{'package':72s} {'K':>4s} {'SpLin':>7s} {'chain':>7s} "
          f"{'rowmaj':>7s} {'sp.mm':>7s} {'lin_csr':>7s} {'dense':>7s} | "
          f"{'gSpLin':>7s} {'gcopy':>7s} {'gchain':>7s} {'growmaj':>7s} "
          f"{'gsp.mm':>7s} "
          f"{'gdense':>7s} "
          f"{'err':>8s}")
    for path in args.packages:
        pkg = spperm.load(path)
        layer = pkg[0]
        w = weight_of(pkg)
        w_cuda = w.cuda()
        w_csr = w_cuda.to_sparse_csr()
        module = SparseLinear.from_package(pkg)
        dtype = getattr(torch, layer.dtype)
        for k in ks:
            x = torch.randn(k, layer.cols, device="cuda").to(dtype)
            b = torch.randn(layer.cols, k, device="cuda").to(dtype)
            x_chained = b.t()  # what a SparseLinear before would return
            with torch.no_grad():
                y = module(x)
                torch.cuda.synchronize()
                ref = x.double().cpu() @ w.double().t()
                err = float((y.double().cpu() - ref).norm() / ref.norm())
                y2 = module(x_chained)
                ref2 = x_chained.double().cpu() @ w.double().t()
                err = max(err, float((y2.double().cpu() - ref2).norm() /
                                     ref2.norm()))
                failed += err > TOLERANCE[layer.dtype]
                def by_copy():
                    return layer._run_torch(x.t().contiguous()).t()

                times = {
                    "sparse_linear": queued_ms(lambda: module(x)),
                    "sparse_linear_copy": queued_ms(by_copy),
                    "sparse_linear_chained": queued_ms(
                        lambda: module(x_chained)),
                    "spperm_rowmajor": queued_ms(lambda: layer(b)),
                    "torch_sparse_mm": queued_ms(
                        lambda: torch.sparse.mm(w_csr, x.t())),
                    "torch_linear_dense": queued_ms(
                        lambda: torch.nn.functional.linear(x, w_cuda)),
                }
                try:
                    times["torch_linear_csr"] = queued_ms(
                        lambda: torch.nn.functional.linear(x, w_csr))
                except RuntimeError:
                    times["torch_linear_csr"] = float("nan")
                # GPU time alone, where the runtime allows capture.
                for key, fn in (("sparse_linear", lambda: module(x)),
                                ("sparse_linear_copy", by_copy),
                                ("sparse_linear_chained",
                                 lambda: module(x_chained)),
                                ("spperm_rowmajor", lambda: layer(b)),
                                ("torch_sparse_mm",
                                 lambda: torch.sparse.mm(w_csr, x.t())),
                                ("torch_linear_dense",
                                 lambda: torch.nn.functional.linear(x,
                                                                    w_cuda))):
                    try:
                        times[key + "_graph"] = graph_ms(fn)
                    except Exception as e:  # noqa: BLE001 - reported
                        times[key + "_graph"] = float("nan")
                        print(f"  (no CUDA graph for {key}: "
                              f"{str(e).splitlines()[0][:100]})")
            name = path.rstrip("/").split("/")[-1].removesuffix(".spp")
            records.append({"layer": name, "k": k, "dtype": layer.dtype,
                            "rows": layer.rows,
                            "cols": layer.cols, "nnz": layer.nnz,
                            "error": err, "ms": times})
            t = times
            us = {key: value * 1e3 for key, value in t.items()}
            print(f"{name[-72:]:72s} {k:4d} {us['sparse_linear']:7.1f} "
                  f"{us['sparse_linear_chained']:7.1f} "
                  f"{us['spperm_rowmajor']:7.1f} "
                  f"{us['torch_sparse_mm']:7.1f} "
                  f"{us['torch_linear_csr']:7.1f} "
                  f"{us['torch_linear_dense']:7.1f} | "
                  f"{us['sparse_linear_graph']:7.1f} "
                  f"{us['sparse_linear_copy_graph']:7.1f} "
                  f"{us['sparse_linear_chained_graph']:7.1f} "
                  f"{us['spperm_rowmajor_graph']:7.1f} "
                  f"{us['torch_sparse_mm_graph']:7.1f} "
                  f"{us['torch_linear_dense_graph']:7.1f} "
                  f"{err:8.1e}", flush=True)
    print("(times in microseconds per call)")
    # SparseLinear on a row-major X over the row-major product (GPU time),
    # geomean per K: the transposing kernel, and torch's copy.
    for key in ("sparse_linear_graph", "sparse_linear_copy_graph"):
        for k in ks:
            ratios = [r["ms"][key] / r["ms"]["spperm_rowmajor_graph"]
                      for r in records if r["k"] == k
                      and r["ms"][key] == r["ms"][key]]
            if ratios:
                geomean = float(np.exp(np.mean(np.log(ratios))))
                print(f"{key} / spperm_rowmajor_graph, K = {k}: geomean "
                      f"{geomean:.3f} over {len(ratios)} layers, max "
                      f"{max(ratios):.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": spperm.device_properties()["name"],
                       "records": records}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
