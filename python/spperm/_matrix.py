"""Sparse matrices as spperm reads them: whatever the user holds, as CSR
arrays (docs/Python.md, "Matrices").

Accepted: a path to a matrix file (``.mtx``, ``.smtx``, ``.npz``, text
formats optionally ``.gz``), any ``scipy.sparse`` matrix or array, a torch
tensor (sparse COO, sparse CSR, or dense), or a dense 2-D array (NumPy or
anything with ``__array__``) whose zeros are the missing entries.
Duplicate entries are summed and indices sorted, as SciPy's ``tocsr`` does;
explicitly stored zeros are kept (they are entries of the pattern).
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Union

import numpy as np

from ._errors import InvalidArgumentError

#: What ``spperm.compile`` and ``spperm.inspect`` accept as a matrix.
MatrixLike = Union[str, "os.PathLike[str]", Any]


class CsrArrays(NamedTuple):
    """A matrix as CSR arrays (row offsets, column indices, values)."""

    rows: int
    cols: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray


def is_path(a: Any) -> bool:
    """Whether ``a`` names a file rather than holding a matrix."""
    return isinstance(a, (str, bytes, os.PathLike))


def _values(data: Any, what: str) -> np.ndarray:
    data = np.asarray(data)
    if np.iscomplexobj(data):
        raise InvalidArgumentError(f"{what}: complex values are not supported")
    if data.dtype.kind in "USMm":  # text, bytes, dates and durations
        raise InvalidArgumentError(
            f"{what}: values of dtype {data.dtype} are not numbers (convert "
            "with .astype(numpy.float32))")
    if data.dtype not in (np.float32, np.float64):
        # Integers, float16 and extension types NumPy can make floats
        # (ml_dtypes' bfloat16, ...) go through float64, rounded once
        # to float32 later as float64 values are.
        try:
            data = data.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(
                f"{what}: values of dtype {data.dtype} cannot be read as "
                f"numbers ({e})") from None
    return np.ascontiguousarray(data)


def _from_coo(shape: tuple, row: np.ndarray, col: np.ndarray, val: np.ndarray,
              what: str) -> CsrArrays:
    """CSR from coordinates: sorted by (row, column), duplicates summed."""
    rows, cols = int(shape[0]), int(shape[1])
    row = np.asarray(row, dtype=np.int64).ravel()
    col = np.asarray(col, dtype=np.int64).ravel()
    val = _values(val, what).ravel()
    if row.size and (row.min() < 0 or row.max() >= rows or col.min() < 0
                     or col.max() >= cols):
        raise InvalidArgumentError(
            f"{what}: an index is outside the {rows} x {cols} shape")
    order = np.lexsort((col, row))
    row, col, val = row[order], col[order], val[order]
    if row.size:
        first = np.ones(row.size, dtype=bool)
        first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
        starts = np.flatnonzero(first)
        # Summed in float64, then rounded once (SciPy's convention).
        val = np.add.reduceat(val.astype(np.float64), starts)
        row, col = row[starts], col[starts]
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=rows), out=indptr[1:])
    return CsrArrays(rows, cols, indptr, np.ascontiguousarray(col), val)


def _from_scipy(a: Any) -> CsrArrays:
    m = a.tocsr(copy=True)
    m.sum_duplicates()  # also sorts the indices
    return CsrArrays(int(m.shape[0]), int(m.shape[1]),
                     np.ascontiguousarray(m.indptr),
                     np.ascontiguousarray(m.indices),
                     _values(m.data, "matrix"))


def _from_torch(t: Any) -> CsrArrays:
    import torch

    if t.dim() != 2:
        raise InvalidArgumentError(
            f"matrix: a torch tensor of {t.dim()} dimensions; expected 2")
    if t.device.type == "meta":
        raise InvalidArgumentError(
            "matrix: a torch tensor on the meta device has no values")
    t = t.detach().cpu()
    if t.is_neg():  # a lazily negated view: its memory holds -t
        t = t.resolve_neg()
    if t.is_complex():
        raise InvalidArgumentError("matrix: complex values are not supported")
    if t.dtype not in (torch.float32, torch.float64):
        t = t.to(torch.float64)  # bf16, fp16, integers: exact in float64
    if t.layout == torch.sparse_coo:
        t = t.coalesce()
        idx = t.indices().numpy()
        return _from_coo(t.shape, idx[0], idx[1], t.values().numpy(),
                         "matrix")
    if t.layout == torch.sparse_csr:
        crow = t.crow_indices().numpy().astype(np.int64)
        row = np.repeat(np.arange(t.shape[0], dtype=np.int64), np.diff(crow))
        return _from_coo(t.shape, row, t.col_indices().numpy(),
                         t.values().numpy(), "matrix")
    if t.layout != torch.strided:
        raise InvalidArgumentError(
            f"matrix: torch layout {t.layout} is not supported (use COO, CSR "
            "or a dense tensor)")
    return _from_dense(t.numpy())


def _from_dense(d: np.ndarray) -> CsrArrays:
    if d.ndim != 2:
        raise InvalidArgumentError(
            f"matrix: a dense array of {d.ndim} dimensions; expected 2")
    row, col = np.nonzero(d)
    return _from_coo(d.shape, row, col, d[row, col], "matrix")


def to_csr(a: Any) -> CsrArrays:
    """The CSR arrays of any accepted in-memory matrix."""
    mod = type(a).__module__.split(".")[0]
    if mod == "scipy" and hasattr(a, "tocsr"):
        return _from_scipy(a)
    if mod == "torch":
        return _from_torch(a)
    if isinstance(a, CsrArrays):
        return a
    try:
        dense = np.asarray(a)
    except Exception as e:  # an object NumPy cannot read
        raise InvalidArgumentError(
            f"matrix: cannot read a {type(a).__name__} as a matrix ({e}); "
            "pass a scipy.sparse matrix, a torch tensor, a 2-D array or a "
            "matrix file path") from None
    if dense.dtype == object:
        raise InvalidArgumentError(
            f"matrix: cannot read a {type(a).__name__} as a matrix; pass a "
            "scipy.sparse matrix, a torch tensor, a 2-D array or a matrix "
            "file path")
    return _from_dense(dense)
