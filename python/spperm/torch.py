"""spperm in PyTorch: ``SparseLinear``, a drop-in ``torch.nn.Linear`` whose
weight is a fixed sparse matrix (docs/Python.md, "PyTorch").

``SparseLinear`` computes ``Y = X · Wᵀ + b`` for X of shape (..., in_features)
as the package's C = A · B with A = W, B = Xᵀ and C = Yᵀ. Y is returned as
the transposed view of C (``Y.t()`` is contiguous, like a column-major
matrix); a SparseLinear whose input is such a view (directly, or through
elementwise ops, which keep the layout) reads it as B without a copy. A
row-major X (the first layer of a chain) is B column-major: the layer's
transposing kernel makes it row-major in a workspace before the product,
on the same stream (docs/RuntimeABI.md, "Column-major B"); packages made
before spperm had that kernel take a torch copy instead.
The product is the custom op ``spperm::linear`` (``torch.library``), so the
module works under ``torch.no_grad``, inside ``torch.compile`` graphs, and in
CUDA graphs once its first call for a K bucket has chosen the variant (that
call times the variants and synchronizes the stream: make it before
capturing). It is for inference: the weight is fixed and no gradient flows
through it.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Optional

import torch
from torch import nn

from ._errors import InvalidArgumentError
from ._package import Layer, Package, compile as _compile

__all__ = ["SparseLinear", "linear"]

# The layers the custom op can run, by handle (an int, so that the op's
# schema holds no Python object); a module keeps its layer alive.
_layers: "weakref.WeakValueDictionary[int, Layer]" = weakref.WeakValueDictionary()
_handles = itertools.count(1)
_lock = threading.Lock()


def _register(layer: Layer) -> int:
    with _lock:
        handle = next(_handles)
        _layers[handle] = layer
        return handle


def _linear(layer: Layer, x: torch.Tensor, bias: Optional[torch.Tensor],
            out_features: int) -> torch.Tensor:
    """``x · Wᵀ + bias`` for `layer` (W is its out_features x in_features
    matrix) as C = W · B with B = Xᵀ: the result is Cᵀ, a transposed view
    (Y.t() is contiguous), so that the next SparseLinear reads it as its B
    without a copy."""
    if x.dtype != getattr(torch, layer.dtype):
        raise InvalidArgumentError(
            f"spperm::linear: x must be {layer.dtype} (the layer's dtype), "
            f"got {x.dtype}")
    if x.shape[-1] != layer.cols:
        raise InvalidArgumentError(
            f"spperm::linear: x has {x.shape[-1]} features but the layer "
            f"'{layer.name}' takes {layer.cols}")
    if x.numel() == 0:  # no rows: nothing to multiply
        out = x.new_zeros((*x.shape[:-1], out_features))
        return out if bias is None else out + bias
    flat = x.dim() == 2
    x2 = x if flat else x.reshape(-1, layer.cols)
    # C = Yᵀ, on torch's current stream. B = Xᵀ: column-major for a
    # row-major X (through the layer's transposing kernel), row-major for
    # the transposed view a SparseLinear returns; any other layout is
    # copied row-major first.
    if x2.is_contiguous():
        c = layer._run_torch(x2.t(), column_major=True)
    else:
        b = x2.t()
        c = layer._run_torch(b if b.is_contiguous() else b.contiguous())
    if bias is not None:
        c.add_(bias.unsqueeze(1))
    return c.t() if flat else c.t().reshape(*x.shape[:-1], out_features)


@torch.library.custom_op("spperm::linear", mutates_args=())
def linear(x: torch.Tensor, bias: Optional[torch.Tensor], handle: int,
           out_features: int) -> torch.Tensor:
    """``x · Wᵀ + bias`` for the registered layer ``handle`` (W is the
    layer's out_features x in_features matrix). x: (..., in_features), of
    the layer's dtype, on the CPU or a CUDA device; the result has x's
    device and dtype."""
    layer = _layers.get(handle)
    if layer is None:
        raise InvalidArgumentError(f"spperm::linear: no layer {handle}")
    return _linear(layer, x, bias, out_features)


@linear.register_fake
def _(x: torch.Tensor, bias: Optional[torch.Tensor], handle: int,
      out_features: int) -> torch.Tensor:
    n = x.numel() // x.shape[-1] if x.shape[-1] else 0
    return x.new_empty((out_features, n)).t().reshape(*x.shape[:-1],
                                                      out_features)


class SparseLinear(nn.Module):
    """``torch.nn.Linear`` with a fixed sparse weight compiled by spperm.

    Make one from a trained layer with :meth:`from_dense` (optionally pruning
    it by magnitude) or :meth:`from_linear`, or from a compiled package with
    :meth:`from_package`. Inputs are tensors of shape (..., in_features) of
    the layer's dtype (float32, or float16 / bfloat16 for a weight compiled
    with that ``dtype``: :meth:`from_dense` takes the weight's) on the CPU
    (the CPU executor) or on CUDA (the package's kernels, on torch's current
    stream); the output has the same dtype, accumulated in fp32 and rounded
    once.
    """

    def __init__(self, layer: Layer, bias: Optional[torch.Tensor] = None,
                 package: Optional[Package] = None):
        super().__init__()
        self.in_features = layer.cols
        self.out_features = layer.rows
        self.layer = layer
        # Keeps a compiled package (and its directory) alive with the module.
        self.package = package if package is not None else layer._package
        self._handle = _register(layer)
        if bias is not None:
            bias = bias.detach().to(getattr(torch, layer.dtype))
            if bias.shape != (self.out_features,):
                raise InvalidArgumentError(
                    f"bias must have shape ({self.out_features},), got "
                    f"{tuple(bias.shape)}")
            self.bias = nn.Parameter(bias.clone(), requires_grad=False)
        else:
            self.register_parameter("bias", None)

    @classmethod
    def from_dense(cls, linear: nn.Linear, sparsity: Optional[float] = None,
                   **options: Any) -> "SparseLinear":
        """Compiles ``linear``'s weight. With ``sparsity`` (0 <= s < 1) the
        weight is first pruned by magnitude: its round(s · numel) smallest
        entries in absolute value become zero. Without it the weight's zeros
        (or a torch sparse weight's pattern) are the pattern. ``options`` go
        to :func:`spperm.compile` (``k=``, ``strategy=``, ...); ``dtype``
        defaults to the weight's (a float16 or bfloat16 layer runs its
        inputs and outputs in that type, its values too), and
        ``in_place_b`` to ``"auto"``: the module's inputs are X row-major,
        which the layer reads as a column-major B, so the package carries
        the kernels that read it in place, and the runtime's first call per
        K picks them or the transposing kernel, whichever is faster
        (docs/Python.md, "SparseLinear"). The module is put on ``linear``'s
        device."""
        weight = linear.weight.detach()
        if weight.dtype in (torch.float16, torch.bfloat16):
            options.setdefault("dtype", weight.dtype)
            # Exact: every 16-bit value is a float32.
            weight = weight.float()
        if sparsity is not None:
            if not 0 <= sparsity < 1:
                raise InvalidArgumentError(
                    f"sparsity must be in [0, 1), got {sparsity}")
            weight = weight.to_dense() if weight.is_sparse else weight
            drop = int(round(sparsity * weight.numel()))
            if drop > 0:
                magnitude = weight.abs().flatten()
                threshold = magnitude.kthvalue(drop).values
                keep = weight.abs() > threshold
                # Ties at the threshold: keep exactly numel - drop entries.
                ties = (weight.abs() == threshold).flatten().nonzero()
                excess = drop - int((~keep).sum()) + ties.numel()
                keep = keep.flatten()
                keep[ties[excess:, 0]] = True
                weight = weight * keep.reshape(weight.shape)
        options.setdefault("name", "weight")
        options.setdefault("in_place_b", "auto")
        package = _compile(weight.cpu(), **options)
        module = cls(package[0], linear.bias, package)
        return module.to(linear.weight.device)

    @classmethod
    def from_linear(cls, linear: nn.Linear, **options: Any) -> "SparseLinear":
        """``from_dense(linear)`` without pruning: the weight's zeros (or a
        torch sparse weight's pattern) are the pattern."""
        return cls.from_dense(linear, None, **options)

    @classmethod
    def from_package(cls, package: Package, layer: Any = 0,
                     bias: Optional[torch.Tensor] = None) -> "SparseLinear":
        """A module over ``package[layer]`` (its matrix is the weight, of
        shape out_features x in_features)."""
        return cls(package[layer], bias, package)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Eager calls skip the dispatcher's custom-op overhead (tens of
        # microseconds a call); graphs being compiled see the custom op.
        if torch.compiler.is_compiling():
            return linear(x, self.bias, self._handle, self.out_features)
        return _linear(self.layer, x, self.bias, self.out_features)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, "
                f"out_features={self.out_features}, "
                f"bias={self.bias is not None}, nnz={self.layer.nnz}, "
                f"format={self.layer.format}, strategy={self.layer.strategy}"
                + ("" if self.layer.dtype == "float32"
                   else f", dtype={self.layer.dtype}"))
