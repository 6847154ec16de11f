#!/usr/bin/env python3
"""Prune a Transformer's feed-forward layers and serve them with spperm.

Builds a small Transformer encoder (fixed seed), prunes the weights of its
feed-forward linear layers by magnitude, swaps those layers for
spperm.torch.SparseLinear (each compiled into a package, saved under
--packages), and checks the sparse model's output against the pruned dense
model's, then times both (docs/Python.md).

    build/venv/bin/python examples/pytorch/prune_transformer.py \
        [--sparsity 0.9] [--tokens 128] [--device cuda] [--packages DIR
        [--load]]
"""

import argparse
import os
import time

import torch
from torch import nn

from spperm.torch import SparseLinear


class Block(nn.Module):
    """A pre-norm Transformer encoder block: self-attention, then a
    feed-forward network of two Linear layers."""

    def __init__(self, d_model):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = nn.MultiheadAttention(d_model, 8, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.linear1 = nn.Linear(d_model, 4 * d_model)
        self.linear2 = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attention(h, h, h, need_weights=False)[0]
        return x + self.linear2(torch.nn.functional.gelu(
            self.linear1(self.norm2(x))))


class Encoder(nn.Module):
    def __init__(self, d_model, layers):
        super().__init__()
        self.layers = nn.ModuleList(Block(d_model) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def build_model(d_model, layers):
    torch.manual_seed(0)
    return Encoder(d_model, layers).eval()


def prune_(linear, sparsity):
    """Zeroes the smallest `sparsity` share of linear.weight by magnitude."""
    with torch.no_grad():
        w = linear.weight
        drop = int(round(sparsity * w.numel()))
        if drop == 0:
            return
        threshold = w.abs().flatten().kthvalue(drop).values
        w.mul_(w.abs() > threshold)


def sparsify(model, sparsity, packages, load=False):
    """Prunes every feed-forward Linear in place and returns a copy of the
    model with those layers replaced by SparseLinear: compiled here (and
    saved in `packages` if given), or with `load`, loaded from the packages
    a run with the compiler saved there."""
    import copy

    import spperm

    sparse = copy.deepcopy(model)
    for i, (dense_layer, sparse_layer) in enumerate(
            zip(model.layers, sparse.layers)):
        for name in ("linear1", "linear2"):
            linear = getattr(dense_layer, name)
            prune_(linear, sparsity)
            path = os.path.join(packages or "", f"l{i}_{name}.spp")
            if load:
                module = SparseLinear.from_package(spperm.load(path),
                                                   bias=linear.bias)
                setattr(sparse_layer, name, module)
                continue
            module = SparseLinear.from_linear(linear, name=f"l{i}_{name}")
            if packages:
                module.package.save(os.path.join(packages,
                                                 f"l{i}_{name}.spp"))
            setattr(sparse_layer, name, module)
    return sparse


def timed(model, x, runs=20):
    with torch.no_grad():
        model(x)
        if x.is_cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(runs):
            y = model(x)
        if x.is_cuda:
            torch.cuda.synchronize()
    return y, (time.perf_counter() - start) / runs * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sparsity", type=float, default=0.9,
                        help="share of each feed-forward weight pruned, 0 "
                             "to 1 (default 0.9)")
    parser.add_argument("--d-model", type=int, default=512,
                        help="model width, a multiple of 8 (default 512)")
    parser.add_argument("--layers", type=int, default=2,
                        help="encoder layers (default 2)")
    parser.add_argument("--tokens", type=int, default=128,
                        help="tokens in the input (default 128)")
    parser.add_argument("--device", choices=("cuda", "cpu"),
                        default="cuda" if torch.cuda.is_available() else "cpu",
                        help="where to run (default: cuda where torch has a "
                             "GPU)")
    parser.add_argument("--packages", help="save the packages in this folder")
    parser.add_argument("--load", action="store_true",
                        help="load the packages from --packages instead of "
                             "compiling (where the compiler is not built)")
    args = parser.parse_args()
    if args.load and not args.packages:
        parser.error("--load needs --packages")
    if args.tokens < 1 or args.layers < 1 or args.d_model < 1:
        parser.error("--tokens, --layers and --d-model must be at least 1")
    if args.d_model % 8:
        parser.error("--d-model must be a multiple of 8 (the attention's "
                     "8 heads)")
    if not 0.0 <= args.sparsity <= 1.0:
        parser.error("--sparsity must be in [0, 1]")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda, but torch sees no CUDA device (use "
                     "--device cpu)")
    if args.packages:
        os.makedirs(args.packages, exist_ok=True)

    model = build_model(args.d_model, args.layers)
    start = time.perf_counter()
    sparse = sparsify(model, args.sparsity, args.packages, args.load)
    print(f"{'loaded' if args.load else 'compiled'} {2 * args.layers} layers in "
          f"{time.perf_counter() - start:.1f} s")
    for i, layer in enumerate(sparse.layers):
        print(f"  layer {i}: {layer.linear1}\n           {layer.linear2}")

    model.to(args.device)
    sparse.to(args.device)
    torch.manual_seed(1)
    x = torch.randn(1, args.tokens, args.d_model, device=args.device)
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
    want, dense_ms = timed(model, x)
    got, sparse_ms = timed(sparse, x)
    error = float((got.double() - want.double()).norm() / want.double().norm())
    print(f"output: normwise difference {error:.2e} from the pruned dense "
          "model")
    print(f"time per forward pass on {args.device}: dense {dense_ms:.3f} ms, "
          f"spperm {sparse_ms:.3f} ms")
    if not error <= 1e-5:  # NaN too
        raise SystemExit("error: the outputs differ")


if __name__ == "__main__":
    main()
