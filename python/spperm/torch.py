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
capturing). The weight is fixed (no gradient for it); gradients flow to the
input and, when it requires one, the bias: the gradient of X is dY · W, by
torch's sparse product on a CSR copy of W, or by spperm's kernels on a
package of Wᵀ (``backward="spperm"``), docs/Python.md, "Gradients".
"""

from __future__ import annotations

import secrets
import threading
import warnings
import weakref
from typing import Any, Dict, Optional

import numpy as np
import torch
from torch import nn

from ._errors import InvalidArgumentError, UnsupportedError, did_you_mean
from ._package import (Layer, Package, _dtype_name, _has_tangent,
                       compile as _compile)

__all__ = ["SparseLinear", "linear", "linear_input_grad"]

# The modules the custom ops can run, by handle (an int, so that the ops'
# schemas hold no Python object); a module registers itself, keeping its
# layer and its input gradient alive. Handles are random 62-bit numbers, so
# that a graph holding one (torch.export) run in another process finds no
# layer rather than another process's layer of the same number.
_modules: "weakref.WeakValueDictionary[int, SparseLinear]" = \
    weakref.WeakValueDictionary()
_lock = threading.Lock()


def _register(module: "SparseLinear") -> int:
    with _lock:
        handle = secrets.randbits(62) | 1
        while handle in _modules:
            handle = secrets.randbits(62) | 1
        _modules[handle] = module
        return handle


def _module(op: str, handle: int) -> "SparseLinear":
    module = _modules.get(handle)
    if module is None:
        raise InvalidArgumentError(
            f"spperm::{op}: no layer {handle} in this process (a graph "
            f"holding a SparseLinear runs where that module lives: rebuild "
            f"the module from its package, SparseLinear.from_package)")
    return module


def _bias_grad(grad: torch.Tensor) -> torch.Tensor:
    """The bias's gradient: grad summed over every dimension but the last."""
    return grad.reshape(-1, grad.shape[-1]).sum(0)


class _InputGradient:
    """dX = dY · W for a layer of W (out_features x in_features): through a
    layer of Wᵀ (spperm's kernels), through torch's sparse product on a CSR
    copy of Wᵀ, or not at all (``reason`` says why)."""

    def __init__(self, transpose: Optional[Layer] = None,
                 weight_t: Optional[torch.Tensor] = None,
                 reason: str = ""):
        self.transpose = transpose
        self.weight_t = weight_t  # Wᵀ as a float32 CSR tensor, on the CPU
        self.reason = reason
        self._on_device: Dict[torch.device, torch.Tensor] = {}

    def __call__(self, grad: torch.Tensor, in_features: int) -> torch.Tensor:
        if grad.numel() == 0:  # nothing to compute
            return grad.new_zeros((*grad.shape[:-1], in_features))
        if self.transpose is not None:
            # dY · W = dY · (Wᵀ)ᵀ: the Wᵀ layer's product of dY.
            return _linear(self.transpose, grad, None, in_features)
        if self.weight_t is None:
            raise UnsupportedError(self.reason)
        g = grad.reshape(-1, grad.shape[-1])
        w = self._on_device.get(g.device)
        if w is None:
            w = self.weight_t.to(g.device)
            self._on_device[g.device] = w
        # dXᵀ = Wᵀ · dYᵀ (in_features x N) with dYᵀ row-major (torch's CSR
        # product with a column-major dense operand ran up to 10x slower on
        # the H200, docs/Python.md "Gradients"); its transpose is laid out
        # as the forward product's result is.
        gt = torch.empty((g.shape[1], g.shape[0]), dtype=torch.float32,
                         device=g.device).copy_(g.t())
        gx = torch.sparse.mm(w, gt).t().to(grad.dtype)
        return gx if grad.dim() == 2 else gx.reshape(*grad.shape[:-1],
                                                       in_features)


# spperm-compile's element type names (_dtype_name) as torch dtypes.
_TORCH_TYPES = {"f32": torch.float32, "f16": torch.float16,
                "bf16": torch.bfloat16}


def _check_weight(layer: Layer, weight: torch.Tensor) -> None:
    """Raises InvalidArgumentError unless the dense float32 `weight` is the
    matrix of `layer` (as stored): the layer's product of a random probe
    (the CPU executor) against weight's, within the output's rounding."""
    nonzeros = int(torch.count_nonzero(weight))
    if nonzeros > layer.nnz:  # entries the layer lacks
        raise InvalidArgumentError(
            f"weight= has {nonzeros} nonzero entries but layer "
            f"'{layer.name}' has {layer.nnz}: it is not the weight the "
            f"package was compiled from")
    dtype = getattr(torch, layer.dtype)
    k = layer.k or 2
    g = torch.Generator().manual_seed(0)
    # Signs times powers of two: exact in every dtype.
    probe = (torch.randint(0, 2, (layer.cols, k), generator=g) * 2 - 1) * \
        torch.pow(2.0, -torch.randint(0, 4, (layer.cols, k), generator=g))
    got = layer(probe.to(dtype)).double()
    want = weight.double() @ probe.double()
    tolerance = {"float32": 1e-5, "float16": 2.0 ** -9,
                 "bfloat16": 2.0 ** -6}[layer.dtype]
    scale = float(want.norm())
    if float((got - want).norm()) > tolerance * max(scale, 1e-30):
        raise InvalidArgumentError(
            f"weight= is not the matrix of layer '{layer.name}' (its product "
            f"with a probe differs from the layer's): give the weight the "
            f"package was compiled from")


def _csr_of_transpose(weight: torch.Tensor) -> torch.Tensor:
    """Wᵀ of a dense float32 W as a CSR tensor on the CPU, with 32-bit
    indices where they fit."""
    with warnings.catch_warnings():  # torch: "CSR support is in beta"
        warnings.simplefilter("ignore")
        csr = weight.t().to_sparse_csr()
        if csr.values().numel() < 2**31:
            csr = torch.sparse_csr_tensor(
                csr.crow_indices().int(), csr.col_indices().int(),
                csr.values(), csr.shape, check_invariants=False)
    return csr


def _linear(layer: Layer, x: torch.Tensor, bias: Optional[torch.Tensor],
            out_features: int) -> torch.Tensor:
    """``x · Wᵀ + bias`` for `layer` (W is its out_features x in_features
    matrix) as C = W · B with B = Xᵀ: the result is Cᵀ, a transposed view
    (Y.t() is contiguous), so that the next SparseLinear reads it as its B
    without a copy."""
    if x.dtype != getattr(torch, layer.dtype):
        raise InvalidArgumentError(
            f"spperm::linear: x must be {layer.dtype} (the layer's dtype), "
            f"got {str(x.dtype).replace('torch.', '')}")
    if x.shape[-1] != layer.cols:
        raise InvalidArgumentError(
            f"spperm::linear: x has {x.shape[-1]} features but the layer "
            f"'{layer.name}' takes {layer.cols}")
    if x.numel() == 0:  # no rows: nothing to multiply
        out = x.new_zeros((*x.shape[:-1], out_features))
        return out if bias is None else out + bias
    flat = x.dim() == 2
    x2 = x if flat else x.reshape(-1, layer.cols)
    if layer.k and x2.shape[0] != layer.k:
        raise InvalidArgumentError(
            f"spperm::linear: layer '{layer.name}' was compiled for K = "
            f"{layer.k} rows of x (the batch: x's size without its last "
            f"dimension), got {x2.shape[0]}")
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
def _linear_op(x: torch.Tensor, bias: Optional[torch.Tensor], handle: int,
               out_features: int) -> torch.Tensor:
    return _linear(_module("linear", handle).layer, x, bias, out_features)


#: The custom op ``torch.ops.spperm.linear`` (a ``CustomOpDef``: opcheck,
#: register_kernel, ... apply).
linear = _linear_op
linear.__doc__ = """The custom op ``torch.ops.spperm.linear(x, bias, handle,
out_features)``: ``x · Wᵀ + bias`` for the registered layer ``handle`` (a
SparseLinear's ``_handle``; W is its out_features x in_features matrix). x:
(..., in_features), of the layer's dtype, on the CPU or a CUDA device; the
result has x's device and dtype. Differentiable with respect to x and bias
(its backward is :data:`linear_input_grad`); usable in ``torch.compile``
graphs (docs/Python.md, "Gradients")."""


def _transposed_like(x: torch.Tensor, features: int) -> torch.Tensor:
    """An empty (..., features) result of x's leading shape, laid out as
    the products' results are (for 2-D, the transposed view)."""
    if x.numel() == 0:  # as the product returns it: no elements
        return x.new_empty((*x.shape[:-1], features))
    n = x.numel() // x.shape[-1]
    return x.new_empty((features, n)).t().reshape(*x.shape[:-1], features)


@_linear_op.register_fake
def _(x: torch.Tensor, bias: Optional[torch.Tensor], handle: int,
      out_features: int) -> torch.Tensor:
    return _transposed_like(x, out_features)


@torch.library.custom_op("spperm::linear_input_grad", mutates_args=())
def _linear_input_grad_op(grad: torch.Tensor, handle: int,
                          in_features: int) -> torch.Tensor:
    return _module("linear_input_grad", handle)._gradient(grad, in_features)


#: The custom op ``torch.ops.spperm.linear_input_grad``.
linear_input_grad = _linear_input_grad_op
linear_input_grad.__doc__ = """The custom op
``torch.ops.spperm.linear_input_grad(grad, handle, in_features)``: ``grad ·
W`` for the registered layer ``handle`` (W is its out_features x in_features
matrix), the gradient of :data:`linear` with respect to x. Raises
:class:`UnsupportedError` for a layer without a way to compute it
(docs/Python.md, "Gradients")."""


@_linear_input_grad_op.register_fake
def _(grad: torch.Tensor, handle: int, in_features: int) -> torch.Tensor:
    return _transposed_like(grad, in_features)


def _setup_context(ctx: Any, inputs: Any, output: Any) -> None:
    x, bias, handle, out_features = inputs
    ctx.handle = handle
    ctx.in_features = x.shape[-1]


def _backward(ctx: Any, grad: torch.Tensor) -> Any:
    grad_x = grad_bias = None
    if ctx.needs_input_grad[0]:
        grad_x = _linear_input_grad_op(grad, ctx.handle, ctx.in_features)
    if ctx.needs_input_grad[1]:
        grad_bias = _bias_grad(grad)
    return grad_x, grad_bias, None, None


_linear_op.register_autograd(_backward, setup_context=_setup_context)


def _setup_input_grad(ctx: Any, inputs: Any, output: Any) -> None:
    grad, handle, in_features = inputs
    ctx.handle = handle
    ctx.out_features = grad.shape[-1]


def _backward_input_grad(ctx: Any, gg: torch.Tensor) -> Any:
    # d(grad · W) / d(grad) applied to gg: gg · Wᵀ, the layer's product.
    return _linear_op(gg, None, ctx.handle, ctx.out_features), None, None


_linear_input_grad_op.register_autograd(_backward_input_grad,
                                        setup_context=_setup_input_grad)


class _EagerLinear(torch.autograd.Function):
    """The custom op's product and gradients for eager calls that need a
    gradient, without the dispatcher's custom-op overhead (both ops'
    dispatch, twice the host time of a training step on small layers).
    Its backward is _EagerInputGrad, whose backward is this product again,
    so gradients of any order are exact."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, bias: Optional[torch.Tensor],
                module: "SparseLinear") -> torch.Tensor:
        ctx.module = module
        ctx.x_shape = x.shape
        return _linear(module.layer, x, bias, module.out_features)

    @staticmethod
    def jvp(ctx: Any, x_t: Optional[torch.Tensor],
            bias_t: Optional[torch.Tensor], _module_t: Any) -> torch.Tensor:
        # Linear in x and in the bias: the tangent is the product of x's
        # tangent, plus the bias's.
        module = ctx.module
        if x_t is None:
            shape = (*ctx.x_shape[:-1], module.out_features)
            out = torch.zeros(shape, dtype=module._dtype,
                              device=bias_t.device)
        else:
            out = _linear(module.layer, module._checked_input(x_t), None,
                          module.out_features)
        return out if bias_t is None else out + bias_t

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        grad_x = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = _EagerInputGrad.apply(grad, ctx.module)
        if ctx.needs_input_grad[1]:
            grad_bias = _bias_grad(grad)
        return grad_x, grad_bias, None


class _EagerInputGrad(torch.autograd.Function):
    """grad · W (the input's gradient) for eager calls; its own gradient
    with respect to grad is the module's product (· Wᵀ)."""

    @staticmethod
    def forward(ctx: Any, grad: torch.Tensor,
                module: "SparseLinear") -> torch.Tensor:
        ctx.module = module
        return module._gradient(grad, module.in_features)

    @staticmethod
    def backward(ctx: Any, gg: torch.Tensor) -> Any:
        return _EagerLinear.apply(gg, None, ctx.module), None


class SparseLinear(nn.Module):
    """``torch.nn.Linear`` with a fixed sparse weight compiled by spperm.

    Make one from a trained layer with :meth:`from_dense` (optionally pruning
    it by magnitude) or :meth:`from_linear`, or from a compiled package with
    :meth:`from_package`. Inputs are tensors of shape (..., in_features) of
    the layer's dtype (float32, or float16 / bfloat16 for a weight compiled
    with that ``dtype``: :meth:`from_dense` takes the weight's) on the CPU
    (the CPU executor) or on CUDA (the package's kernels, on torch's current
    stream); the output has the same dtype, accumulated in fp32 and rounded
    once. The weight takes no gradient; the input does (dX = dY · W, see
    :meth:`from_dense`'s ``backward``), and the bias where it requires one
    (``module.bias.requires_grad_()``).
    """

    def __init__(self, layer: Layer, bias: Optional[torch.Tensor] = None,
                 package: Optional[Package] = None,
                 gradient: Optional[_InputGradient] = None):
        super().__init__()
        self.in_features = layer.cols
        self.out_features = layer.rows
        self.layer = layer
        # The layer's dtype (compiled in) as torch's.
        self._dtype: torch.dtype = getattr(torch, layer.dtype)
        # Keeps a compiled package (and its directory) alive with the module.
        self.package = package if package is not None else layer._package
        # The package of Wᵀ that computes the input's gradient, if any.
        self.transpose_package: Optional[Package] = None
        self._gradient = gradient or _InputGradient(reason=(
            f"SparseLinear of layer '{layer.name}' has no gradient for its "
            "input: make it with from_dense / from_linear, or give "
            "from_package the layer of Wᵀ (transpose=) or the weight "
            "(weight=)"))
        self._handle = _register(self)
        if bias is not None:
            bias = bias.detach().to(self._dtype)
            if bias.shape != (self.out_features,):
                raise InvalidArgumentError(
                    f"bias must have shape ({self.out_features},), got "
                    f"{tuple(bias.shape)}")
            self.bias = nn.Parameter(bias.clone(), requires_grad=False)
        else:
            self.register_parameter("bias", None)

    @classmethod
    def from_dense(cls, linear: nn.Linear, sparsity: Optional[float] = None,
                   *, backward: str = "torch",
                   **options: Any) -> "SparseLinear":
        """Compiles ``linear``'s weight. With ``sparsity`` (0 <= s < 1) the
        weight is first pruned by magnitude: its round(s · numel) smallest
        entries in absolute value become zero. Without it the weight's zeros
        (or a torch sparse weight's pattern) are the pattern.

        ``backward`` says how the input's gradient dX = dY · W is computed
        when one is needed: ``"torch"`` (default) by ``torch.sparse.mm`` on a
        CSR copy of Wᵀ the module keeps on the host (8 bytes an entry with
        32-bit indices) and copies to a device at its first backward there;
        ``"spperm"`` by spperm's kernels on a second package, of Wᵀ,
        compiled with the same options (twice the compile time and the
        packages' memory; the module's ``transpose_package``); ``"none"``:
        nothing kept, and a backward through the module raises
        :class:`UnsupportedError`.

        ``options`` go
        to :func:`spperm.compile` (``k=``, ``strategy=``, ...); ``dtype``
        defaults to the weight's (a float16 or bfloat16 layer runs its
        inputs and outputs in that type, its values too), and
        ``in_place_b`` to ``"auto"``: the module's inputs are X row-major,
        which the layer reads as a column-major B, so the package carries
        the kernels that read it in place, and the runtime's first call per
        K picks them or the transposing kernel, whichever is faster
        (docs/Python.md, "SparseLinear"). The module is put on ``linear``'s
        device."""
        weight = getattr(linear, "weight", None)
        if not isinstance(linear, nn.Linear) and (
                not isinstance(weight, torch.Tensor) or weight.dim() != 2):
            raise InvalidArgumentError(
                "SparseLinear.from_dense and from_linear take a "
                "torch.nn.Linear (a module whose weight is out_features x "
                f"in_features), got {type(linear).__name__}")
        if sparsity is not None and (
                isinstance(sparsity, bool) or
                not isinstance(sparsity, (int, float, np.floating, np.integer))):
            raise InvalidArgumentError(
                f"sparsity must be a number in [0, 1), got {sparsity!r}")
        weight = weight.detach()
        if weight.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            if options.get("dtype") is None:
                raise UnsupportedError(
                    f"SparseLinear runs float32, float16 or bfloat16 layers; "
                    f"the weight is {weight.dtype}: convert the module first "
                    f"(linear.float()) or name the layer's dtype (dtype=)")
            weight = weight.float()  # rounded again to the dtype
        if weight.dtype in (torch.float16, torch.bfloat16):
            options.setdefault("dtype", weight.dtype)
            # Exact: every 16-bit value is a float32.
            weight = weight.float()
        if sparsity is not None:
            if not 0 <= sparsity < 1:
                raise InvalidArgumentError(
                    f"sparsity must be in [0, 1), got {sparsity}")
            if weight.layout != torch.strided:  # COO or CSR
                weight = weight.to_dense()
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
        if backward not in ("torch", "spperm", "none"):
            hint = (did_you_mean(backward, ["torch", "spperm", "none"])
                    if isinstance(backward, str) else "")
            raise InvalidArgumentError(
                f"backward must be 'torch', 'spperm' or 'none', got "
                f"{backward!r}{hint}")
        options.setdefault("name", "weight")
        options.setdefault("in_place_b", "auto")
        weight = weight.cpu()
        package = _compile(weight, **options)
        transpose = None
        if backward == "spperm":
            # Wᵀ's own package, in a temporary directory of its own.
            t_options = {key: value for key, value in options.items()
                         if key not in ("output", "report")}
            t_options["name"] = options["name"] + "_t"
            weight_t = (weight.t().contiguous()
                        if weight.layout == torch.strided
                        else weight.to_sparse_coo().t().coalesce())
            transpose = _compile(weight_t, **t_options)
            gradient = _InputGradient(transpose=transpose[0])
        elif backward == "torch":
            dense = (weight.to_dense() if weight.layout != torch.strided
                     else weight)
            # The package's values are rounded to their type (values_dtype,
            # by default the dtype): the gradient uses the same W.
            values = options.get("values_dtype") or options.get("dtype")
            if values is not None:
                dense = dense.to(_TORCH_TYPES[_dtype_name(
                    values, "values_dtype")]).float()
            gradient = _InputGradient(weight_t=_csr_of_transpose(dense))
        else:
            gradient = _InputGradient(reason=(
                "SparseLinear made with backward='none' has no gradient for "
                "its input (from_dense's backward='torch' or 'spperm' "
                "computes it)"))
        module = cls(package[0], linear.bias, package, gradient)
        module.transpose_package = transpose
        return module.to(linear.weight.device)

    @classmethod
    def from_linear(cls, linear: nn.Linear, **options: Any) -> "SparseLinear":
        """``from_dense(linear)`` without pruning: the weight's zeros (or a
        torch sparse weight's pattern) are the pattern."""
        return cls.from_dense(linear, None, **options)

    @classmethod
    def from_package(cls, package: Package, layer: Any = 0,
                     bias: Optional[torch.Tensor] = None, *,
                     transpose: Any = None,
                     weight: Any = None) -> "SparseLinear":
        """A module over ``package[layer]`` (its matrix is the weight, of
        shape out_features x in_features). The input's gradient is computed
        by ``transpose``, a layer (or a one-layer package) of Wᵀ compiled
        from the same weight (spperm's kernels), or from ``weight``, the
        weight the package was compiled from (a dense or torch sparse
        tensor, a NumPy array or a SciPy sparse matrix: torch's sparse
        product, as :meth:`from_dense`'s ``backward="torch"``); with
        neither, a backward through the module raises
        :class:`UnsupportedError`."""
        forward = package[layer]
        gradient = None
        if transpose is not None and weight is not None:
            raise InvalidArgumentError(
                "give from_package transpose= or weight=, not both")
        if weight is not None:
            if not isinstance(weight, torch.Tensor):
                # A NumPy array or a SciPy sparse matrix, as compile takes.
                weight = torch.as_tensor(
                    weight.toarray() if hasattr(weight, "toarray") else
                    np.asarray(weight))
            if tuple(weight.shape) != (forward.rows, forward.cols):
                raise InvalidArgumentError(
                    f"weight= must be {forward.rows} x {forward.cols} (the "
                    f"matrix of layer '{forward.name}'), got "
                    f"{' x '.join(str(n) for n in weight.shape)}")
            dense = weight.detach().cpu()
            if dense.layout != torch.strided:
                dense = dense.to_dense()
            # As the package holds it: rounded to its values' type.
            dense = dense.to(getattr(torch, forward.values_dtype)).float()
            _check_weight(forward, dense)
            gradient = _InputGradient(weight_t=_csr_of_transpose(dense))
        if transpose is not None:
            if isinstance(transpose, Package):
                if len(transpose) != 1:
                    raise InvalidArgumentError(
                        f"transpose= must be a layer or a one-layer package, "
                        f"got a package of {len(transpose)} layers")
                transpose = transpose[0]
            if not isinstance(transpose, Layer):
                raise InvalidArgumentError(
                    f"transpose= must be a spperm Layer or Package, got "
                    f"{type(transpose).__name__}")
            if (transpose.rows, transpose.cols) != (forward.cols, forward.rows):
                raise InvalidArgumentError(
                    f"transpose= must be {forward.cols} x {forward.rows} "
                    f"(Wᵀ of layer '{forward.name}'), got layer "
                    f"'{transpose.name}' of {transpose.rows} x "
                    f"{transpose.cols}")
            if transpose.dtype != forward.dtype:
                raise InvalidArgumentError(
                    f"transpose= must have the layer's dtype "
                    f"{forward.dtype}, got {transpose.dtype}")
            gradient = _InputGradient(transpose=transpose)
        module = cls(forward, bias, package, gradient)
        module.transpose_package = (None if transpose is None
                                    else transpose._package)
        return module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x · Wᵀ + bias`` for x of shape (..., in_features), of the
        layer's dtype, on the CPU or a CUDA device."""
        # Under autocast, x comes in the layer's dtype (which is compiled
        # in), as autocast gives float32 ops float32 inputs.
        dtype = self._dtype
        if (isinstance(x, torch.Tensor) and x.is_floating_point()
                and x.dtype != dtype and x.device.type in ("cpu", "cuda")
                and torch.is_autocast_enabled(x.device.type)):
            x = x.to(dtype)
        # Graphs being compiled see the custom ops; eager calls skip the
        # dispatcher's custom-op overhead (tens of microseconds a call).
        if torch.compiler.is_compiling():
            return _linear_op(x, self.bias, self._handle, self.out_features)
        if torch.jit.is_tracing():
            raise UnsupportedError(
                "torch.jit.trace cannot record SparseLinear (its product "
                "runs outside TorchScript): call it eagerly, or in "
                "torch.compile / torch.export graphs")
        x = self._checked_input(x)
        if torch.is_grad_enabled() and (
                x.requires_grad or (self.bias is not None
                                    and self.bias.requires_grad)):
            return _EagerLinear.apply(x, self.bias, self)
        # Forward-mode AD (a dual x or bias): the tangent through jvp.
        if _has_tangent(x) or (self.bias is not None and
                               _has_tangent(self.bias)):
            return _EagerLinear.apply(x, self.bias, self)
        return _linear(self.layer, x, self.bias, self.out_features)

    def _checked_input(self, x: Any) -> torch.Tensor:
        """x as the eager product takes it, or InvalidArgumentError naming
        what is wrong (where torch's own errors would say less)."""
        if not isinstance(x, torch.Tensor):
            raise InvalidArgumentError(
                f"SparseLinear: x must be a torch tensor, got "
                f"{type(x).__name__}")
        if x.layout != torch.strided:
            raise InvalidArgumentError(
                f"SparseLinear: x must be a dense (strided) tensor, got "
                f"layout {x.layout}")
        if x.dim() == 0:
            raise InvalidArgumentError(
                f"SparseLinear: x must have shape (..., {self.in_features}), "
                f"got a scalar")
        if x.device.type not in ("cpu", "cuda"):
            raise InvalidArgumentError(
                f"SparseLinear: x must be on the CPU or a CUDA device, got "
                f"{x.device}")
        if self.bias is not None and self.bias.device != x.device:
            raise InvalidArgumentError(
                f"SparseLinear: x is on {x.device} but the bias on "
                f"{self.bias.device} (move the module: module.to(device))")
        # A lazily negated view (torch's neg bit) is read by address.
        return x.resolve_neg() if x.is_neg() else x

    def _apply(self, fn: Any, recurse: bool = True) -> "SparseLinear":
        # .half(), .to(dtype) and the like would convert the bias alone: the
        # layer's dtype is compiled in.
        probe = fn(torch.empty(0, dtype=self._dtype))
        if probe.dtype != self._dtype:
            raise UnsupportedError(
                f"SparseLinear's layer '{self.layer.name}' is compiled for "
                f"{self.layer.dtype}; it cannot become {probe.dtype} (make "
                f"a module of that dtype: SparseLinear.from_dense of the "
                f"layer converted first, or dtype=)")
        return super()._apply(fn, recurse)

    def __copy__(self) -> "SparseLinear":
        # A shallow copy shares the layer, the package and the bias, and is
        # a module of its own for the custom ops.
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update(self.__dict__)
        new._handle = _register(new)
        return new

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, "
                f"out_features={self.out_features}, "
                f"bias={self.bias is not None}, nnz={self.layer.nnz}, "
                f"format={self.layer.format}, strategy={self.layer.strategy}"
                + ("" if self.layer.dtype == "float32"
                   else f", dtype={self.layer.dtype}"))
