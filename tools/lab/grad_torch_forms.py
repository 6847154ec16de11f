#!/usr/bin/env python3
"""Forms of dX = dY · W with torch's sparse ops, timed in CUDA graphs
(SparseLinear's backward="torch" route; docs/Python.md, "Gradients").

    grad_torch_forms.py DIR [--ks 32,128,512]

DIR as bench_sparse_linear_grad.py's (NAME.spp packages of W).
"""
import argparse, os, sys, warnings
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import spperm  # noqa: E402
from bench_sparse_linear import graph_ms, weight_of  # noqa: E402

warnings.simplefilter("ignore")
p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--ks", default="32,128,512")
a = p.parse_args()
torch.backends.cuda.matmul.allow_tf32 = False
for f in sorted(os.listdir(a.dir)):
    if not f.endswith(".spp") or f.endswith(".t.spp"):
        continue
    w = weight_of(spperm.load(os.path.join(a.dir, f))).cuda()
    wt = w.t().contiguous()
    forms = {
        "wt_csr64": wt.to_sparse_csr(),
        "w_csr64": w.to_sparse_csr(),
        "wt_coo": wt.to_sparse().coalesce(),
    }
    c = forms["wt_csr64"]
    forms["wt_csr32"] = torch.sparse_csr_tensor(c.crow_indices().int(), c.col_indices().int(), c.values(), c.shape)
    c = forms["w_csr64"]
    forms["w_csr32"] = torch.sparse_csr_tensor(c.crow_indices().int(), c.col_indices().int(), c.values(), c.shape)
    for k in [int(x) for x in a.ks.split(",")]:
        g = torch.randn(k, w.shape[0], device="cuda")
        ref = (g.double() @ w.double())
        fns = {
            "mm(WtCSR32, gT)": lambda: torch.sparse.mm(forms["wt_csr32"], g.t()).t(),
            "mm(WtCSR32, gT.contig)": lambda: torch.sparse.mm(forms["wt_csr32"], g.t().contiguous()).t(),
            "mm(WtCSR64, gT.contig)": lambda: torch.sparse.mm(forms["wt_csr64"], g.t().contiguous()).t(),
            "mm(WtCOO, gT.contig)": lambda: torch.sparse.mm(forms["wt_coo"], g.t().contiguous()).t(),
            "g @ W_CSR32": lambda: g @ forms["w_csr32"],
            "(W_CSR32.t() @ gT).t()": lambda: (forms["w_csr32"].t() @ g.t()).t(),
            "addmm(g, W_CSR32)": lambda: torch.mm(g, forms["w_csr32"]),
            "dense g @ W": lambda: g @ w,
        }
        out = []
        for name, fn in fns.items():
            try:
                r = fn()
                err = float((r.double() - ref).norm() / ref.norm())
                t = graph_ms(fn) * 1e3
                out.append(f"{name} {t:.1f}{'' if err < 1e-5 else ' WRONG'}")
            except Exception as e:
                out.append(f"{name} ERR({str(e).splitlines()[0][:60]})")
        print(f"{f[-40:]:40s} K={k:4d} | " + " | ".join(out), flush=True)
