"""Several GPUs through ``torch.distributed`` (docs/Distributed.md).

One process per GPU (``torchrun``, or any launcher that initializes
``torch.distributed``), each loading the same package compiled with
``--shards N`` for its N ranks (``spperm.compile(A, shards=N)``)::

    import torch
    import torch.distributed as dist
    import spperm.distributed

    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    pkg = spperm.distributed.load("graph.spp")
    layer = pkg[0]
    c_rows = layer(b)                        # 1-D: B whole on every rank
    lo, hi = layer.b_rows                    # 1.5-D: this rank's rows of B
    c_rows = layer.allgather(b[lo:hi], chunk=32)
    c = layer.gather(c_rows)                 # all of C, on every rank

Each rank holds its shard of every sharded layer (rows ``row_begin`` to
``row_end`` of C) and every layer compiled whole. With the ``gloo`` backend
and CPU tensors the same calls run on the CPU executor.
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Tuple, Union

from ._errors import InvalidArgumentError
from ._package import Layer, Package, _count

__all__ = ["DistributedLayer", "DistributedPackage", "load"]


def _dist() -> Any:
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise InvalidArgumentError(
            "spperm.distributed needs torch.distributed initialized "
            "(torch.distributed.init_process_group) in every rank's process")
    return dist


class DistributedLayer:
    """This rank's part of a layer: its shard of a sharded layer (C's rows
    ``row_begin`` to ``row_end`` of ``rows``), or the whole of a layer
    compiled whole."""

    def __init__(self, layer: Layer, group: Any, rank: int, ranks: int):
        self._layer = layer
        self._group = group
        self.rank = rank
        self.ranks = ranks
        shard = layer.shards[0]
        self.name: str = layer.name
        self.cols: int = layer.cols
        self.rows: int = shard["rows"]
        self.row_begin: int = shard["row_begin"]
        self.row_end: int = shard["row_end"]
        self.sharded: bool = shard["count"] > 1

    def __repr__(self) -> str:
        return (f"<spperm.distributed.DistributedLayer '{self.name}' rank "
                f"{self.rank}/{self.ranks} rows [{self.row_begin}, "
                f"{self.row_end}) of {self.rows}>")

    @property
    def b_rows(self) -> Tuple[int, int]:
        """The rows of B this rank holds for :meth:`allgather`:
        ``[rank * P, min(cols, rank * P + P))``, P = ceil(cols / ranks)."""
        per = -(-self.cols // self.ranks)
        return (min(self.cols, self.rank * per),
                min(self.cols, self.rank * per + per))

    def __call__(self, b: Any, *, out: Any = None) -> Any:
        """1-D: this rank's rows of C = A · B, with B (cols x K) whole on
        this rank."""
        return self._layer(b, out=out)

    def allgather(self, b_local: Any, *, chunk: Optional[int] = None) -> Any:
        """1.5-D: this rank's rows of C = A · B where every rank holds its
        rows of B (:attr:`b_rows`, a torch tensor with K columns). B is
        all-gathered in chunks of ``chunk`` columns (None: all at once), the
        next chunk in flight while this one is multiplied; a rank holds its
        rows of B, the chunk being multiplied and the one in flight (each
        ``ranks · ceil(cols / ranks)`` rows), never all of B."""
        import torch

        dist = _dist()
        lo, hi = self.b_rows
        if not isinstance(b_local, torch.Tensor) or b_local.ndim != 2 or \
                b_local.shape[0] != hi - lo:
            raise InvalidArgumentError(
                f"b_local must be a torch tensor of this rank's {hi - lo} "
                f"rows of B (b_rows {lo}:{hi}) x K")
        if chunk is not None:  # None: all at once
            chunk = _count("chunk", chunk, 1)
        k = int(b_local.shape[1])
        c = b_local.new_empty((self.row_end - self.row_begin, k))
        if k == 0:  # no columns on any rank: nothing to gather
            return c
        width = k if chunk is None or chunk >= k else chunk
        per = -(-self.cols // self.ranks)

        def start(j0: int) -> Tuple[Any, Any]:
            w = min(width, k - j0)
            send = b_local.new_zeros((per, w))
            send[:hi - lo] = b_local[:, j0:j0 + w]
            parts = [b_local.new_empty((per, w)) for _ in range(self.ranks)]
            work = dist.all_gather(parts, send, group=self._group,
                                   async_op=True)
            return work, parts

        pending = start(0)
        for j0 in range(0, k, width):
            work, parts = pending
            work.wait()
            if j0 + width < k:
                pending = start(j0 + width)
            gathered = torch.cat(parts)[:self.cols]
            c[:, j0:j0 + gathered.shape[1]] = self._layer(gathered)
        return c

    def gather(self, c_local: Any) -> Any:
        """The whole C (rows x K) on every rank, from each rank's rows
        (a torch tensor); a layer compiled whole is returned as it is."""
        import torch

        if not self.sharded:
            return c_local
        dist = _dist()
        counts = [None] * self.ranks
        dist.all_gather_object(counts, (self.row_begin, self.row_end),
                               group=self._group)
        longest = max(end - begin for begin, end in counts)
        padded = c_local.new_zeros((longest, c_local.shape[1]))
        padded[:c_local.shape[0]] = c_local
        parts = [torch.empty_like(padded) for _ in range(self.ranks)]
        dist.all_gather(parts, padded, group=self._group)
        return torch.cat([p[:end - begin]
                          for p, (begin, end) in zip(parts, counts)])


class DistributedPackage:
    """A package as one rank holds it (:func:`load`)."""

    def __init__(self, package: Package, group: Any, rank: int, ranks: int):
        self.package = package
        self.rank = rank
        self.ranks = ranks
        self.layers: List[DistributedLayer] = [
            DistributedLayer(layer, group, rank, ranks)
            for layer in package.layers
        ]

    def __len__(self) -> int:
        return len(self.layers)

    def __getitem__(self, key: Union[int, str]) -> DistributedLayer:
        """This rank's part of the layer ``key`` (an index or a name; a name
        the package lacks raises :class:`spperm.LayerNotFoundError`)."""
        return self.layers[self.package[key].index]

    def __repr__(self) -> str:
        return (f"<spperm.distributed.DistributedPackage "
                f"{self.package.path!r} rank {self.rank}/{self.ranks}>")


def load(path: Union[str, "os.PathLike[str]"], *, group: Any = None,
         device: Optional[str] = None) -> DistributedPackage:
    """Loads this rank's part of the package ``path`` (every sharded layer
    must have as many shards as the group has ranks). ``device`` defaults to
    'gpu' under the NCCL backend (the runtime then uses torch's current CUDA
    device, unless SPPERM_CUDA_DEVICE says otherwise; set the device before
    the process's first GPU use of spperm, which fixes it) and 'cpu'
    otherwise."""
    dist = _dist()
    rank = dist.get_rank(group)
    ranks = dist.get_world_size(group)
    if device is None:
        device = "gpu" if dist.get_backend(group) == "nccl" else "cpu"
    if device == "gpu" and not os.environ.get("SPPERM_CUDA_DEVICE"):
        import torch

        os.environ["SPPERM_CUDA_DEVICE"] = str(torch.cuda.current_device())
    package = Package(path, device=device, _shard=(rank, ranks))
    return DistributedPackage(package, group, rank, ranks)
