//===- Features.h - Static features of a sparse matrix ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The static features the selector reads (Mehrabi et al.'s summary, load
// balance, cache and hardware-interaction features, plus BSA's block
// density), computed in a few linear passes over the matrix. Every value is
// exact (no sampling: each needs O(nnz) work) and deterministic. The kernel
// model behind the warp/CTA/cache-line features is the one in Permutation.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_FEATURES_H
#define SPPERM_SPARSE_FEATURES_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spperm {

/// Parameters of the kernel model the features describe.
struct FeatureOptions {
  /// N_w: warps per CTA.
  int32_t warps = 32;
  /// Columns per cache line of B.
  int32_t lineWidth = 32;
  /// Rows each warp processes in one CTA window.
  int32_t rowsPerWarp = 4;
};

/// Block-density statistics for tau x tau tiles (the Blocked-ELL decision).
struct BlockFeatures {
  int32_t tau = 0;
  /// Tiles holding at least one entry.
  int64_t nonzeroBlocks = 0;
  /// Mean of nnz / tau^2 over the nonzero tiles.
  double meanDensity = 0.0;
  /// Nonzero tiles by density: bin k holds densities in (k/10, (k+1)/10],
  /// k = 0..9.
  std::vector<int64_t> densityHistogram;
  /// Fraction of all nnz that lies in tiles of density >= 0.5.
  double denseNnzShare = 0.0;
};

/// Locality a row reordering could recover: the rows sorted by their first
/// column (stably; empty rows last), an O(rows + cols) stand-in for the
/// similarity orders (BSA, cache-aware) that puts rows with the same column
/// set -- a shuffled band or block row -- back together. The features say
/// how much fetching and how many dense tiles that order has against the
/// stored one, which the stored order's features alone cannot say.
struct ReorderFeatures {
  /// Distinct cache lines summed over CTA windows in the sorted order.
  int64_t windowLineFetches = 0;
  /// The stored order's window line fetches over the sorted order's (> 1:
  /// reordering recovers locality; 1 for an empty matrix).
  double fetchRatio = 1.0;
  /// denseNnzShare of the 16 x 16 and 32 x 32 tiles in the sorted order.
  double dense16NnzShare = 0.0;
  double dense32NnzShare = 0.0;
};

/// Every static feature of a matrix.
struct Features {
  FeatureOptions options;
  BasicStats basic;
  /// Rows by length: bin 0 = empty rows, bin k >= 1 = rows with nnz in
  /// [2^(k-1), 2^k). Trailing empty bins are dropped.
  std::vector<int64_t> rowNnzHistogram;

  /// Warp load ceil(nnz_row / 32) over all rows (population std).
  double warpLoadMean = 0.0;
  double warpLoadStd = 0.0;
  int64_t warpLoadMax = 0;

  /// CTA windows in the identity order (row i -> warp i mod N_w): the sum of
  /// their straggler times, and max-over-mean warp time per window (1 is
  /// perfectly balanced), averaged and maximized over windows that have work.
  int64_t ctaMaxWarpLoadSum = 0;
  double ctaImbalanceMean = 0.0;
  double ctaImbalanceMax = 0.0;

  /// Fraction of set bits in the rows x ceil(cols / line) cache-line bitmask.
  double bitmaskDensity = 0.0;
  /// Hamming distance of the bitmasks of rows i and i + 1, and of rows i and
  /// i + N_w (the same warp's next row), over all such pairs.
  double hammingAdjacentMean = 0.0;
  double hammingAdjacentStd = 0.0;
  double hammingWarpMean = 0.0;
  double hammingWarpStd = 0.0;

  /// Distinct cache lines summed over CTA windows (an estimate of B cache
  /// misses when a window's lines are fetched once), and the reuse factor
  /// (line references / fetches, >= 1).
  int64_t windowLineFetches = 0;
  double lineReuse = 0.0;
  /// Useful lanes / lanes of a warp-per-row kernel: nnz / sum over rows of
  /// 32 * max(1, warp load).
  double warpUtilization = 0.0;

  /// tau = 16 and tau = 32 tiles.
  BlockFeatures blocks16;
  BlockFeatures blocks32;

  /// Column-access locality: mean over non-empty rows of the column span
  /// (max - min + 1) / cols, and the fraction of consecutive entries of a row
  /// that fall in the same cache line.
  double columnSpanMean = 0.0;
  double sameLineFraction = 0.0;

  /// The rows sorted by first column.
  ReorderFeatures sorted;
};

/// Computes every feature.
Features computeFeatures(const CsrMatrix &m, const FeatureOptions &options = {});

/// One feature as a number under a two-level key: `group` is empty for
/// top-level features (`rows`, `density`, ...) or names an object
/// (`warp_load`, `hamming`, `blocks16`, `row_nnz_histogram`, ...).
struct FeatureValue {
  std::string group;
  std::string name;
  double value = 0.0;
  bool isInteger = false;
};

/// The features as the flat list both `spperm-inspect --json` and
/// `#spperm.features` are built from, in a fixed order. Includes the DESIGN
/// contract keys: rows, cols, nnz, density, empty_rows, row_nnz {mean, std,
/// min, max}, warp_load {mean, std, max}, bitmask_density, hamming
/// {adjacent_mean, warp_mean}.
std::vector<FeatureValue> flattenFeatures(const Features &f);

} // namespace spperm

#endif // SPPERM_SPARSE_FEATURES_H
