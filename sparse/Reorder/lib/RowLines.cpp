//===- RowLines.cpp - Per-row cache-line sets -------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "RowLines.h"

using namespace spperm;
using namespace spperm::detail;

RowLines detail::buildRowLines(const CsrMatrix &m, int32_t lineWidth) {
  RowLines rl;
  rl.rows = m.rows;
  rl.numLines =
      static_cast<int32_t>((static_cast<int64_t>(m.cols) + lineWidth - 1) /
                           lineWidth);
  rl.ptr.assign(static_cast<size_t>(m.rows) + 1, 0);
  rl.lines.reserve(m.colIdx.size());
  for (int32_t r = 0; r < m.rows; ++r) {
    int32_t last = -1;
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
      int32_t line = m.colIdx[k] / lineWidth;
      if (line != last) {
        rl.lines.push_back(line);
        last = line;
      }
    }
    rl.ptr[r + 1] = static_cast<int64_t>(rl.lines.size());
  }
  return rl;
}

int64_t detail::sharedLines(const RowLines &rl, int32_t a, int32_t b) {
  const int32_t *i = rl.begin(a), *ie = rl.end(a);
  const int32_t *j = rl.begin(b), *je = rl.end(b);
  int64_t shared = 0;
  while (i != ie && j != je) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      ++shared;
      ++i;
      ++j;
    }
  }
  return shared;
}

int64_t detail::hammingDistance(const RowLines &rl, int32_t a, int32_t b) {
  return rl.count(a) + rl.count(b) - 2 * sharedLines(rl, a, b);
}
