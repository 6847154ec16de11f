//===- Strategies.h - Row-permutation strategies (internal) -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The strategy implementations behind computePermutation(), one family per
// file: LoadBalance.cpp (identity, plain, flipped, lpt, hybrid-1),
// WarpAware.cpp (warp-aware, hybrid-2.3), CtaAware.cpp (cta-aware,
// hybrid-2.1, hybrid-2.2; both over CacheAware.h) and Bsa.cpp. Each returns
// order[i] = original row at position i and is deterministic; ties are
// broken by the smaller original row index unless a strategy says
// otherwise. Options have been validated.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_STRATEGIES_H
#define SPPERM_LIB_SPARSE_STRATEGIES_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Permutation.h"

#include <cstdint>
#include <vector>

namespace spperm {
namespace detail {

/// Rows sorted by decreasing nnz (stable: equal rows keep their order).
std::vector<int32_t> plainOrder(const CsrMatrix &m);

/// plainOrder, with every second group of N_w positions reversed so that the
/// heaviest row of a group lands on warp 0, then on warp N_w - 1, ...
std::vector<int32_t> flippedOrder(const CsrMatrix &m,
                                  const PermutationOptions &options);

/// LPT: rows by decreasing warp load are cut into CTA windows, and inside a
/// window each row goes to the warp with the least load so far that still
/// has a free position (position i is warp i mod N_w). With
/// `localityTieBreak` (hybrid-1), equal-load rows are ordered so consecutive
/// ones share cache lines and equal-load warps are chosen by the smallest
/// Hamming distance to the warp's previous row. Never worse than the input
/// order under PermutationQuality::ctaMaxWarpLoadSum.
std::vector<int32_t> lptOrder(const CsrMatrix &m,
                              const PermutationOptions &options,
                              bool localityTieBreak);

/// Secondary criterion of the warp-aware family.
enum class WarpAwareTieBreak {
  None,
  /// hybrid-2.3: the warp load closest to the first row of the current
  /// group of N_w positions.
  WarpLoad,
};

/// Warp-aware: position p takes the unused row with the smallest Hamming
/// distance to the row at position max(0, p - N_w); position 0 takes the row
/// of least warp load.
std::vector<int32_t> warpAwareOrder(const CsrMatrix &m,
                                    const PermutationOptions &options,
                                    WarpAwareTieBreak tieBreak);

/// Secondary criterion of the CTA-aware family.
enum class CtaAwareTieBreak {
  None,
  /// hybrid-2.1: the warp load closest to the cluster's seed row.
  WarpLoad,
  /// hybrid-2.2: the smallest Hamming distance to the row N_w positions
  /// earlier (the same warp in the previous cluster).
  IntraWarpDistance,
};

/// CTA-aware: clusters of N_w rows with mutually similar cache lines; each
/// cluster starts from the first unused row and repeatedly adds the unused
/// row that brings the fewest new lines to the cluster.
std::vector<int32_t> ctaAwareOrder(const CsrMatrix &m,
                                   const PermutationOptions &options,
                                   CtaAwareTieBreak tieBreak);

/// BSA: empty rows first, then clusters of rows (in ascending dispersion
/// tau * nnzb + zf) whose normalized weighted Jaccard similarity to the
/// growing cluster representative is >= alpha. Fills clusterSizes.
Permutation bsaOrder(const CsrMatrix &m, const PermutationOptions &options);

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_STRATEGIES_H
