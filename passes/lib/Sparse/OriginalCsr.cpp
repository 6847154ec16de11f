//===- OriginalCsr.cpp - A format back to the original CSR ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// toOriginalCsr: walks the arrays of a csr, bell or hbp FormattedMatrix the way
// the sparse core's executor does (spmmCpu), collects each entry under its
// original row (order[position]), and sorts every row by column. The
// runtime's GPU backend hands the result to cuSPARSE, which then writes C in
// the original row order directly, so no un-permutation step is needed.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace spperm;

namespace {

/// Calls visit(position, col, value) for every entry of `f`, rows in
/// permuted positions.
template <typename Visit>
void forEachEntry(const FormattedMatrix &f, Visit &&visit) {
  switch (f.kind) {
  case FormatKind::Csr: {
    const CsrMatrix &m = f.csr;
    for (int32_t p = 0; p < f.rows; ++p)
      for (int32_t e = m.rowPtr[p]; e < m.rowPtr[p + 1]; ++e)
        visit(p, m.colIdx[e], m.values[e]);
    return;
  }
  case FormatKind::Bell: {
    const BellStorage &bl = f.bell;
    const int64_t tau = bl.block, width = bl.width, area = tau * tau;
    for (int32_t p = 0; p < f.rows; ++p) {
      const int64_t br = p / tau, i = p % tau;
      for (int64_t w = 0; w < width; ++w) {
        const int64_t bc = bl.blockCol[br * width + w];
        if (bc < 0)
          break;
        const float *v =
            bl.blockValues.data() + (br * width + w) * area + i * tau;
        const int64_t jEnd = std::min<int64_t>(tau, f.cols - bc * tau);
        for (int64_t j = 0; j < jEnd; ++j)
          if (v[j] != 0.0f)
            visit(p, static_cast<int32_t>(bc * tau + j), v[j]);
      }
      const CsrMatrix &res = bl.residual;
      for (int32_t e = res.rowPtr[p]; e < res.rowPtr[p + 1]; ++e)
        visit(p, res.colIdx[e], res.values[e]);
    }
    return;
  }
  case FormatKind::Hbp: {
    // The executor's traversal: per stored block and slot, the lane's chain
    // of entries; the slot computes local row outputHash of its block row.
    constexpr int64_t kWarp = 32;
    const HbpStorage &h = f.hbp;
    const int64_t R = h.rowBlock, G = R / kWarp;
    const int64_t S = static_cast<int64_t>(h.blocks.size());
    for (int64_t s = 0; s < S; ++s) {
      const int64_t br = h.blocks[s] / h.blockCols;
      for (int64_t g = 0; g < G; ++g)
        for (int64_t t = 0; t < kWarp; ++t) {
          const int64_t slot = s * R + g * kWarp + t;
          const int32_t zr = h.zeroRow[slot];
          if (zr < 0)
            continue;
          const auto p = static_cast<int32_t>(br * R + h.outputHash[slot]);
          int64_t j = h.beginNnz[s * G + g] + t - zr;
          while (true) {
            visit(p, h.col[j], h.data[j]);
            if (h.addSign[j] < 0)
              break;
            j += h.addSign[j];
          }
        }
    }
    return;
  }
  }
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
