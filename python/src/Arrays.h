//===- Arrays.h - Matrices and dense operands from arrays -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The bindings' conversions between array objects (DLPack / the buffer
// protocol, through nanobind::ndarray) and the core's types: a CSR matrix
// from its three arrays, checked like a matrix file (docs/MatrixFiles.md),
// and the checks on a dense operand of C = A * B.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_PYTHON_ARRAYS_H
#define SPPERM_PYTHON_ARRAYS_H

#include "Errors.h"

#include "spperm/Sparse/CsrMatrix.h"

#include <nanobind/ndarray.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace spperm::python {

/// A read-only array on the host, of any dtype and shape.
using HostArray = nanobind::ndarray<nanobind::ro, nanobind::device::cpu>;

/// Element `i` of the 1-D integer array `a` (int32 or int64).
inline int64_t indexAt(const HostArray &a, size_t i) {
  const auto *base = static_cast<const char *>(a.data());
  const int64_t offset = a.stride(0) * static_cast<int64_t>(i);
  if (a.dtype() == nanobind::dtype<int32_t>())
    return reinterpret_cast<const int32_t *>(base)[offset];
  return reinterpret_cast<const int64_t *>(base)[offset];
}

/// Element `i` of the 1-D float array `a` (float32 or float64).
inline double valueAt(const HostArray &a, size_t i) {
  const auto *base = static_cast<const char *>(a.data());
  const int64_t offset = a.stride(0) * static_cast<int64_t>(i);
  if (a.dtype() == nanobind::dtype<float>())
    return reinterpret_cast<const float *>(base)[offset];
  return reinterpret_cast<const double *>(base)[offset];
}

/// The CSR matrix of `rows` x `cols` with row offsets `indptr`, column
/// indices `indices` (strictly increasing within each row) and `data`;
/// an invalid one is refused (InvalidArgument) with a message starting with
/// `what`. Values must be finite and within float32's range, as in matrix
/// files.
inline CsrMatrix csrFromArrays(int64_t rows, int64_t cols,
                               const HostArray &indptr,
                               const HostArray &indices, const HostArray &data,
                               const std::string &what) {
  constexpr int kInvalid = 1; // SPRT_ERROR_INVALID_ARGUMENT
  auto fail = [&](const std::string &message) {
    return Error(kInvalid, what + ": " + message);
  };
  if (rows < 0 || cols < 0 || rows > kMaxIndex || cols > kMaxIndex)
    throw fail("the shape " + std::to_string(rows) + " x " +
               std::to_string(cols) + " is out of range (at most " +
               std::to_string(kMaxIndex) + " each)");
  auto isIndex = [](const HostArray &a) {
    return a.ndim() == 1 && (a.dtype() == nanobind::dtype<int32_t>() ||
                             a.dtype() == nanobind::dtype<int64_t>());
  };
  if (!isIndex(indptr) || !isIndex(indices))
    throw fail("indptr and indices must be 1-D int32 or int64 arrays");
  if (data.ndim() != 1 || (data.dtype() != nanobind::dtype<float>() &&
                           data.dtype() != nanobind::dtype<double>()))
    throw fail("data must be a 1-D float32 or float64 array");
  if (indptr.shape(0) != static_cast<size_t>(rows) + 1)
    throw fail("indptr has " + std::to_string(indptr.shape(0)) +
               " entries, expected rows + 1 = " + std::to_string(rows + 1));
  const size_t nnz = indices.shape(0);
  if (data.shape(0) != nnz)
    throw fail("indices has " + std::to_string(nnz) + " entries but data " +
               std::to_string(data.shape(0)));
  if (nnz > static_cast<size_t>(kMaxIndex))
    throw fail("more than " + std::to_string(kMaxIndex) + " stored entries");
  CsrMatrix m;
  m.rows = static_cast<int32_t>(rows);
  m.cols = static_cast<int32_t>(cols);
  m.rowPtr.assign(rows + 1, 0);
  m.colIdx.resize(nnz);
  m.values.resize(nnz);
  if (indexAt(indptr, 0) != 0)
    throw fail("indptr[0] must be 0");
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t begin = indexAt(indptr, r), end = indexAt(indptr, r + 1);
    if (end < begin || end > static_cast<int64_t>(nnz))
      throw fail("indptr must be non-decreasing and at most nnz (row " +
                 std::to_string(r) + ")");
    m.rowPtr[r + 1] = static_cast<int32_t>(end);
    for (int64_t i = begin; i < end; ++i) {
      const int64_t col = indexAt(indices, i);
      if (col < 0 || col >= cols)
        throw fail("column index " + std::to_string(col) + " of row " +
                   std::to_string(r) + " is out of range [0, " +
                   std::to_string(cols) + ")");
      if (i > begin && col <= m.colIdx[i - 1])
        throw fail("the column indices of row " + std::to_string(r) +
                   " are not strictly increasing (duplicates must be "
                   "summed and indices sorted first)");
      m.colIdx[i] = static_cast<int32_t>(col);
      const double v = valueAt(data, i);
      if (const char *problem = float32ValueProblem(v))
        throw fail("the value of entry (" + std::to_string(r) + ", " +
                   std::to_string(col) + ") " + problem);
      m.values[i] = static_cast<float>(v);
    }
  }
  if (m.rowPtr[rows] != static_cast<int32_t>(nnz))
    throw fail("indptr[rows] must equal the number of entries (" +
               std::to_string(nnz) + ")");
  if (Status valid = m.verify(); !valid)
    throw fail(valid.message());
  return m;
}

} // namespace spperm::python

#endif // SPPERM_PYTHON_ARRAYS_H
