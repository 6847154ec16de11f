//===- Stats.cpp - Basic statistics of a sparse matrix ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Stats.h"

#include <algorithm>
#include <cmath>

using namespace spperm;

BasicStats spperm::computeBasicStats(const CsrMatrix &m) {
  BasicStats s;
  s.rows = m.rows;
  s.cols = m.cols;
  s.nnz = m.nnz();
  if (s.rows > 0 && s.cols > 0)
    s.density = static_cast<double>(s.nnz) /
                (static_cast<double>(s.rows) * static_cast<double>(s.cols));
  if (m.rows == 0)
    return s;

  s.rowNnzMin = INT64_MAX;
  // Row lengths are integers, so the sums are exact in int64 / long double;
  // the variance comes from E[x^2] - E[x]^2 on exact sums.
  int64_t sum = 0;
  long double sumSquares = 0;
  for (int32_t r = 0; r < m.rows; ++r) {
    int64_t len = m.rowLength(r);
    sum += len;
    sumSquares += static_cast<long double>(len) * len;
    s.rowNnzMin = std::min(s.rowNnzMin, len);
    s.rowNnzMax = std::max(s.rowNnzMax, len);
    s.emptyRows += len == 0;
  }
  long double n = m.rows;
  long double mean = sum / n;
  long double var = sumSquares / n - mean * mean;
  s.rowNnzMean = static_cast<double>(mean);
  s.rowNnzStd = static_cast<double>(std::sqrt(std::max<long double>(var, 0)));
  return s;
}
