//===- CsrMatrix.h - Compressed sparse row matrix ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The one in-memory sparse matrix of the sparse core: CSR with 32-bit indices
// and fp32 values. Within each row, column indices are strictly increasing
// (duplicates have been summed); explicit zeros stay stored.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_CSRMATRIX_H
#define SPPERM_SPARSE_CSRMATRIX_H

#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <vector>

namespace spperm {

/// Largest dimension or nnz a CsrMatrix can hold: indices are int32.
constexpr int64_t kMaxIndex = INT32_MAX; // 2^31 - 1

/// A sparse matrix in CSR form with int32 indices and float values.
struct CsrMatrix {
  int32_t rows = 0;
  int32_t cols = 0;
  /// rows + 1 offsets into colIdx/values; rowPtr[0] == 0, rowPtr[rows] == nnz.
  std::vector<int32_t> rowPtr{0};
  /// Column of each stored entry, strictly increasing within a row.
  std::vector<int32_t> colIdx;
  /// Value of each stored entry.
  std::vector<float> values;

  int64_t nnz() const { return static_cast<int64_t>(colIdx.size()); }
  int32_t rowLength(int32_t row) const { return rowPtr[row + 1] - rowPtr[row]; }

  /// Checks every structural invariant; the message names the first one broken.
  Status verify() const;
};

/// Coordinate triplets as read from a file, before duplicates are summed.
struct CooTriplets {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int32_t> row;
  std::vector<int32_t> col;
  std::vector<double> value;
};

/// Builds a CSR matrix from triplets in O(nnz + rows + cols): entries are
/// sorted by (row, column) and duplicates are summed in float64 in input
/// order, then rounded to float (SciPy's `tocsr` convention). Indices must
/// already be in range and dimensions at most kMaxIndex.
CsrMatrix buildCsr(const CooTriplets &coo);

/// Returns the rows of `m` in the order `order` (position -> original row).
CsrMatrix permuteRows(const CsrMatrix &m, const std::vector<int32_t> &order);

/// What keeps `v` from being a stored (float32) value, in the words every
/// matrix reader uses — "is not a finite number" (NaN, infinity) or "is out
/// of the float32 range" (|v| from 2^128 - 2^103 up, which rounds to
/// infinity) — or nullptr where it can be one.
const char *float32ValueProblem(double v);

} // namespace spperm

#endif // SPPERM_SPARSE_CSRMATRIX_H
