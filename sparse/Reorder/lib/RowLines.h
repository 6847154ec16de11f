//===- RowLines.h - Per-row cache-line sets (internal) ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The cache-line "bitmask" of the seeds, stored sparsely: for each row, the
// sorted distinct lines (column / lineWidth) it touches. A dense bitset of
// ceil(N / 32) bits per row does not fit for wide matrices with many rows.
// Shared by the features and the permutation strategies.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_ROWLINES_H
#define SPPERM_LIB_SPARSE_ROWLINES_H

#include "spperm/Sparse/CsrMatrix.h"

#include <cstdint>
#include <vector>

namespace spperm {
namespace detail {

/// Warp load of a row: the warp iterations a 32-lane warp needs for it.
inline int32_t warpLoad(int32_t nnz) { return (nnz + 31) / 32; }

/// The distinct cache lines of every row, in CSR form.
struct RowLines {
  int32_t rows = 0;
  /// Number of lines of the matrix: ceil(cols / lineWidth).
  int32_t numLines = 0;
  std::vector<int64_t> ptr{0};
  std::vector<int32_t> lines;

  int32_t count(int32_t row) const {
    return static_cast<int32_t>(ptr[row + 1] - ptr[row]);
  }
  const int32_t *begin(int32_t row) const { return lines.data() + ptr[row]; }
  const int32_t *end(int32_t row) const { return lines.data() + ptr[row + 1]; }
};

/// Builds the line sets in one pass (column indices are sorted per row, so
/// each row's lines come out sorted and deduplicated without sorting).
RowLines buildRowLines(const CsrMatrix &m, int32_t lineWidth);

/// |lines(a) XOR lines(b)| by merging the sorted lists.
int64_t hammingDistance(const RowLines &rl, int32_t a, int32_t b);

/// |lines(a) AND lines(b)|.
int64_t sharedLines(const RowLines &rl, int32_t a, int32_t b);

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_ROWLINES_H
