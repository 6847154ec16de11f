//===- FormatTraversal.h - Walking the entries of a format ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The one place that knows how to walk the arrays of a csr, bell or hbp
// FormattedMatrix, shared by the CPU executor (spmmCpu) and toOriginalCsr.
// Entries come in *segments*: a run of entries of one stored row (a
// position of the permuted matrix). csr and bell give one segment per
// position (bell: its dense blocks in order, zero values skipped, then the
// residual); hbp gives one segment per (stored block, slot) chain, in the
// order the GPU kernel computes them, so a position may have several.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_FORMATTRAVERSAL_H
#define SPPERM_LIB_SPARSE_FORMATTRAVERSAL_H

#include "spperm/Sparse/Formats.h"

#include <algorithm>
#include <cstdint>

namespace spperm {
namespace detail {

/// Calls visitor.begin(position), then visitor.add(col, value) for each
/// entry of the segment, then visitor.end(), for every segment of `f`. A
/// bell tile's positions that hold 0 (no entry there, or an entry of
/// value 0) inside the matrix are visitor.addZero(col): the tile kernels
/// multiply them too (docs/Formats.md, "Non-finite B"). The format must
/// have passed verifyFormat.
template <typename Visitor>
void forEachSegment(const FormattedMatrix &f, Visitor &visitor) {
  switch (f.kind) {
  case FormatKind::Csr: {
    const CsrMatrix &m = f.csr;
    for (int32_t p = 0; p < f.rows; ++p) {
      visitor.begin(p);
      for (int32_t e = m.rowPtr[p]; e < m.rowPtr[p + 1]; ++e)
        visitor.add(m.colIdx[e], m.values[e]);
      visitor.end();
    }
    return;
  }
  case FormatKind::Bell: {
    const BellStorage &bl = f.bell;
    const int64_t tau = bl.block, width = bl.width, area = tau * tau;
    const CsrMatrix &res = bl.residual;
    for (int32_t p = 0; p < f.rows; ++p) {
      visitor.begin(p);
      const int64_t br = p / tau, i = p % tau;
      for (int64_t w = 0; w < width; ++w) {
        const int64_t bc = bl.blockCol[br * width + w];
        if (bc < 0)
          break;
        const float *v =
            bl.blockValues.data() + (br * width + w) * area + i * tau;
        if (bl.condensed) {
          const int32_t *cols = bl.tileCol.data() + (br * width + w) * tau;
          for (int64_t j = 0; j < tau && cols[j] >= 0; ++j)
            if (v[j] != 0.0f)
              visitor.add(cols[j], v[j]);
            else
              visitor.addZero(cols[j]);
          continue;
        }
        const int64_t jEnd = std::min<int64_t>(tau, f.cols - bc * tau);
        for (int64_t j = 0; j < jEnd; ++j)
          if (v[j] != 0.0f)
            visitor.add(static_cast<int32_t>(bc * tau + j), v[j]);
          else
            visitor.addZero(static_cast<int32_t>(bc * tau + j));
      }
      for (int32_t e = res.rowPtr[p]; e < res.rowPtr[p + 1]; ++e)
        visitor.add(res.colIdx[e], res.values[e]);
      visitor.end();
    }
    return;
  }
  case FormatKind::Hbp: {
    // Per stored block (increasing block column within a block row) and
    // slot: the lane's chain of entries; the slot computes local row
    // outputHash of its block row.
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
          visitor.begin(static_cast<int32_t>(br * R + h.outputHash[slot]));
          int64_t j = h.beginNnz[s * G + g] + t - zr;
          while (true) {
            visitor.add(h.col[j], h.data[j]);
            if (h.addSign[j] < 0)
              break;
            j += h.addSign[j];
          }
          visitor.end();
        }
    }
    return;
  }
  }
}

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_FORMATTRAVERSAL_H
