//===- Stats.h - Basic statistics of a sparse matrix ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The basic statistics of the DESIGN contract, computed in one pass over the
// row pointers. The static features the selector uses build on these.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_STATS_H
#define SPPERM_SPARSE_STATS_H

#include "spperm/Sparse/CsrMatrix.h"

#include <cstdint>

namespace spperm {

/// Shape and row-length statistics of a matrix.
struct BasicStats {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  /// nnz / (rows * cols); 0 for an empty shape.
  double density = 0.0;
  /// Rows without a stored entry.
  int64_t emptyRows = 0;
  /// Row length statistics over all rows; the standard deviation is the
  /// population one (divided by rows). All zero when rows == 0.
  double rowNnzMean = 0.0;
  double rowNnzStd = 0.0;
  int64_t rowNnzMin = 0;
  int64_t rowNnzMax = 0;
};

/// Computes BasicStats in one pass over `m.rowPtr`.
BasicStats computeBasicStats(const CsrMatrix &m);

} // namespace spperm

#endif // SPPERM_SPARSE_STATS_H
