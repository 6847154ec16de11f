#!/usr/bin/env python3
"""SparseLinear's input gradient, both ways, against torch's sparse and dense
paths (docs/Python.md, "Gradients"; BENCHMARK.md's CUDA-graph timing).

    bench_sparse_linear_grad.py DIR [--ks 32,128,512] [--json F]

DIR holds pairs NAME.spp (W, out x in) and NAME.t.spp (Wᵀ, compiled from the
same matrix: gpu_python_prepare.sh with TRANSPOSES=1). For every pair and K,
on the GPU, with dY (K x out) row-major, as autograd hands it to a layer
whose output feeds a row-major op:
  * grad_spperm: dX = dY · W by the package of Wᵀ (from_package(transpose=),
    from_dense(backward="spperm"));
  * grad_torch: the same by torch.sparse.mm on a CSR of Wᵀ (backward="torch",
    the default);
  * dense_grad: dY · W with W dense (torch.mm, strict fp32);
  * forward: the layer's forward on a row-major X, for scale;
  * step_*: forward + backward of one SparseLinear call (eager, X requiring a
    gradient; 20 queued calls), each way, and of dense F.linear.
GPU times are 20 calls captured in a CUDA graph, replayed (median of 7), per
call. Both gradients are checked against float64 (normwise 1e-5).
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

import spperm
from spperm.torch import SparseLinear

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sparse_linear import graph_ms, queued_ms, weight_of  # noqa: E402


def graph_or_nan(fn):
    """graph_ms(fn), or NaN (reported) where fn cannot be captured."""
    try:
        return graph_ms(fn)
    except Exception as e:  # noqa: BLE001 - reported
        print(f"  (no CUDA graph: {str(e).splitlines()[0][:100]})")
        return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--ks", default="32,128,512")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    ks = [int(k) for k in args.ks.split(",")]
    names = sorted(f[:-len(".spp")] for f in os.listdir(args.dir)
                   if f.endswith(".spp") and not f.endswith(".t.spp"))
    records, failed = [], 0
    print(f"{'layer':60s} {'K':>4s} {'fwd':>7s} {'g.spperm':>8s} "
          f"{'g.torch':>8s} {'g.dense':>8s} | {'step.sp':>8s} "
          f"{'step.to':>8s} {'step.dn':>8s} {'err':>8s}  (µs per call)")
    for name in names:
        pkg = spperm.load(os.path.join(args.dir, name + ".spp"))
        pkg_t = spperm.load(os.path.join(args.dir, name + ".t.spp"))
        w = weight_of(pkg)
        w_cuda = w.cuda()
        by_spperm = SparseLinear.from_package(pkg, transpose=pkg_t)
        by_torch = SparseLinear.from_package(pkg, weight=w)
        layer = pkg[0]
        for k in ks:
            x = torch.randn(k, layer.cols, device="cuda")
            dy = torch.randn(k, layer.rows, device="cuda")
            ref = dy.double().cpu() @ w.double()
            err = 0.0
            for module in (by_spperm, by_torch):
                xg = x.clone().requires_grad_()
                (module(xg) * dy).sum().backward()
                torch.cuda.synchronize()
                err = max(err, float((xg.grad.double().cpu() - ref).norm() /
                                     ref.norm()))
            failed += err > 1e-5

            def step(module):
                xg = x.detach().requires_grad_()
                module(xg).backward(dy)

            def step_dense():
                xg = x.detach().requires_grad_()
                torch.nn.functional.linear(xg, w_cuda).backward(dy)

            with torch.no_grad():
                times = {
                    "forward": graph_or_nan(lambda: by_spperm(x)),
                    "grad_spperm": graph_or_nan(
                        lambda: by_spperm._gradient(dy, layer.cols)),
                    "grad_torch": graph_or_nan(
                        lambda: by_torch._gradient(dy, layer.cols)),
                    "dense_grad": graph_or_nan(lambda: torch.mm(dy, w_cuda)),
                }
            times["step_spperm"] = queued_ms(lambda: step(by_spperm))
            times["step_torch"] = queued_ms(lambda: step(by_torch))
            times["step_dense"] = queued_ms(step_dense)
            records.append({"layer": name, "k": k, "rows": layer.rows,
                            "cols": layer.cols, "nnz": layer.nnz,
                            "error": err, "ms": times})
            us = {key: value * 1e3 for key, value in times.items()}
            print(f"{name[-60:]:60s} {k:4d} {us['forward']:7.1f} "
                  f"{us['grad_spperm']:8.1f} {us['grad_torch']:8.1f} "
                  f"{us['dense_grad']:8.1f} | {us['step_spperm']:8.1f} "
                  f"{us['step_torch']:8.1f} {us['step_dense']:8.1f} "
                  f"{err:8.1e}", flush=True)
    for k in ks:
        rows = [r["ms"] for r in records if r["k"] == k]
        if not rows:
            continue
        def geomean(key, over):
            return float(np.exp(np.mean([np.log(r[key] / r[over])
                                         for r in rows])))
        print(f"K = {k}: grad_torch / grad_spperm {geomean('grad_torch', 'grad_spperm'):.3f}, "
              f"dense_grad / grad_spperm {geomean('dense_grad', 'grad_spperm'):.3f}, "
              f"grad_spperm / forward {geomean('grad_spperm', 'forward'):.3f} "
              f"(geomeans over {len(rows)} layers)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": spperm.device_properties()["name"],
                       "records": records}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
