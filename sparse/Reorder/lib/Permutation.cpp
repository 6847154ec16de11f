//===- Permutation.cpp - Row-permutation strategies -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Permutation.h"
#include "spperm/Sparse/Escape.h"

#include "RowLines.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <string>

using namespace spperm;
using namespace spperm::detail;

Status spperm::validatePermutationOptions(const PermutationOptions &o) {
  if (o.warps < 1 || o.warps > 1024)
    return Status::error("warps must be in [1, 1024], got " +
                         std::to_string(o.warps));
  if (o.lineWidth < 1 || o.lineWidth > 1024 ||
      (o.lineWidth & (o.lineWidth - 1)) != 0)
    return Status::error("line width must be a power of two in [1, 1024], "
                         "got " +
                         std::to_string(o.lineWidth));
  if (o.rowsPerWarp < 1 || o.rowsPerWarp > 1024)
    return Status::error("rows per warp must be in [1, 1024], got " +
                         std::to_string(o.rowsPerWarp));
  if (o.tau < 1 || o.tau > 1024)
    return Status::error("tau must be in [1, 1024], got " +
                         std::to_string(o.tau));
  if (!(o.alpha > 0.0 && o.alpha <= 1.0))
    return Status::error("alpha must be in (0, 1], got " +
                         exactNumber(o.alpha));
  if (o.candidateLimit < 0)
    return Status::error("candidate limit must be >= 0 (0 = exact), got " +
                         std::to_string(o.candidateLimit));
  return Status::ok();
}

bool spperm::isPermutation(const std::vector<int32_t> &order, int32_t rows) {
  if (static_cast<int64_t>(order.size()) != rows)
    return false;
  std::vector<bool> seen(order.size(), false);
  for (int32_t r : order) {
    if (r < 0 || r >= rows || seen[r])
      return false;
    seen[r] = true;
  }
  return true;
}

StatusOr<Permutation>
spperm::computePermutation(const CsrMatrix &m,
                           const PermutationOptions &options) {
  if (Status s = validatePermutationOptions(options); !s)
    return s;
  Permutation p;
  switch (options.strategy) {
  case Strategy::Identity:
    p.order.resize(m.rows);
    std::iota(p.order.begin(), p.order.end(), 0);
    break;
  case Strategy::Plain:
    p.order = plainOrder(m);
    break;
  case Strategy::Flipped:
    p.order = flippedOrder(m, options);
    break;
  case Strategy::Lpt:
    p.order = lptOrder(m, options, /*localityTieBreak=*/false);
    break;
  case Strategy::Hybrid1:
    p.order = lptOrder(m, options, /*localityTieBreak=*/true);
    break;
  case Strategy::WarpAware:
    p.order = warpAwareOrder(m, options, WarpAwareTieBreak::None);
    break;
  case Strategy::Hybrid23:
    p.order = warpAwareOrder(m, options, WarpAwareTieBreak::WarpLoad);
    break;
  case Strategy::CtaAware:
    p.order = ctaAwareOrder(m, options, CtaAwareTieBreak::None);
    break;
  case Strategy::Hybrid21:
    p.order = ctaAwareOrder(m, options, CtaAwareTieBreak::WarpLoad);
    break;
  case Strategy::Hybrid22:
    p.order = ctaAwareOrder(m, options, CtaAwareTieBreak::IntraWarpDistance);
    break;
  case Strategy::Bsa:
    p = bsaOrder(m, options);
    break;
  }
  assert(isPermutation(p.order, m.rows) && "strategy returned a non-permutation");
  return p;
}

PermutationQuality
spperm::evaluatePermutation(const CsrMatrix &m,
                            const std::vector<int32_t> &order,
                            const PermutationOptions &options) {
  assert(isPermutation(order, m.rows) && "not a permutation of the rows");
  PermutationQuality q;
  const int64_t rows = m.rows;
  const int32_t warps = options.warps;
  const int64_t window = static_cast<int64_t>(warps) * options.rowsPerWarp;

  // Straggler time of every CTA window.
  std::vector<int64_t> warpTime(warps);
  for (int64_t start = 0; start < rows; start += window) {
    std::fill(warpTime.begin(), warpTime.end(), 0);
    int64_t end = std::min(rows, start + window);
    for (int64_t p = start; p < end; ++p)
      warpTime[(p - start) % warps] += warpLoad(m.rowLength(order[p]));
    q.ctaMaxWarpLoadSum += *std::max_element(warpTime.begin(), warpTime.end());
  }

  RowLines rl = buildRowLines(m, options.lineWidth);
  auto meanDistance = [&](int64_t gap) {
    if (rows <= gap)
      return 0.0;
    long double sum = 0;
    for (int64_t p = 0; p + gap < rows; ++p)
      sum += hammingDistance(rl, order[p], order[p + gap]);
    return static_cast<double>(sum / (rows - gap));
  };
  q.hammingAdjacentMean = meanDistance(1);
  q.hammingWarpMean = meanDistance(warps);

  // Distinct lines per window, with a stamp per line instead of clearing.
  std::vector<int64_t> stamp(static_cast<size_t>(rl.numLines), -1);
  for (int64_t start = 0; start < rows; start += window) {
    int64_t end = std::min(rows, start + window);
    for (int64_t p = start; p < end; ++p)
      for (const int32_t *l = rl.begin(order[p]); l != rl.end(order[p]); ++l)
        if (stamp[*l] != start) {
          stamp[*l] = start;
          ++q.windowLineFetches;
        }
  }

  // Dense tiles: per block row of tau positions, count entries per block
  // column (touched columns are remembered to reset the counters).
  const int64_t tau = options.tau;
  if (m.nnz() > 0) {
    std::vector<int32_t> count(static_cast<size_t>((m.cols + tau - 1) / tau), 0);
    std::vector<int32_t> touched;
    int64_t dense = 0;
    const double threshold = kDenseTileFill * static_cast<double>(tau * tau);
    for (int64_t start = 0; start < rows; start += tau) {
      int64_t end = std::min(rows, start + tau);
      for (int64_t p = start; p < end; ++p) {
        int32_t r = order[p];
        for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
          int32_t bc = static_cast<int32_t>(m.colIdx[k] / tau);
          if (count[bc]++ == 0)
            touched.push_back(bc);
        }
      }
      for (int32_t bc : touched) {
        if (count[bc] >= threshold)
          dense += count[bc];
        count[bc] = 0;
      }
      touched.clear();
    }
    q.denseTileNnzShare = static_cast<double>(dense) / m.nnz();
  }
  return q;
}
