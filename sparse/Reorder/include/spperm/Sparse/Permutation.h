//===- Permutation.h - Row-permutation strategies ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The row permutations of Mehrabi et al. (load-balancing, cache-aware and
// hybrid sorts) and BSA's weighted-Jaccard clustering. A permutation is the
// list `order` with order[i] = the original row stored at position i.
//
// The kernel model the strategies optimize (docs/Permutations.md):
//  * a warp of 32 lanes processes one row; its warp load is ceil(nnz / 32);
//  * a CTA has N_w warps and processes a window of N_w * rowsPerWarp
//    consecutive positions; position i goes to warp i mod N_w, so a warp's
//    time in a window is the sum of its rows' warp loads and the CTA's time
//    is the largest warp time (the straggler);
//  * the cache lines of B a row touches are its column indices divided by
//    the line width (32 floats = 128 bytes); rows N_w positions apart run on
//    the same warp one after the other, rows in one window run together.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_PERMUTATION_H
#define SPPERM_SPARSE_PERMUTATION_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Status.h"
#include "spperm/Sparse/Strategy.h"

#include <cstdint>
#include <vector>

namespace spperm {

/// Parameters of the strategies; defaults are the seeds'.
struct PermutationOptions {
  Strategy strategy = Strategy::Identity;
  /// N_w: warps per CTA.
  int32_t warps = 32;
  /// Columns per cache line of B (the bitmask granularity).
  int32_t lineWidth = 32;
  /// Rows each warp processes in one CTA window (window = warps * this).
  int32_t rowsPerWarp = 4;
  /// BSA: column-block width tau.
  int32_t tau = 32;
  /// BSA: similarity threshold alpha; rows join a cluster when their
  /// normalized weighted Jaccard similarity to its representative is >= alpha.
  double alpha = 0.3;
  /// Candidate pruning of the greedy similarity strategies (warp-aware,
  /// cta-aware, hybrid-1's locality tie-break, hybrid-2.x, bsa): roughly, at
  /// most this many candidates are examined per cache line / column block
  /// for each choice (bsa: rejected candidates per block per cluster, plus a
  /// work allowance per cluster; docs/Permutations.md has each strategy's
  /// exact rule). 0 means exact (O(M^2) in the worst case).
  int32_t candidateLimit = 64;
};

/// Checks the options' ranges; the message names the bad option.
Status validatePermutationOptions(const PermutationOptions &options);

/// A computed permutation.
struct Permutation {
  /// order[i] = original row at position i; a permutation of [0, rows).
  std::vector<int32_t> order;
  /// BSA only: the size of each cluster in the order they are laid out
  /// (empty rows, which BSA puts first, are not a cluster).
  std::vector<int32_t> clusterSizes;
};

/// Computes the permutation `options.strategy` chooses for `m`.
/// Deterministic: the same matrix and options give the same order.
StatusOr<Permutation> computePermutation(const CsrMatrix &m,
                                         const PermutationOptions &options);

/// True when `order` is a permutation of [0, rows).
bool isPermutation(const std::vector<int32_t> &order, int32_t rows);

/// How good an order is under the kernel model.
struct PermutationQuality {
  /// Sum over CTA windows of the largest warp time (in warp loads).
  int64_t ctaMaxWarpLoadSum = 0;
  /// Mean Hamming distance between the cache-line sets of the rows at
  /// positions i and i + 1, and at i and i + N_w; 0 when no such pair.
  double hammingAdjacentMean = 0.0;
  double hammingWarpMean = 0.0;
  /// Distinct cache lines of B summed over CTA windows: an estimate of the
  /// B misses when each window's lines are fetched once.
  int64_t windowLineFetches = 0;
  /// Share of nnz in tau x tau tiles (tau = options.tau) filled to at least
  /// kDenseTileFill: BSA's objective, the entries Blocked-ELL can take.
  double denseTileNnzShare = 0.0;
};

/// The fill from which a tile counts as dense in PermutationQuality (about
/// where a 32 x 32 Blocked-ELL tile breaks even with CSR in the format cost
/// model, docs/Formats.md).
constexpr double kDenseTileFill = 0.125;

/// Evaluates `order` (which must be a permutation of m's rows) for `m`.
PermutationQuality evaluatePermutation(const CsrMatrix &m,
                                       const std::vector<int32_t> &order,
                                       const PermutationOptions &options);

} // namespace spperm

#endif // SPPERM_SPARSE_PERMUTATION_H
