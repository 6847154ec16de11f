"""Packages: compiled, saved, loaded, and run on arrays (docs/Python.md)."""

from __future__ import annotations

import json
import operator
import os
import shutil
import tempfile
import threading
import weakref
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from . import _core
from ._errors import (CompileError, CorruptPackageError,
                      InvalidArgumentError, LayerNotFoundError, PackageIOError,
                      UnsupportedError, did_you_mean)
from ._matrix import MatrixLike, is_path, to_csr

#: The devices a package runs on.
DEVICES = ("cpu", "gpu")


_TORCH_TENSOR: Any = None


def _torch_tensor() -> Any:
    """torch.Tensor when torch is already imported (never imports it)."""
    global _TORCH_TENSOR
    if _TORCH_TENSOR is None:
        import sys

        torch = sys.modules.get("torch")
        if torch is None:
            return None
        _TORCH_TENSOR = torch.Tensor
    return _TORCH_TENSOR


def _kind(x: Any, what: str = "B") -> str:
    """Which family an operand (``what``: "B" or "out") belongs to: torch,
    cupy, numpy or dlpack."""
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return "torch"
    if mod == "cupy":
        return "cupy"
    if isinstance(x, np.ndarray):
        return "numpy"
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return "dlpack"
    raise InvalidArgumentError(
        f"{what} must be an array (a torch tensor, a CuPy or NumPy array, or "
        f"any DLPack tensor), got {type(x).__name__}")


def _check_operand(x: Any, kind: str, what: str) -> None:
    """What the runtime's binding cannot say itself: a sparse torch tensor,
    a NumPy array in the other byte order, a read-only out; and torch's
    rules for an out that spperm writes through its address: none that
    requires a gradient while autograd records (the write would bypass
    it), none with the neg bit (its memory is read negated)."""
    if kind == "torch":
        import torch

        if x.layout != torch.strided:
            raise InvalidArgumentError(
                f"{what} must be a dense tensor, got layout {x.layout} (use "
                ".to_dense())")
        if what == "out" and x.requires_grad and torch.is_grad_enabled():
            raise UnsupportedError(
                "out= takes no tensor that requires a gradient (torch's rule "
                "for out= arguments); call it under torch.no_grad() or pass "
                "out.detach()")
        if what == "out" and x.is_neg():
            raise InvalidArgumentError(
                "out is a lazily negated view (torch's neg bit); pass a "
                "tensor that holds its values (out.resolve_neg() is a copy)")
    elif kind == "numpy":
        if not x.dtype.isnative:
            raise InvalidArgumentError(
                f"{what} must be in the machine's byte order, got dtype "
                f"{x.dtype.str!r} (use .astype(x.dtype.newbyteorder('=')))")
        if what == "out" and not x.flags.writeable:
            raise InvalidArgumentError("out is read-only")


def _device(x: Any, kind: str) -> str:
    """The package device an operand lives on: 'cpu' or 'gpu'."""
    if kind == "torch":
        if x.device.type == "cuda":
            return "gpu"
        if x.device.type == "cpu":
            return "cpu"
        raise InvalidArgumentError(
            f"operand on torch device '{x.device}'; spperm runs on 'cpu' and "
            "'cuda' tensors")
    if kind == "cupy":
        return "gpu"
    if kind == "numpy":
        return "cpu"
    device_type = x.__dlpack_device__()[0]
    if device_type == 1:
        return "cpu"
    if device_type == 2:  # kDLCUDA
        return "gpu"
    raise InvalidArgumentError(
        f"operand on DLPack device type {device_type}; spperm runs on the CPU "
        "(1) and CUDA (2) (copy pinned or managed memory to one of them)")


def _dtype_text(x: Any) -> str:
    """The NumPy / torch name of an operand's element type ("float32")."""
    return str(getattr(x, "dtype", "")).replace("torch.", "")


def _layers_text(count: int) -> str:
    return f"{count} layer" + ("" if count == 1 else "s")


# The runtime's sprt_dtype of each layer dtype name (Layer.dtype).
_SPRT_DTYPE = {"float32": 0, "float16": 1, "bfloat16": 2}


def _empty(like: Any, kind: str, rows: int, k: int,
           dtype: str = "float32") -> Any:
    """A rows x k result of ``dtype`` ("float32", "float16" or "bfloat16")
    of the same kind and device as ``like``."""
    if kind == "torch":
        import torch

        return torch.empty((rows, k), dtype=getattr(torch, dtype),
                           device=like.device)
    if dtype == "bfloat16" and kind in ("cupy", "numpy"):
        raise InvalidArgumentError(
            "a bfloat16 layer's B and C are torch tensors (or pass out=, any "
            "DLPack bfloat16 array): NumPy and CuPy have no bfloat16")
    if kind == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.empty((rows, k), dtype=dtype)
    if kind == "numpy" or _device(like, kind) == "cpu":
        return np.empty((rows, k), dtype=dtype)
    raise InvalidArgumentError(
        f"cannot allocate C for a {type(like).__name__} on the GPU: pass "
        "out=")


def _stream(b: Any, kind: str, stream: Any) -> int:
    """The CUDA stream to run on, as an integer (0: the legacy default)."""
    if stream is not None:
        handle = stream
        for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy Stream
            if hasattr(stream, attr):
                handle = getattr(stream, attr)
                break
        try:
            if isinstance(handle, bool):
                raise TypeError
            value = operator.index(handle)
        except TypeError:
            raise TypeError(
                "stream must be a torch.cuda.Stream, a cupy.cuda.Stream or "
                f"a cudaStream_t as an integer, got {type(stream).__name__}"
            ) from None
        if not 0 <= value < 1 << 64:
            raise InvalidArgumentError(
                f"stream handle {value} is not a cudaStream_t (an unsigned "
                "64-bit address)")
        return value
    if kind == "torch" and b.is_cuda:
        import torch

        return torch.cuda.current_stream(b.device).cuda_stream
    if kind == "cupy":
        import cupy

        # The current stream of B's device, not of the current device.
        with cupy.cuda.Device(b.device.id):
            return cupy.cuda.get_current_stream().ptr
    return 0


def _torch_grad_enabled() -> bool:
    import torch

    return torch.is_grad_enabled()


_FORWARD_AD: Any = None


def _has_tangent(x: Any) -> bool:
    """Whether the torch tensor x is a dual tensor of forward-mode AD (a
    module attribute read while no dual level is entered)."""
    global _FORWARD_AD
    if _FORWARD_AD is None:
        import torch.autograd.forward_ad

        _FORWARD_AD = torch.autograd.forward_ad
    return _FORWARD_AD._current_level >= 0 and \
        _FORWARD_AD.unpack_dual(x).tangent is not None


_NO_GRADIENT = None


def _no_gradient() -> Any:
    """The autograd function of a layer's product on a torch B that
    requires a gradient: forward runs the product, backward raises."""
    global _NO_GRADIENT
    if _NO_GRADIENT is None:
        import torch

        class NoGradient(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, layer: "Layer", b: Any, stream: Any) -> Any:
                ctx.layer_name = layer.name
                if stream is None:
                    return layer._call_torch(b)
                b, kind, device, out = layer._operands(b, None)
                return layer._run(b, out, kind, device, stream, True)

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                raise UnsupportedError(
                    f"layer '{ctx.layer_name}': a package's product A · B "
                    "has no gradient with respect to B (it would take Aᵀ); "
                    "spperm.torch.SparseLinear computes its input's gradient "
                    "(docs/Python.md, \"Gradients\"), or call the layer on "
                    "B.detach()")

        _NO_GRADIENT = NoGradient
    return _NO_GRADIENT


class _Loads:
    """A package's loads per device, shared by the :class:`Package` and its
    layers without a reference cycle (so that dropping the last reference
    frees the device memory at once, not at the next cycle collection):
    the directory (absolute), this rank's shards, the layers as the first
    load described them, and the temporary directory a compiled package
    owns (removed when the last package or layer referring to it goes)."""

    def __init__(self, path: str, shard: tuple, owned_dir: Optional[str]):
        self.path = path
        self.shard = shard
        self.lock = threading.Lock()
        self.loaded: Dict[str, Any] = {}
        # [(layer_info, shards)] of every layer, from the first load.
        self.described: Optional[List[tuple]] = None
        if owned_dir is not None:
            self._finalizer = weakref.finalize(self, shutil.rmtree, owned_dir,
                                               True)

    def runtime(self, device: str) -> Any:
        with self.lock:
            runtime = self.loaded.get(device)
            if runtime is None:
                runtime = _core.Package(self.path, device, *self.shard)
                self._check_same(runtime)
                self.loaded[device] = runtime
            return runtime

    def _check_same(self, runtime: Any) -> None:
        """A later load (another device, or after close()) must find the
        package the layers describe: shapes the calls size C by."""
        if self.described is None:
            return
        found = [(runtime.layer_info(i), runtime.shards(i))
                 for i in range(runtime.layer_count())]
        if found != self.described:
            raise CorruptPackageError(
                f"{self.path}: the package changed since it was loaded (its "
                "layers differ from those this Package describes); load it "
                "again with spperm.load")


_NOT_PICKLED = (
    "a spperm {what} cannot be pickled or copied (it holds device memory and "
    "a loaded runtime), nor can a module holding one (torch.save(model), "
    "copy.deepcopy): save the package with pkg.save(path) and load it again "
    "with spperm.load(path) (a SparseLinear: SparseLinear.from_package; "
    "copy.copy of a SparseLinear shares its package)")


class Layer:
    """One layer of a package: C = A · B for its fixed matrix A.

    Attributes ``name``, ``rows``, ``cols``, ``nnz``, ``k`` (the K its kernels
    were specialized for; 0 for any K), ``format`` ("csr", "bell", "hbp", or
    "cusparse" for a layer compiled to run through cuSPARSE), ``strategy`` and
    ``dtype`` (B's and C's element type: "float32", or "float16" /
    "bfloat16" for a layer compiled with ``dtype=``) describe it, and
    ``values_dtype`` the type A's values are stored in (the ``dtype``, or
    "float32" for one compiled with ``values_dtype="float32"``)
    (``spperm-inspect PKG`` prints the same); ``shards`` lists the row
    shards it holds (one dict per shard: ``index``, ``count``,
    ``row_begin``, ``row_end``, ``rows``; a layer compiled whole is one
    shard of count 1, docs/Distributed.md).
    """

    def __init__(self, package: "Package", index: int, info: Dict[str, Any],
                 shards: Optional[List[Dict[str, int]]] = None):
        # The package's loads, strongly; the Package itself weakly (no
        # cycle: see _Loads).
        self._loads: _Loads = package._loads
        self._package_ref = weakref.ref(package)
        self.index = index
        self.name: str = info["name"]
        self.rows: int = info["rows"]
        self.cols: int = info["cols"]
        self.nnz: int = info["nnz"]
        self.k: int = info["k"]
        self.format: str = info["format"]
        self.strategy: str = info["strategy"]
        self.dtype: str = info.get("dtype", "float32")
        self._column_major: Dict[str, bool] = {}
        self.shards: List[Dict[str, int]] = shards or [
            {"index": 0, "count": 1, "row_begin": 0, "row_end": self.rows,
             "rows": self.rows}]

    @property
    def shape(self) -> tuple:
        """(rows, cols) of A."""
        return (self.rows, self.cols)

    @property
    def _package(self) -> "Package":
        """The package of this layer (a new Package object over the same
        loads when the one it came from is gone)."""
        package = self._package_ref()
        if package is None:
            package = Package._over(self._loads)
            self._package_ref = weakref.ref(package)
        return package

    @property
    def values_dtype(self) -> str:
        """The element type of A's values as the package stores them
        (manifest.json's ``values_dtype``, docs/Package.md): "float32",
        "float16" or "bfloat16"."""
        path = os.path.join(self._loads.path, "manifest.json")
        try:
            with open(path, encoding="utf-8") as f:
                layers = json.load(f)["layers"]
            info = next(l for l in layers if l["name"] == self.name)
        except (OSError, ValueError, KeyError, StopIteration) as e:
            raise PackageIOError(f"{path}: cannot read layer "
                                 f"'{self.name}' ({e})") from None
        return {"f16": "float16", "bf16": "bfloat16"}.get(
            info.get("values_dtype", "f32"), "float32")

    def __reduce__(self) -> Any:
        # Reached first when a module holding the layer (SparseLinear) is
        # pickled or deep-copied: torch.save(model), copy.deepcopy(model).
        raise UnsupportedError(_NOT_PICKLED.format(what="Layer"))

    def __copy__(self) -> "Layer":
        # A shallow copy would share everything: the layer itself.
        return self

    def __repr__(self) -> str:
        return (f"<spperm.Layer '{self.name}' {self.rows}x{self.cols} "
                f"nnz={self.nnz} format={self.format} "
                f"strategy={self.strategy} k={self.k or 'any'}"
                + ("" if self.dtype == "float32" else f" dtype={self.dtype}")
                + ">")

    def _operands(self, b: Any, out: Any):
        """(B, its kind, its device, C): B as the runtime reads it (a torch
        view with the neg bit resolved), C as given (checked) or new."""
        kind = _kind(b)
        device = _device(b, kind)
        if getattr(b, "ndim", 2) != 2:
            raise InvalidArgumentError(
                f"B must be 2-D ({self.cols} x K), got {b.ndim} dimensions")
        # The runtime takes K < 2^31: checked before C is allocated.
        if int(b.shape[1]) > 2**31 - 1:
            raise InvalidArgumentError(
                f"B has {int(b.shape[1])} columns; K must be less than 2^31")
        _check_operand(b, kind, "B")
        if kind == "torch" and b.is_neg():  # its memory holds -B
            b = b.resolve_neg()
        if out is None:
            out = _empty(b, kind, self.rows, int(b.shape[1]), self.dtype)
        else:
            out_kind = _kind(out, "out")
            if _device(out, out_kind) != device:
                raise InvalidArgumentError(
                    f"out is on the {_device(out, out_kind).upper()} but B on "
                    f"the {device.upper()}")
            if getattr(out, "ndim", 2) != 2:
                raise InvalidArgumentError(
                    f"out must be 2-D ({self.rows} x K), got {out.ndim} "
                    "dimensions")
            _check_operand(out, out_kind, "out")
        return b, kind, device, out

    def _empty_product(self, b: Any, out: Any) -> bool:
        """Whether C = A · B has no elements (A without rows, or K = 0) with
        B and C of the right shapes: then there is nothing to compute (the
        runtime, which takes K >= 1, is not called)."""
        k = int(b.shape[1])
        if self.rows != 0 and k != 0:
            return False
        # Anything else the runtime's binding refuses: a B of another dtype
        # among it, where B names its dtype as NumPy and torch do (another
        # DLPack array's dtype is its own business, as ever).
        return (int(b.shape[0]) == self.cols
                and tuple(int(n) for n in out.shape) == (self.rows, k)
                and all(_kind(x, what) == "dlpack"
                        or _dtype_text(x) == self.dtype
                        for x, what in ((b, "B"), (out, "out"))))

    def _run(self, b: Any, out: Any, kind: str, device: str,
             stream: Any, allocated: bool = False) -> Any:
        """Runs the product into ``out`` (``allocated``: made by _operands,
        not the caller's)."""
        if self._empty_product(b, out):
            return out
        runtime = self._loads.runtime(device)
        handle = _stream(b, kind, stream)
        try:
            runtime.spmm(self.index, b, out, handle)
        except TypeError as e:  # the binding's: strides it cannot express
            raise InvalidArgumentError(
                f"layer '{self.name}': B or out is not an array the runtime "
                f"reads (C- or F-contiguous, strides a multiple of the "
                f"element size): {e}") from None
        if _kind(out, "out") == "torch":
            import torch

            if not allocated:
                # Written through its address: torch's in-place rule.
                torch.autograd.graph.increment_version(out)
            elif stream is not None and out.is_cuda:
                # A new C written on another stream than it was allocated
                # on: not reused before that stream's work is done.
                out.record_stream(torch.cuda.ExternalStream(
                    handle, device=out.device))
        return out

    def __call__(self, b: Any, *, out: Any = None, stream: Any = None) -> Any:
        """Returns C = A · B (rows x K, of the layer's ``dtype``, rows in A's
        original order).

        ``b`` is a cols x K array of the layer's ``dtype`` (float32 unless
        compiled with ``dtype=``), C-contiguous or F-contiguous (such as
        ``x.t()`` of a row-major x; docs/RuntimeABI.md, "Column-major B"): a
        torch tensor, a CuPy or NumPy array, or any DLPack tensor. CUDA arrays run the package's
        GPU kernels on the caller's current stream (torch's or CuPy's, or
        ``stream=``) and return without waiting; host arrays run the CPU
        executor. ``out=`` writes into an existing rows x K array of the same
        device. The result has B's kind and device.
        """
        tensor = _torch_tensor()
        if tensor is not None and isinstance(b, tensor):
            # Subclasses too (an nn.Parameter B): none may lose its gradient.
            if b.requires_grad and _torch_grad_enabled():
                return self._call_tracked(b, out, stream)
            if _has_tangent(b):
                raise UnsupportedError(
                    f"layer '{self.name}': a package's product does not take "
                    "forward-mode gradients (a dual B); "
                    "spperm.torch.SparseLinear does")
            if type(b) is tensor and out is None and stream is None:
                return self._call_torch(b)
        allocated = out is None
        b, kind, device, out = self._operands(b, out)
        return self._run(b, out, kind, device, stream, allocated)

    def _call_tracked(self, b: Any, out: Any, stream: Any) -> Any:
        """__call__ for a torch B that requires a gradient: the product has
        none with respect to B (that would take Aᵀ), so the result is marked
        as such: a backward through it raises instead of leaving B's
        gradient silently out."""
        if out is not None:
            raise UnsupportedError(
                f"layer '{self.name}': out= takes no B that requires a "
                "gradient (torch's rule for out= arguments); call it under "
                "torch.no_grad() or on B.detach()")
        return _no_gradient().apply(self, b, stream)

    def _call_torch(self, b: Any) -> Any:
        """__call__ for a torch tensor, without DLPack: its checks in Python
        (a few attribute reads) and the runtime on its addresses."""
        import torch

        if (b.dtype != getattr(torch, self.dtype) or b.dim() != 2
                or b.shape[0] != self.cols
                or b.layout != torch.strided
                or b.device.type not in ("cpu", "cuda")):
            return self._slow(b)  # the general path says what is wrong
        if b.is_neg():  # a lazily negated view: its memory holds -B
            b = b.resolve_neg()
        if b.is_contiguous():
            return self._run_torch(b)
        if b.t().is_contiguous():
            return self._run_torch(b, column_major=True)
        return self._slow(b)

    def reads_column_major(self, device: str = "gpu") -> bool:
        """Whether this layer takes an F-contiguous (column-major) B on
        ``device`` without a copy: always on the CPU; on the GPU when its
        package has the layer's transposing kernel (packages made before
        spperm had them do not; ``sprt_layer_accepts_order``)."""
        cached = self._column_major.get(device)
        if cached is None:
            cached = self._loads.runtime(device).accepts_column_major(
                self.index)
            self._column_major[device] = cached
        return cached

    def _run_torch(self, b: Any, column_major: bool = False) -> Any:
        """C = A · B for a cols x K torch tensor B of the layer's dtype,
        C-contiguous or (``column_major``) F-contiguous, on the CPU or a
        CUDA device (the caller checked), into a new tensor on B's device
        and stream. On the GPU an F-contiguous B runs through the layer's
        transposing kernel, into the runtime's workspace for the stream (a
        stream-ordered allocation of the graph's own while a CUDA graph is
        captured), or is copied where the package has no such kernel."""
        import torch

        k = b.shape[1]
        dtype = b.dtype
        if k == 0 or self.rows == 0:  # no elements: nothing to compute
            return torch.empty((self.rows, k), dtype=dtype, device=b.device)
        c = torch.empty((self.rows, k), dtype=dtype, device=b.device)
        if b.is_cuda:
            device = b.get_device()
            runtime = self._loads.loaded.get("gpu") or \
                self._loads.runtime("gpu")
            if device != runtime.ordinal:
                return self._slow(b)
            stream = torch._C._cuda_getCurrentRawStream(device)
            if column_major and not self.reads_column_major("gpu"):
                b = b.contiguous()  # an older package: one transposing copy
                column_major = False
        else:
            runtime = self._loads.loaded.get("cpu") or \
                self._loads.runtime("cpu")
            stream = 0
        runtime.spmm_addresses(self.index, b.data_ptr(), k, c.data_ptr(),
                               stream, _SPRT_DTYPE[self.dtype],
                               1 if column_major else 0)
        return c

    def _slow(self, b: Any) -> Any:
        b, kind, device, out = self._operands(b, None)
        return self._run(b, out, kind, device, None, True)

    def time(self, b: Any, *, out: Any = None, variant: Optional[str] = None,
             warmup: int = 3, runs: int = 20,
             stream: Any = None) -> List[float]:
        """Times ``runs`` runs (after ``warmup``) of this layer's product and
        returns their times in milliseconds, one per run, in order (CUDA
        events on the GPU); ``variant`` as ``spperm-run --bench``: None
        (what ``__call__`` runs), ``"cusparse-spmm-default"``,
        ``"spperm:N"``, ... (docs/RuntimeABI.md, ``sprt_spmm_time``); one
        the package or device cannot run raises :class:`UnsupportedError`."""
        # spperm-run's bounds: the times are held on the host, 4 bytes a run.
        warmup = _count("warmup", warmup, 0, _MAX_RUNS)
        runs = _count("runs", runs, 1, _MAX_RUNS)
        if variant is not None:
            variant = _text_argument("variant", variant)
        b, kind, device, out = self._operands(b, out)
        # K = 0 with operands that are right otherwise (else the binding
        # says what is wrong with them).
        if int(b.shape[1]) == 0 and self._empty_product(b, out):
            raise InvalidArgumentError(
                f"layer '{self.name}': B has no columns (K = 0), so there is "
                "no product to time")
        runtime = self._loads.runtime(device)
        return list(runtime.time(self.index, variant, b, out,
                                 _stream(b, kind, stream), warmup, runs))


class Package:
    """A compiled package: one or more layers, each C = A · B for a fixed A.

    Made by :func:`spperm.compile` (in a temporary directory until
    :meth:`save`) or :func:`spperm.load`. ``pkg(B)`` runs a one-layer
    package; ``pkg["name"](B)`` (or ``pkg[i]``) any layer. The package is
    loaded on a device at its first use there (``device=`` of :func:`load`
    loads it at once) and released with :meth:`close` or when collected.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], *,
                 device: Optional[str] = None, _owned_dir: Optional[str] = None,
                 _shard: Optional[tuple] = None):
        if device is not None and device not in DEVICES:
            raise InvalidArgumentError(
                f"device must be 'cpu' or 'gpu', got {device!r}")
        # Absolute: a later load (another device, after close()) must not
        # depend on the working directory. (rank, ranks): this rank's
        # shards only (spperm.distributed).
        self._loads = _Loads(os.path.abspath(_path_text(path)),
                             _shard or (-1, 0), _owned_dir)
        self.stages: List[tuple] = []
        first = self._loads.runtime(device or "cpu")
        described = [(first.layer_info(i), first.shards(i))
                     for i in range(first.layer_count())]
        self._loads.described = described
        self.layers: List[Layer] = [
            Layer(self, i, info, shards)
            for i, (info, shards) in enumerate(described)]
        if device is None:  # the CPU load only described the layers
            self._loads.loaded.pop("cpu", None)

    @classmethod
    def _over(cls, loads: _Loads) -> "Package":
        """A Package over loads that already describe their layers."""
        package = cls.__new__(cls)
        package._loads = loads
        package.stages = []
        package.layers = [Layer(package, i, info, shards)
                          for i, (info, shards) in enumerate(loads.described)]
        return package

    def _runtime(self, device: str) -> Any:
        return self._loads.runtime(device)

    @property
    def _path(self) -> str:
        return self._loads.path

    @property
    def path(self) -> str:
        """The package directory, absolute (a temporary one until
        :meth:`save`)."""
        return self._loads.path

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self.layers)

    def __contains__(self, key: Any) -> bool:
        """Whether the package has a layer named ``key`` (a str), or is the
        package of the :class:`Layer` ``key``."""
        if isinstance(key, str):
            return any(layer.name == key for layer in self.layers)
        return any(layer is key for layer in self.layers)

    def __getitem__(self, key: Union[int, str]) -> Layer:
        """The layer of index ``key`` (negative from the end) or named
        ``key``; :class:`LayerNotFoundError` (a ``KeyError``) lists the
        names when none is, ``IndexError`` for an index out of range."""
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            raise TypeError(
                f"a layer is named by its index or name, got "
                f"{type(key).__name__}")
        if isinstance(key, int):
            if not -len(self.layers) <= key < len(self.layers):
                raise IndexError(
                    f"{self._path}: layer index {key} out of range (the "
                    f"package has {_layers_text(len(self.layers))})")
            return self.layers[key]
        for layer in self.layers:
            if layer.name == key:
                return layer
        names = ", ".join(layer.name for layer in self.layers)
        raise LayerNotFoundError(
            f"{self._path}: no layer named '{key}' (layers: {names})")

    def __call__(self, b: Any, *, out: Any = None, stream: Any = None) -> Any:
        """C = A · B for a one-layer package (see :meth:`Layer.__call__`)."""
        if len(self.layers) != 1:
            names = ", ".join(layer.name for layer in self.layers)
            raise InvalidArgumentError(
                f"the package has {_layers_text(len(self.layers))} "
                f"({names}); call one: pkg['name'](B)")
        return self.layers[0](b, out=out, stream=stream)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> "Package":
        """Copies the package to the directory ``path`` (replacing a package
        there, refusing anything else; a failed save leaves what was there)
        and returns self (still at :attr:`path`)."""
        dest = os.path.abspath(_path_text(path))
        # As spperm-compile writes a package: a temporary directory beside
        # it, exchanged atomically with the package there (docs/Package.md,
        # "Writing"); one an interrupted save leaves is swept by the next.
        _core.copy_package(self._path, dest)
        return self

    def close(self) -> None:
        """Releases the package's memory on every device; a later call loads
        it again from :attr:`path`. (A compiled package's temporary directory
        goes when the package object does.)"""
        with self._loads.lock:
            self._loads.loaded.clear()

    def __enter__(self) -> "Package":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __reduce__(self) -> Any:
        raise UnsupportedError(_NOT_PICKLED.format(what="Package"))

    def __repr__(self) -> str:
        names = ", ".join(layer.name for layer in self.layers)
        return f"<spperm.Package {self._path!r} layers=[{names}]>"


def _input_path(path: Any) -> str:
    """A matrix (or module) file argument as text, checked readable first: a
    missing or unreadable file raises :class:`PackageIOError` (an
    ``OSError``) in the tools' words, ``PATH: cannot open: REASON``; a
    package directory is refused with what reads one."""
    text = _path_text(path)
    if os.path.isdir(text):
        if os.path.isfile(os.path.join(text, "manifest.json")):
            raise InvalidArgumentError(
                f"{text}: is a package, not a matrix file (spperm.load reads "
                "a package; spperm-inspect PKG prints what it holds)")
        raise InvalidArgumentError(f"{text}: is a directory, not a matrix "
                                   "file")
    try:
        with open(text, "rb"):
            pass
    except OSError as e:
        raise PackageIOError(f"{text}: cannot open: {e.strerror}") from None
    return text


def _path_text(path: Any) -> str:
    """A path argument (str, bytes or os.PathLike) as text; one with a NUL
    is refused (the file system would read it as a shorter path), and so is
    one that is not UTF-8 (the library takes UTF-8 file names)."""
    text = os.fsdecode(path)
    return _plain_text(text, f"path {text!r}",
                       " (spperm takes UTF-8 file names; rename the file)")


def _plain_text(text: str, shown: str, hint: str = "") -> str:
    """`text` as the library takes it: UTF-8 without NUL; `shown` names it
    in the error."""
    if "\0" in text:
        raise InvalidArgumentError(f"{shown} contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"{shown} is not valid UTF-8{hint}") from None
    return text


def _text_argument(name: str, value: Any) -> str:
    """A text argument (``name=``) as the library takes it."""
    if not isinstance(value, str):
        raise InvalidArgumentError(
            f"{name} must be a str, got {type(value).__name__}")
    return _plain_text(value, f"{name}={value!r}")


#: The most warm-up or timed runs one ``Layer.time`` call takes (as
#: ``spperm-run --warmup/--runs``).
_MAX_RUNS = 100000


def _count(name: str, value: Any, least: int,
           most: int = (1 << 31) - 1) -> int:
    """An integer argument in [least, most] (by default 2^31 - 1, the
    runtime's int32)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got "
                        f"{type(value).__name__}") from None
    if not least <= value <= most:
        shown = "2^31 - 1" if most == (1 << 31) - 1 else str(most)
        raise InvalidArgumentError(
            f"{name} must be in [{least}, {shown}], got {value}")
    return value


def load(path: Union[str, "os.PathLike[str]"], *,
         device: Optional[str] = None) -> Package:
    """Loads the package directory ``path`` (verified completely; a corrupt
    one raises :class:`CorruptPackageError`). ``device`` ('cpu' or 'gpu')
    loads it there at once; otherwise at the first call on each device."""
    return Package(path, device=device)


def _option_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


#: compile()'s own keywords besides the compilation options.
_COMPILE_KEYWORDS = ("name", "values", "data", "report", "output", "device",
                     "verbose", "store_alternatives", "size_budget", "dtype",
                     "values_dtype")

#: spperm-compile's flags that compile() has no keyword for, and why.
_TOOL_ONLY_FLAGS = {
    "timing": "the stage times are the returned package's .stages",
    "q": "compile() prints no progress lines unless verbose=True",
    "quiet": "compile() prints no progress lines unless verbose=True",
    "report_bench": "draw the report's benchmark with spperm-compile "
                    "--report-bench",
    "o": "write output=",
}


def _is_flag_value(value: Any) -> bool:
    """Whether ``value`` sets a flag: a bool, or the integer 0 or 1."""
    return (isinstance(value, (bool, np.bool_))
            or (isinstance(value, (int, np.integer)) and value in (0, 1)))


def _tuning(options: Dict[str, Any]) -> List[tuple]:
    from . import _compiler

    known = {name: flag for name, flag in _compiler.tuning_options()}
    tuning = []
    for key, value in options.items():
        if value is None:
            continue
        name = key.replace("_", "-")
        if name not in known:
            if key in _TOOL_ONLY_FLAGS:
                raise CompileError(
                    f"{key}= is not an option of compile(): "
                    f"{_TOOL_ONLY_FLAGS[key]}")
            keywords = [n.replace("-", "_") for n in known]
            keywords += _COMPILE_KEYWORDS
            raise CompileError(
                f"unknown option {key}= (compile() takes spperm-compile's "
                "compilation options, which spperm-compile --help lists, "
                f"with _ for -){did_you_mean(key, keywords)}")
        if known[name]:
            if not _is_flag_value(value):
                raise CompileError(
                    f"{key}= is a flag: True or False, got {value!r}")
            if not value:
                continue
        elif isinstance(value, (bool, np.bool_)):
            raise CompileError(
                f"{key}= takes a value (--{name}=VALUE), not {value!r}")
        text = _option_value(value)
        tuning.append((name, _plain_text(text, f"{key}={text!r}")))
    return tuning


def _dtype_name(dtype: Any, what: str) -> str:
    """spperm-compile's name ("f32", "f16", "bf16") of an element type given
    as a name, a NumPy dtype or a torch dtype."""
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        dtype = np.dtype(dtype)  # np.float16 and the like
    text = str(dtype).replace("torch.", "")
    names = {"float32": "f32", "f32": "f32", "float": "f32",
             "float16": "f16", "f16": "f16", "half": "f16",
             "bfloat16": "bf16", "bf16": "bf16"}
    if text not in names:
        raise InvalidArgumentError(
            f"{what} must be float32, float16 or bfloat16, got {dtype!r}")
    return names[text]


def compile(a: MatrixLike, k: Optional[int] = None, strategy: str = "auto",
            format: str = "auto", *, name: Optional[str] = None,
            values: Optional[str] = None, data: str = "embed",
            report: Optional[str] = None,
            output: Optional[Union[str, "os.PathLike[str]"]] = None,
            device: Optional[str] = None, verbose: bool = False,
            store_alternatives: bool = False, size_budget: float = 2.0,
            dtype: Any = None, values_dtype: Any = None,
            **options: Any) -> Package:
    """Compiles a fixed sparse matrix into a :class:`Package`.

    ``a`` is a matrix file path (``.mtx``, ``.smtx``, ``.npz``, or a ``.mlir``
    module of spperm ops), a ``scipy.sparse`` matrix (any format), a torch
    sparse COO/CSR or dense tensor, or a dense 2-D array whose zeros are the
    missing entries. The options are spperm-compile's (docs/Compile.md):
    ``k`` the K to specialize for (None: any K, with K-bucket variants),
    ``strategy`` and ``format`` (``"auto"``: the learned selector), and any
    compilation option as a keyword with ``_`` for ``-`` (``precision="tf32"``,
    ``k_buckets=[32, 128]``, ``no_library_check=True``, ...). ``name`` names
    the layer (default: the file's stem, or ``"matrix"``); ``values`` and
    ``data`` are ``--values``/``--data`` (matrix files only); ``report``
    writes the HTML report; ``store_alternatives`` and ``size_budget`` are
    ``--store-alternatives`` and ``--size-budget``; ``dtype`` is B's and
    C's element type (``--dtype``: ``"float32"`` by default, ``"float16"``
    or ``"bfloat16"``; torch and NumPy dtypes and ``"f16"``-style names are
    accepted) and ``values_dtype`` A's (``--values-dtype``: the ``dtype``
    by default, or ``"float32"``). The package is written to ``output`` if given,
    else to a temporary directory owned by the returned package (see
    :meth:`Package.save`). Errors raise :class:`CompileError` (a
    ``ValueError``) with spperm-compile's message, a bad matrix file among
    them; a missing or unreadable file, or an ``output`` whose directory
    does not exist, :class:`PackageIOError` (an ``OSError``); an in-memory
    matrix that cannot be read (a NaN, a complex or non-numeric dtype, ...)
    :class:`InvalidArgumentError` (a ``ValueError``).
    """
    try:
        from . import _compiler
    except ImportError as e:
        raise UnsupportedError(
            "this spperm build has no compiler (the runtime-only build): "
            f"compile packages where LLVM/MLIR is installed ({e})") from None
    if device is not None and device not in DEVICES:
        raise InvalidArgumentError(
            f"device must be 'cpu' or 'gpu', got {device!r}")
    if name is not None:
        name = _text_argument("name", name)
    if values is not None:
        values = _text_argument("values", values)
    for flag, given in (("verbose", verbose),
                        ("store_alternatives", store_alternatives)):
        if not _is_flag_value(given):
            raise CompileError(
                f"{flag}= is a flag: True or False, got {given!r}")
    if (isinstance(size_budget, (bool, np.bool_))
            or not isinstance(size_budget, (int, float, np.integer,
                                            np.floating))):
        raise CompileError(
            f"size_budget= must be a number (0: no budget), got "
            f"{size_budget!r}")
    opts = dict(options)
    opts["k"] = k
    if is_path(a):
        a = _input_path(a)
    if is_path(a) and a.endswith(".mlir"):
        # A module states its own strategy and format per spperm.load.
        if strategy != "auto":
            opts["strategy"] = strategy
        if format != "auto":
            opts["format"] = format
    else:
        opts["strategy"] = strategy
        opts["format"] = format
    tuning = _tuning(opts)
    type_name = None if dtype is None else _dtype_name(dtype, "dtype")
    values_name = "" if values_dtype is None else _dtype_name(
        values_dtype, "values_dtype")
    # Where an output cannot be written at all: the errors Package.save
    # gives (PackageIOError, an OSError, in the tools' words; a directory
    # that is not a package: InvalidArgumentError), before any work.
    report_path = None
    if report:
        report_path = os.path.abspath(_path_text(report))
        _core.check_writable_file(report_path)
    owned = None
    if output is None:
        owned = tempfile.mkdtemp(prefix="spperm-")
        target = os.path.join(owned, "package.spp")
    else:
        target = os.path.abspath(_path_text(output))
        _core.check_writable_directory_of(target)
        _core.check_package_destination(target)
    try:
        if is_path(a):
            stages = _compiler.compile_file(
                a, target, tuning, values, data, name or "",
                report_path or "", bool(verbose),
                bool(store_alternatives), float(size_budget), type_name,
                values_name)
        else:
            if values is not None or data != "embed":
                raise CompileError(
                    "values= and data= apply to matrix files; an in-memory "
                    "matrix carries its values and is embedded")
            m = to_csr(a)
            stages = _compiler.compile_csr(
                m.rows, m.cols, m.indptr, m.indices, m.data,
                "matrix" if name is None else name,
                target, tuning, report_path or "", bool(verbose),
                bool(store_alternatives), float(size_budget), type_name,
                values_name)
    except BaseException:
        if owned is not None:
            shutil.rmtree(owned, ignore_errors=True)
        raise
    package = Package(target, device=device, _owned_dir=owned)
    package.stages = list(stages)
    return package


def inspect(a: MatrixLike, *, values: Optional[str] = None) -> Dict[str, Any]:
    """The static features of a matrix (docs/Features.md) as a dict, the
    same keys and values as ``spperm-inspect MATRIX --json``."""
    if is_path(a):
        rows, cols, indptr, indices, data = _core.read_matrix(
            _input_path(a), values or "file")
        return _core.features(rows, cols, indptr, indices, data)
    if values is not None:
        raise InvalidArgumentError("values= applies to matrix files")
    m = to_csr(a)
    return _core.features(m.rows, m.cols, m.indptr, m.indices, m.data)


def read_matrix(path: Union[str, "os.PathLike[str]"], *,
                values: Optional[str] = None) -> Any:
    """Reads a matrix file as spperm does (checked; duplicates summed) and
    returns it as a ``scipy.sparse.csr_array`` (or, without SciPy, the CSR
    arrays as a named tuple). A missing or unreadable file raises
    :class:`PackageIOError`, a bad one :class:`InvalidArgumentError`."""
    rows, cols, indptr, indices, data = _core.read_matrix(
        _input_path(path), values or "file")
    try:
        import scipy.sparse as sp
    except ImportError:
        from ._matrix import CsrArrays

        return CsrArrays(rows, cols, indptr, indices, data)
    return sp.csr_array((data, indices, indptr), shape=(rows, cols))


def device_properties() -> Dict[str, Any]:
    """The GPU the runtime uses (``SPPERM_CUDA_DEVICE``, default 0): name,
    driver and cuSPARSE versions, compute capability, ... Raises
    :class:`DeviceError` where there is no usable GPU."""
    return _core.device_properties()
