//===- OriginalCsr.cpp - A format back to the original CSR ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// toOriginalCsr: walks the arrays of a csr, bell or hbp FormattedMatrix with
// the executor's traversal (FormatTraversal.h), collects each entry under its
// original row (order[position]), and sorts every row by column. The
// runtime's GPU backend hands the result to cuSPARSE, which then writes C in
// the original row order directly, so no un-permutation step is needed.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatTraversal.h"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace spperm;

namespace {

/// Calls visit(position, col, value) for every entry of `f`.
template <typename Visit>
void forEachEntry(const FormattedMatrix &f, Visit &&visit) {
  struct Visitor {
    Visit &visit;
    int32_t position = 0;
    void begin(int32_t p) { position = p; }
    void add(int32_t col, float value) { visit(position, col, value); }
    void addZero(int32_t) {}
    void end() {}
  } visitor{visit};
  detail::forEachSegment(f, visitor);
}

} // namespace

CsrMatrix spperm::toOriginalCsr(const FormattedMatrix &f) {
  CsrMatrix out;
  out.rows = f.rows;
  out.cols = f.cols;
  // Count per original row, then fill, then sort each row by column.
  std::vector<int64_t> count(static_cast<size_t>(f.rows) + 1, 0);
  forEachEntry(f, [&](int32_t p, int32_t, float) { ++count[f.order[p] + 1]; });
  std::partial_sum(count.begin(), count.end(), count.begin());
  const int64_t nnz = count[f.rows];
  out.rowPtr.assign(count.begin(), count.end());
  std::vector<std::pair<int32_t, float>> entries(static_cast<size_t>(nnz));
  std::vector<int64_t> next(count.begin(), count.end() - 1);
  forEachEntry(f, [&](int32_t p, int32_t col, float value) {
    entries[next[f.order[p]]++] = {col, value};
  });
  out.colIdx.resize(static_cast<size_t>(nnz));
  out.values.resize(static_cast<size_t>(nnz));
  for (int32_t r = 0; r < f.rows; ++r) {
    auto first = entries.begin() + count[r], last = entries.begin() + count[r + 1];
    std::sort(first, last, [](const auto &x, const auto &y) {
      return x.first < y.first;
    });
    for (int64_t e = count[r]; e < count[r + 1]; ++e) {
      out.colIdx[e] = entries[e].first;
      out.values[e] = entries[e].second;
    }
  }
  return out;
}
