//===- Features.cpp - Static features of a sparse matrix --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every feature is exact and comes from a handful of linear passes:
//  1. the per-row cache-line sets (RowLines, one pass over the entries);
//  2. one pass over the rows in CTA windows: row lengths, warp loads, the
//     row-length histogram, column spans, the window stragglers and the
//     distinct lines of every window (a stamp per line, never cleared);
//  3. one pass over the line sets for the Hamming distances of the pairs
//     (i, i + 1) and (i, i + N_w) (branch-free merges of sorted lists);
//  4. one pass over the entries per tile size, counting each block row's
//     tiles in a stamp/counter array over block columns.
// Counts are summed in integers; the second moments behind the standard
// deviations in long double, as computeBasicStats() does. No pass allocates
// per row: every scratch array is sized once up front.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Features.h"

#include "RowLines.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace spperm;
using namespace spperm::detail;

namespace {

constexpr int kHistogramBins = 10;

/// Population standard deviation of `n` values from their exact sums.
double populationStd(long double sum, long double sumSquares, int64_t n) {
  if (n <= 0)
    return 0.0;
  long double mean = sum / n;
  long double var = sumSquares / n - mean * mean;
  return static_cast<double>(std::sqrt(std::max<long double>(var, 0)));
}

/// |a AND b| of two sorted lists of distinct values. The merge advances by
/// comparison results instead of branching on them: the lists of scattered
/// rows interleave unpredictably.
int64_t countShared(const int32_t *a, const int32_t *aEnd, const int32_t *b,
                    const int32_t *bEnd) {
  if (a == aEnd || b == bEnd || aEnd[-1] < *b || bEnd[-1] < *a)
    return 0;
  int64_t shared = 0;
  while (a != aEnd && b != bEnd) {
    int32_t x = *a, y = *b;
    shared += x == y;
    a += x <= y;
    b += y <= x;
  }
  return shared;
}

/// Mean and population std of the Hamming distances of the line sets of rows
/// (i, i + gap) over all such pairs; zeros when there is none.
void hammingStats(const RowLines &rl, int64_t gap, double &mean,
                  double &stdDev) {
  mean = stdDev = 0.0;
  const int64_t rows = rl.rows;
  if (gap < 1 || rows <= gap)
    return;
  const int64_t pairs = rows - gap;
  int64_t sum = 0;
  long double sumSquares = 0;
  for (int64_t i = 0; i < pairs; ++i) {
    int32_t a = static_cast<int32_t>(i), b = static_cast<int32_t>(i + gap);
    int64_t d = rl.count(a) + rl.count(b) -
                2 * countShared(rl.begin(a), rl.end(a), rl.begin(b), rl.end(b));
    sum += d;
    sumSquares += static_cast<long double>(d) * d;
  }
  // The same rounding as evaluatePermutation(): an exact sum divided in long
  // double.
  mean = static_cast<double>(static_cast<long double>(sum) / pairs);
  stdDev = populationStd(sum, sumSquares, pairs);
}

/// Tile statistics for tau x tau tiles (tau a power of two). A tile's density
/// is its entry count over tau^2, also for the partial tiles at the right and
/// bottom edges.
BlockFeatures blockFeatures(const CsrMatrix &m, int32_t tau) {
  BlockFeatures b;
  b.tau = tau;
  b.densityHistogram.assign(kHistogramBins, 0);
  const int64_t nnz = m.nnz();
  if (nnz == 0)
    return b;

  int shift = 0;
  while ((int32_t(1) << shift) < tau)
    ++shift;
  const int64_t area = static_cast<int64_t>(tau) * tau;
  const int64_t blockCols = (static_cast<int64_t>(m.cols) + tau - 1) / tau;
  const int64_t blockRows = (static_cast<int64_t>(m.rows) + tau - 1) / tau;

  // stamp[c] == the block row whose tile count[c] holds; `touched` lists the
  // block columns of the current block row. All three live for the whole
  // pass, so nothing is cleared or allocated per block row.
  std::vector<int32_t> stamp(static_cast<size_t>(blockCols), -1);
  std::vector<int32_t> count(static_cast<size_t>(blockCols), 0);
  std::vector<int32_t> touched;
  touched.reserve(static_cast<size_t>(std::min<int64_t>(blockCols, nnz)));

  int64_t denseNnz = 0;
  for (int64_t br = 0; br < blockRows; ++br) {
    const int32_t tag = static_cast<int32_t>(br);
    const int32_t rowBegin = static_cast<int32_t>(br * tau);
    const int32_t rowEnd =
        static_cast<int32_t>(std::min<int64_t>(m.rows, (br + 1) * tau));
    const int32_t *col = m.colIdx.data() + m.rowPtr[rowBegin];
    const int32_t *colEnd = m.colIdx.data() + m.rowPtr[rowEnd];
    touched.clear();
    for (; col != colEnd; ++col) {
      int32_t c = *col >> shift;
      if (stamp[c] != tag) {
        stamp[c] = tag;
        count[c] = 0;
        touched.push_back(c);
      }
      ++count[c];
    }
    for (int32_t c : touched) {
      int64_t k = count[c];
      // Bin j holds densities in (j/10, (j+1)/10]: j = ceil(10 k / area) - 1,
      // in integers so that the edges 0.1, 0.2, ..., 1.0 are exact.
      int64_t bin = (10 * k + area - 1) / area - 1;
      ++b.densityHistogram[static_cast<size_t>(bin)];
      if (2 * k >= area)
        denseNnz += k;
    }
    b.nonzeroBlocks += static_cast<int64_t>(touched.size());
  }
  // The mean of k / tau^2 over the nonzero tiles is nnz / (tiles * tau^2).
  b.meanDensity = static_cast<double>(nnz) /
                  (static_cast<double>(b.nonzeroBlocks) * static_cast<double>(area));
  b.denseNnzShare = static_cast<double>(denseNnz) / static_cast<double>(nnz);
  return b;
}

/// The row-length histogram bin of a row: 0 for empty rows, k >= 1 for
/// lengths in [2^(k-1), 2^k).
int rowLengthBin(int32_t len) {
  int bin = 0;
  for (uint32_t v = static_cast<uint32_t>(len); v != 0; v >>= 1)
    ++bin;
  return bin;
}

/// The name of row-length histogram bin `k`: "0", "1", "2-3", "4-7", ...
std::string rowLengthBinName(size_t k) {
  if (k <= 1)
    return std::to_string(k);
  int64_t lo = int64_t(1) << (k - 1);
  return std::to_string(lo) + "-" + std::to_string(2 * lo - 1);
}

} // namespace

Features spperm::computeFeatures(const CsrMatrix &m,
                                 const FeatureOptions &options) {
  Features f;
  // Out-of-range parameters (callers validate them) are treated as 1 rather
  // than dividing by zero.
  f.options.warps = std::max(options.warps, 1);
  f.options.lineWidth = std::max(options.lineWidth, 1);
  f.options.rowsPerWarp = std::max(options.rowsPerWarp, 1);
  f.basic = computeBasicStats(m);

  const int32_t rows = m.rows;
  const int64_t nnz = m.nnz();
  const int32_t warps = f.options.warps;
  const int64_t window = static_cast<int64_t>(warps) * f.options.rowsPerWarp;

  RowLines rl = buildRowLines(m, f.options.lineWidth);
  const int64_t totalLines = static_cast<int64_t>(rl.lines.size());

  // Pass over the rows, window by window.
  std::vector<int64_t> histogram(33, 0);
  std::vector<int64_t> warpTime(static_cast<size_t>(warps), 0);
  std::vector<int32_t> lineStamp(static_cast<size_t>(rl.numLines), -1);
  int64_t warpLoadSum = 0;
  long double warpLoadSquares = 0;
  int64_t lanes = 0;
  int64_t nonEmptyRows = 0;
  long double spanSum = 0;
  int64_t imbalanceWindows = 0;
  long double imbalanceSum = 0;
  int32_t windowIndex = 0;
  for (int64_t start = 0; start < rows; start += window, ++windowIndex) {
    const int64_t end = std::min<int64_t>(rows, start + window);
    std::fill(warpTime.begin(), warpTime.end(), 0);
    int32_t lane = 0;
    int64_t windowWork = 0;
    for (int64_t p = start; p < end; ++p) {
      const int32_t r = static_cast<int32_t>(p);
      const int32_t len = m.rowLength(r);
      const int64_t load = warpLoad(len);
      warpTime[lane] += load;
      if (++lane == warps)
        lane = 0;
      windowWork += load;
      warpLoadSum += load;
      warpLoadSquares += static_cast<long double>(load) * load;
      f.warpLoadMax = std::max(f.warpLoadMax, load);
      lanes += 32 * std::max<int64_t>(load, 1);
      ++histogram[rowLengthBin(len)];
      if (len > 0) {
        ++nonEmptyRows;
        spanSum += static_cast<long double>(m.colIdx[m.rowPtr[r + 1] - 1]) -
                   m.colIdx[m.rowPtr[r]] + 1;
      }
      for (const int32_t *l = rl.begin(r), *e = rl.end(r); l != e; ++l) {
        if (lineStamp[*l] != windowIndex) {
          lineStamp[*l] = windowIndex;
          ++f.windowLineFetches;
        }
      }
    }
    const int64_t straggler = *std::max_element(warpTime.begin(), warpTime.end());
    f.ctaMaxWarpLoadSum += straggler;
    if (windowWork > 0) {
      // Mean over the warps that received rows: a short last window leaves
      // the others idle, which is the matrix's size, not its balance.
      const int64_t activeWarps = std::min<int64_t>(warps, end - start);
      long double imbalance =
          static_cast<long double>(straggler) * activeWarps / windowWork;
      imbalanceSum += imbalance;
      f.ctaImbalanceMax =
          std::max(f.ctaImbalanceMax, static_cast<double>(imbalance));
      ++imbalanceWindows;
    }
  }

  if (rows > 0) {
    f.warpLoadMean = static_cast<double>(static_cast<long double>(warpLoadSum) / rows);
    f.warpLoadStd = populationStd(warpLoadSum, warpLoadSquares, rows);
    f.warpUtilization = static_cast<double>(nnz) / static_cast<double>(lanes);
    size_t bins = histogram.size();
    while (bins > 0 && histogram[bins - 1] == 0)
      --bins;
    f.rowNnzHistogram.assign(histogram.begin(), histogram.begin() + bins);
  }
  if (imbalanceWindows > 0)
    f.ctaImbalanceMean = static_cast<double>(imbalanceSum / imbalanceWindows);
  if (rows > 0 && rl.numLines > 0)
    f.bitmaskDensity =
        static_cast<double>(totalLines) /
        (static_cast<double>(rows) * static_cast<double>(rl.numLines));
  if (f.windowLineFetches > 0)
    f.lineReuse = static_cast<double>(totalLines) /
                  static_cast<double>(f.windowLineFetches);
  if (nonEmptyRows > 0)
    f.columnSpanMean =
        static_cast<double>(spanSum / nonEmptyRows / m.cols);
  // A row's entries are sorted, so consecutive entries change line exactly
  // |lines(row)| - 1 times: the same-line pairs are nnz - lines in all.
  if (nnz > nonEmptyRows)
    f.sameLineFraction = static_cast<double>(nnz - totalLines) /
                         static_cast<double>(nnz - nonEmptyRows);

  hammingStats(rl, 1, f.hammingAdjacentMean, f.hammingAdjacentStd);
  hammingStats(rl, warps, f.hammingWarpMean, f.hammingWarpStd);

  f.blocks16 = blockFeatures(m, 16);
  f.blocks32 = blockFeatures(m, 32);
  return f;
}

std::vector<FeatureValue> spperm::flattenFeatures(const Features &f) {
  std::vector<FeatureValue> out;
  auto real = [&](const char *group, const std::string &name, double v) {
    out.push_back({group, name, v, false});
  };
  auto integer = [&](const char *group, const std::string &name, int64_t v) {
    out.push_back({group, name, static_cast<double>(v), true});
  };

  const BasicStats &s = f.basic;
  integer("", "rows", s.rows);
  integer("", "cols", s.cols);
  integer("", "nnz", s.nnz);
  real("", "density", s.density);
  integer("", "empty_rows", s.emptyRows);
  real("", "bitmask_density", f.bitmaskDensity);
  real("", "warp_utilization", f.warpUtilization);
  real("", "line_reuse", f.lineReuse);
  integer("", "window_line_fetches", f.windowLineFetches);
  integer("", "cta_max_warp_load_sum", f.ctaMaxWarpLoadSum);
  real("", "column_span_mean", f.columnSpanMean);
  real("", "same_line_fraction", f.sameLineFraction);

  real("row_nnz", "mean", s.rowNnzMean);
  real("row_nnz", "std", s.rowNnzStd);
  integer("row_nnz", "min", s.rowNnzMin);
  integer("row_nnz", "max", s.rowNnzMax);

  real("warp_load", "mean", f.warpLoadMean);
  real("warp_load", "std", f.warpLoadStd);
  integer("warp_load", "max", f.warpLoadMax);

  real("cta_imbalance", "mean", f.ctaImbalanceMean);
  real("cta_imbalance", "max", f.ctaImbalanceMax);

  real("hamming", "adjacent_mean", f.hammingAdjacentMean);
  real("hamming", "adjacent_std", f.hammingAdjacentStd);
  real("hamming", "warp_mean", f.hammingWarpMean);
  real("hamming", "warp_std", f.hammingWarpStd);

  for (const auto &[group, b] :
       {std::pair<const char *, const BlockFeatures *>{"blocks16", &f.blocks16},
        std::pair<const char *, const BlockFeatures *>{"blocks32",
                                                       &f.blocks32}}) {
    integer(group, "nonzero_blocks", b->nonzeroBlocks);
    real(group, "mean_density", b->meanDensity);
    real(group, "dense_nnz_share", b->denseNnzShare);
    // Always ten bins, so that every matrix has the same keys.
    for (int k = 0; k < kHistogramBins; ++k) {
      int64_t v = static_cast<size_t>(k) < b->densityHistogram.size()
                      ? b->densityHistogram[k]
                      : 0;
      integer(group, "d" + std::to_string(k), v);
    }
  }

  for (size_t k = 0; k < f.rowNnzHistogram.size(); ++k)
    integer("row_nnz_histogram", rowLengthBinName(k), f.rowNnzHistogram[k]);

  integer("model", "warps", f.options.warps);
  integer("model", "line_width", f.options.lineWidth);
  integer("model", "rows_per_warp", f.options.rowsPerWarp);
  return out;
}
