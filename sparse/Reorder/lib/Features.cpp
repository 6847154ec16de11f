//===- Features.cpp - Static features of a sparse matrix --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every feature is exact and comes from three linear passes:
//  1. computeBasicStats() over the row pointers;
//  2. one pass over the rows in order, CTA window by CTA window, and their
//     entries: row lengths, warp loads, the row-length histogram, column
//     spans, the window stragglers, the distinct lines of every window and
//     the Hamming distances of the pairs (i, i + 1) and (i, i + N_w);
//  3. one pass over the entries for the 16 x 16 tiles, whose counts add up
//     to the 32 x 32 tiles';
//  4. the rows sorted by first column (a counting sort), then pass 3 again
//     in that order, counting the window line fetches along.
// The cache-line sets of the rows (RowLines' sets) are never materialized:
// building them alone would cost more than the rest of pass 2. The pass maps
// columns to lines as it reads them and keeps one record per line: the last
// window and row that touched it, and a 64-bit mask of which of the 64 rows
// up to that one did. Stamps are never cleared, and set unions and
// intersections become counts. A row's columns are sorted, so a line
// repeated within a row is recognized by the previous entry's line. The
// inner loops add comparison results instead of branching on them: the
// lines of scattered rows hit and miss unpredictably. For N_w >= 64 the
// (i, i + N_w) pairs take one more pass, lane by lane. Integer sums are
// exact; no loop allocates.
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
/// Row-length histogram bins: 0 plus one per bit of a non-negative int32.
constexpr int kRowLengthBins = 32;

/// Population standard deviation of `n` values from their exact sums.
double populationStd(long double sum, long double sumSquares, int64_t n) {
  if (n <= 0)
    return 0.0;
  long double mean = sum / n;
  long double var = sumSquares / n - mean * mean;
  return static_cast<double>(std::sqrt(std::max<long double>(var, 0)));
}

/// Mean and population std of a distance from its exact sums over `n` pairs.
void distanceStats(int64_t sum, uint64_t sumSquares, int64_t n, double &mean,
                   double &stdDev) {
  mean = stdDev = 0.0;
  if (n <= 0)
    return;
  // The same rounding as evaluatePermutation(): the exact sum divided in
  // long double.
  mean = static_cast<double>(static_cast<long double>(sum) / n);
  stdDev = populationStd(sum, sumSquares, n);
}

/// Column -> cache line for the usual power-of-two line widths.
struct ShiftLine {
  int shift;
  int32_t operator()(int32_t col) const { return col >> shift; }
};

/// Column -> cache line for any other width.
struct DivideLine {
  int32_t width;
  int32_t operator()(int32_t col) const { return col / width; }
};

/// The row-length histogram bin of a row: 0 for empty rows, k >= 1 for
/// lengths in [2^(k-1), 2^k).
int rowLengthBin(int32_t len) {
  return len <= 0 ? 0 : 32 - __builtin_clz(static_cast<uint32_t>(len));
}

/// The name of row-length histogram bin `k`: "0", "1", "2-3", "4-7", ...
std::string rowLengthBinName(size_t k) {
  if (k <= 1)
    return std::to_string(k);
  int64_t lo = int64_t(1) << (k - 1);
  return std::to_string(lo) + "-" + std::to_string(2 * lo - 1);
}

/// Rows a line remembers for the Hamming distances: bit k of a line's mask
/// says that row `row - k` touched it, so pairs up to 63 rows apart are
/// counted in the row pass itself.
constexpr int64_t kMaskRows = 64;

/// Pass 2: everything that walks the rows in order, window by window. Also
/// the (i, i + N_w) distances when N_w < kMaskRows; returns whether it did.
template <typename LineOf>
bool rowPass(const CsrMatrix &m, LineOf lineOf, int64_t numLines, Features &f) {
  const int32_t rows = m.rows;
  const int64_t nnz = m.nnz();
  const int32_t warps = f.options.warps;
  const int64_t window = static_cast<int64_t>(warps) * f.options.rowsPerWarp;
  const int32_t *colIdx = m.colIdx.data();
  const bool warpPairs = warps < kMaskRows;
  const int gap = warpPairs ? warps : 1;

  // Per line: the last window that fetched it, the last row that touched it
  // and which of the kMaskRows rows up to that one touched it too.
  struct LineState {
    int32_t window;
    int32_t row;
    uint64_t mask;
  };
  std::vector<LineState> lineState(static_cast<size_t>(numLines),
                                   LineState{-1, -1, 0});
  LineState *ls = lineState.data();
  std::vector<int64_t> warpTime(static_cast<size_t>(warps), 0);
  // Line counts of the last kMaskRows rows, by row mod kMaskRows.
  int64_t recentCounts[kMaskRows] = {};

  int64_t histogram[kRowLengthBins] = {};
  int64_t warpLoadSum = 0, warpLoadSquares = 0, warpLoadMax = 0;
  int64_t lanes = 0, nonEmptyRows = 0, spanSum = 0;
  int64_t totalLines = 0, fetches = 0;
  int64_t adjacentSum = 0, warpSum = 0;
  uint64_t adjacentSquares = 0, warpSquares = 0;
  int64_t ctaSum = 0, imbalanceWindows = 0;
  long double imbalanceSum = 0;
  double imbalanceMax = 0.0;
  int32_t windowIndex = 0;
  for (int64_t start = 0; start < rows; start += window, ++windowIndex) {
    const int64_t end = std::min<int64_t>(rows, start + window);
    std::fill(warpTime.begin(), warpTime.end(), 0);
    int32_t lane = 0;
    int64_t windowWork = 0;
    for (int32_t r = static_cast<int32_t>(start); r < end; ++r) {
      const int32_t kBegin = m.rowPtr[r], kEnd = m.rowPtr[r + 1];
      const int32_t len = kEnd - kBegin;
      const int64_t load = warpLoad(len);
      warpTime[lane] += load;
      if (++lane == warps)
        lane = 0;
      windowWork += load;
      warpLoadSquares += load * load;
      warpLoadMax = std::max(warpLoadMax, load);
      lanes += std::max<int64_t>(load, 1);
      ++histogram[rowLengthBin(len)];
      if (len > 0) {
        ++nonEmptyRows;
        spanSum += static_cast<int64_t>(colIdx[kEnd - 1]) - colIdx[kBegin] + 1;
      }
      // A line repeated within the row (isNew == 0) finds this row's own
      // stamps: it is neither fetched nor counted as shared again.
      int64_t count = 0, sharedAdjacent = 0, sharedWarp = 0;
      int32_t lastLine = -1;
      for (int32_t k = kBegin; k < kEnd; ++k) {
        const int32_t l = lineOf(colIdx[k]);
        const uint64_t isNew = l != lastLine;
        lastLine = l;
        count += isNew;
        LineState &s = ls[l];
        fetches += s.window != windowIndex;
        s.window = windowIndex;
        const uint32_t age =
            static_cast<uint32_t>(r) - static_cast<uint32_t>(s.row);
        const uint64_t keep = age < kMaskRows ? ~uint64_t(0) : 0;
        const uint64_t mask = (s.mask << (age & (kMaskRows - 1))) & keep;
        sharedAdjacent += (mask >> 1) & isNew;
        sharedWarp += (mask >> gap) & isNew;
        s.mask = mask | 1;
        s.row = r;
      }
      totalLines += count;
      if (r >= 1) {
        const int64_t d =
            recentCounts[(r - 1) % kMaskRows] + count - 2 * sharedAdjacent;
        adjacentSum += d;
        adjacentSquares += static_cast<uint64_t>(d * d);
      }
      if (warpPairs && r >= gap) {
        const int64_t d =
            recentCounts[(r - gap) % kMaskRows] + count - 2 * sharedWarp;
        warpSum += d;
        warpSquares += static_cast<uint64_t>(d * d);
      }
      recentCounts[r % kMaskRows] = count;
    }
    warpLoadSum += windowWork;
    const int64_t straggler =
        *std::max_element(warpTime.begin(), warpTime.end());
    ctaSum += straggler;
    if (windowWork > 0) {
      // Mean over the warps that received rows: a short last window leaves
      // the others idle, which is the matrix's size, not its balance.
      const int64_t activeWarps = std::min<int64_t>(warps, end - start);
      const long double imbalance =
          static_cast<long double>(straggler) * activeWarps / windowWork;
      imbalanceSum += imbalance;
      imbalanceMax = std::max(imbalanceMax, static_cast<double>(imbalance));
      ++imbalanceWindows;
    }
  }

  f.warpLoadMax = warpLoadMax;
  f.ctaMaxWarpLoadSum = ctaSum;
  f.windowLineFetches = fetches;
  f.ctaImbalanceMax = imbalanceMax;
  if (imbalanceWindows > 0)
    f.ctaImbalanceMean = static_cast<double>(imbalanceSum / imbalanceWindows);
  if (rows > 0) {
    f.warpLoadMean =
        static_cast<double>(static_cast<long double>(warpLoadSum) / rows);
    f.warpLoadStd = populationStd(warpLoadSum, warpLoadSquares, rows);
    f.warpUtilization =
        static_cast<double>(nnz) / (32.0 * static_cast<double>(lanes));
    int bins = kRowLengthBins;
    while (bins > 0 && histogram[bins - 1] == 0)
      --bins;
    f.rowNnzHistogram.assign(histogram, histogram + bins);
  }
  if (rows > 0 && numLines > 0)
    f.bitmaskDensity =
        static_cast<double>(totalLines) /
        (static_cast<double>(rows) * static_cast<double>(numLines));
  if (fetches > 0)
    f.lineReuse =
        static_cast<double>(totalLines) / static_cast<double>(fetches);
  if (nonEmptyRows > 0)
    f.columnSpanMean = static_cast<double>(static_cast<long double>(spanSum) /
                                           nonEmptyRows / m.cols);
  // A row's entries are sorted, so consecutive entries change line exactly
  // |lines(row)| - 1 times: the same-line pairs are nnz - lines in all.
  if (nnz > nonEmptyRows)
    f.sameLineFraction = static_cast<double>(nnz - totalLines) /
                         static_cast<double>(nnz - nonEmptyRows);
  distanceStats(adjacentSum, adjacentSquares, int64_t(rows) - 1,
                f.hammingAdjacentMean, f.hammingAdjacentStd);
  if (warpPairs)
    distanceStats(warpSum, warpSquares, int64_t(rows) - gap, f.hammingWarpMean,
                  f.hammingWarpStd);
  return warpPairs;
}

/// Pass 2b, only for gap >= kMaskRows: the Hamming distances of the pairs
/// (i, i + gap), walking the rows lane by lane (j, j + gap, j + 2 gap, ...)
/// with one stamp per line, the last row of the lane that touched it: a line
/// of row r is shared with row r - gap exactly when its stamp is r - gap.
/// Row indices are unique, so the stamps never need clearing between lanes.
template <typename LineOf>
void gapHammingPass(const CsrMatrix &m, LineOf lineOf, int64_t numLines,
                    int64_t gap, double &mean, double &stdDev) {
  const int64_t rows = m.rows;
  mean = stdDev = 0.0;
  if (rows <= gap)
    return;
  const int32_t *colIdx = m.colIdx.data();
  std::vector<int32_t> stamp(static_cast<size_t>(numLines), -1);
  int32_t *st = stamp.data();
  int64_t sum = 0;
  uint64_t sumSquares = 0;
  for (int64_t lane = 0; lane < gap; ++lane) {
    int32_t prev = -1;
    int64_t prevCount = 0;
    for (int64_t p = lane; p < rows; p += gap) {
      const int32_t r = static_cast<int32_t>(p);
      int64_t count = 0, shared = 0;
      int32_t lastLine = -1;
      for (int32_t k = m.rowPtr[r], e = m.rowPtr[r + 1]; k < e; ++k) {
        const int32_t l = lineOf(colIdx[k]);
        count += l != lastLine;
        lastLine = l;
        shared += st[l] == prev;
        st[l] = r;
      }
      if (prev >= 0) {
        const int64_t d = prevCount + count - 2 * shared;
        sum += d;
        sumSquares += static_cast<uint64_t>(d * d);
      }
      prev = r;
      prevCount = count;
    }
  }
  distanceStats(sum, sumSquares, rows - gap, mean, stdDev);
}

/// Counts one tile of `count` entries out of `area` cells: the density
/// histogram (bin j holds densities in (j/10, (j+1)/10]), bin 0 apart in
/// `sparse` and the entries of dense tiles (density >= 0.5) in `dense`.
/// Nearly all sparse tiles land in bin 0, so a register sum for it avoids a
/// chain of increments of one memory word.
inline void tallyTile(int64_t count, int64_t area, int64_t *histogram,
                      int64_t &sparse, int64_t &dense) {
  // j = ceil(10 count / area) - 1 in integers, so that the edges 0.1, 0.2,
  // ..., 1.0 are exact.
  const int64_t bin = (10 * count + area - 1) / area - 1;
  sparse += bin == 0;
  if (bin != 0)
    ++histogram[bin];
  dense += 2 * count >= area ? count : 0;
}

/// Pass 3: the 16 x 16 tiles, counted per block row in a stamp/counter array
/// over block columns, and the 32 x 32 tiles, summed from the 16 x 16 tiles
/// of two consecutive block rows the same way. A tile's density is its
/// count over tau^2, also for the partial tiles at the right and bottom
/// edges.
/// `order` (null: the stored order) lists the rows in the order the tiles
/// are formed; with an order, `onEntry(position, column)` also sees every
/// entry, so that other counts over that order share the pass.
template <typename OnEntry>
void blockPass(const CsrMatrix &m, const int32_t *order, BlockFeatures &b16,
               BlockFeatures &b32, OnEntry onEntry) {
  constexpr int64_t area16 = 16 * 16, area32 = 32 * 32;
  b16.tau = 16;
  b32.tau = 32;
  b16.densityHistogram.assign(kHistogramBins, 0);
  b32.densityHistogram.assign(kHistogramBins, 0);
  const int64_t nnz = m.nnz();
  if (nnz == 0)
    return;

  const int64_t blockCols16 = (static_cast<int64_t>(m.cols) + 15) / 16;
  const int64_t blockCols32 = (blockCols16 + 1) / 2;
  const int64_t blockRows16 = (static_cast<int64_t>(m.rows) + 15) / 16;
  // stamp[c] == the block row whose tile count[c] holds; `touched` lists the
  // block columns the block row has touched. It is written branch-free, so
  // it has room for one more than the most there can be.
  std::vector<int32_t> stamp16(static_cast<size_t>(blockCols16), -1);
  std::vector<int32_t> count16(static_cast<size_t>(blockCols16), 0);
  std::vector<int32_t> touched16(
      static_cast<size_t>(std::min<int64_t>(blockCols16, nnz)) + 1);
  std::vector<int32_t> stamp32(static_cast<size_t>(blockCols32), -1);
  std::vector<int32_t> count32(static_cast<size_t>(blockCols32), 0);
  std::vector<int32_t> touched32(
      static_cast<size_t>(std::min<int64_t>(blockCols32, nnz)) + 1);
  int32_t *st16 = stamp16.data(), *cnt16 = count16.data();
  int32_t *st32 = stamp32.data(), *cnt32 = count32.data();
  int32_t *tch16 = touched16.data(), *tch32 = touched32.data();
  int64_t *hist16 = b16.densityHistogram.data();
  int64_t *hist32 = b32.densityHistogram.data();
  const int32_t *colIdx = m.colIdx.data();

  int64_t dense16 = 0, dense32 = 0;
  int32_t touchedCount32 = 0;
  for (int64_t br = 0; br < blockRows16; ++br) {
    const int32_t tag16 = static_cast<int32_t>(br);
    const int32_t tag32 = static_cast<int32_t>(br / 2);
    const int64_t pBegin = br * 16;
    const int64_t pEnd = std::min<int64_t>(m.rows, pBegin + 16);
    int32_t touchedCount16 = 0;
    auto countEntries = [&](int32_t kBegin, int32_t kEnd, auto visit) {
      for (int32_t k = kBegin; k < kEnd; ++k) {
        visit(colIdx[k]);
        const int32_t c = colIdx[k] >> 4;
        const int32_t seen = st16[c] == tag16;
        st16[c] = tag16;
        cnt16[c] = (cnt16[c] & -seen) + 1;
        tch16[touchedCount16] = c;
        touchedCount16 += 1 - seen;
      }
    };
    if (!order) {
      // The block row's entries are contiguous.
      countEntries(m.rowPtr[static_cast<size_t>(pBegin)],
                   m.rowPtr[static_cast<size_t>(pEnd)], [](int32_t) {});
    } else {
      for (int64_t p = pBegin; p < pEnd; ++p)
        countEntries(m.rowPtr[order[p]], m.rowPtr[order[p] + 1],
                     [&](int32_t col) { onEntry(p, col); });
    }

    int64_t sparse16 = 0;
    for (int32_t i = 0; i < touchedCount16; ++i) {
      const int32_t c = tch16[i];
      const int32_t count = cnt16[c];
      tallyTile(count, area16, hist16, sparse16, dense16);
      const int32_t c32 = c >> 1;
      const int32_t seen = st32[c32] == tag32;
      st32[c32] = tag32;
      cnt32[c32] = (cnt32[c32] & -seen) + count;
      tch32[touchedCount32] = c32;
      touchedCount32 += 1 - seen;
    }
    hist16[0] += sparse16;
    b16.nonzeroBlocks += touchedCount16;

    // A 32 x 32 block row is complete after its odd 16 x 16 block row or at
    // the bottom edge.
    if (br % 2 == 1 || br + 1 == blockRows16) {
      int64_t sparse32 = 0;
      for (int32_t i = 0; i < touchedCount32; ++i)
        tallyTile(cnt32[tch32[i]], area32, hist32, sparse32, dense32);
      hist32[0] += sparse32;
      b32.nonzeroBlocks += touchedCount32;
      touchedCount32 = 0;
    }
  }

  // The mean of count / tau^2 over the nonzero tiles is
  // nnz / (tiles * tau^2).
  b16.meanDensity = static_cast<double>(nnz) /
                    (static_cast<double>(b16.nonzeroBlocks) * area16);
  b32.meanDensity = static_cast<double>(nnz) /
                    (static_cast<double>(b32.nonzeroBlocks) * area32);
  b16.denseNnzShare = static_cast<double>(dense16) / static_cast<double>(nnz);
  b32.denseNnzShare = static_cast<double>(dense32) / static_cast<double>(nnz);
}

/// The rows sorted stably by first column, empty rows last. A counting sort
/// over the columns when they are not many more than the rows; otherwise
/// (hypersparse shapes: 3 x (2^31 - 1)) a sort of (column, row) pairs, so
/// that the scratch memory follows the rows, not the columns.
std::vector<int32_t> firstColumnOrder(const CsrMatrix &m) {
  const int32_t rows = m.rows;
  auto keyOf = [&](int32_t r) -> int64_t {
    return m.rowPtr[r] < m.rowPtr[r + 1] ? m.colIdx[m.rowPtr[r]] : m.cols;
  };
  std::vector<int32_t> order(static_cast<size_t>(rows));
  if (static_cast<int64_t>(m.cols) > 4 * static_cast<int64_t>(rows) + 1024) {
    std::vector<uint64_t> pairs(static_cast<size_t>(rows));
    for (int32_t r = 0; r < rows; ++r)
      pairs[static_cast<size_t>(r)] =
          (static_cast<uint64_t>(keyOf(r)) << 32) | static_cast<uint32_t>(r);
    std::sort(pairs.begin(), pairs.end());
    for (int32_t i = 0; i < rows; ++i)
      order[static_cast<size_t>(i)] =
          static_cast<int32_t>(pairs[static_cast<size_t>(i)] & 0xffffffffu);
    return order;
  }
  std::vector<int64_t> start(static_cast<size_t>(m.cols) + 2, 0);
  for (int32_t r = 0; r < rows; ++r)
    ++start[static_cast<size_t>(keyOf(r)) + 1];
  for (size_t c = 1; c < start.size(); ++c)
    start[c] += start[c - 1];
  for (int32_t r = 0; r < rows; ++r)
    order[static_cast<size_t>(start[static_cast<size_t>(keyOf(r))]++)] = r;
  return order;
}

/// Distinct lines summed over CTA windows of `window` row positions, fed
/// one entry at a time in position order: a line stamped with the window
/// that last fetched it.
template <typename LineOf>
struct WindowFetchCounter {
  WindowFetchCounter(LineOf lineOf, int64_t numLines, int64_t window)
      : lineOf(lineOf), window(window),
        stamp(static_cast<size_t>(numLines), -1) {}
  void operator()(int64_t position, int32_t col) {
    // Positions arrive in order: the window changes only at a multiple.
    if (position >= windowEnd) {
      w = static_cast<int32_t>(position / window);
      windowEnd = (static_cast<int64_t>(w) + 1) * window;
    }
    int32_t &s = stamp[static_cast<size_t>(lineOf(col))];
    fetches += s != w;
    s = w;
  }
  LineOf lineOf;
  int64_t window;
  std::vector<int32_t> stamp;
  int32_t w = -1;
  int64_t windowEnd = 0;
  int64_t fetches = 0;
};

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

  const int32_t width = f.options.lineWidth;
  const int64_t numLines = (static_cast<int64_t>(m.cols) + width - 1) / width;
  const int64_t window =
      static_cast<int64_t>(f.options.warps) * f.options.rowsPerWarp;
  const std::vector<int32_t> order = firstColumnOrder(m);
  // A matrix already in that order (a band, most sorted inputs) has the
  // sorted features of its stored order: pass 4 would repeat pass 3.
  bool alreadySorted = true;
  for (size_t i = 0; i < order.size() && alreadySorted; ++i)
    alreadySorted = order[i] == static_cast<int32_t>(i);
  blockPass(m, nullptr, f.blocks16, f.blocks32, [](int64_t, int32_t) {});
  auto linePasses = [&](auto lineOf) {
    if (!rowPass(m, lineOf, numLines, f))
      gapHammingPass(m, lineOf, numLines, f.options.warps, f.hammingWarpMean,
                     f.hammingWarpStd);
    if (alreadySorted)
      return;
    // Pass 3 again in the sorted order, the window fetches counted along.
    WindowFetchCounter<decltype(lineOf)> fetches(lineOf, numLines, window);
    BlockFeatures sorted16, sorted32;
    blockPass(m, order.data(), sorted16, sorted32,
              [&](int64_t p, int32_t col) { fetches(p, col); });
    f.sorted.windowLineFetches = fetches.fetches;
    f.sorted.dense16NnzShare = sorted16.denseNnzShare;
    f.sorted.dense32NnzShare = sorted32.denseNnzShare;
  };
  if ((width & (width - 1)) == 0)
    linePasses(ShiftLine{__builtin_ctz(static_cast<uint32_t>(width))});
  else
    linePasses(DivideLine{width});
  if (alreadySorted) {
    f.sorted.windowLineFetches = f.windowLineFetches;
    f.sorted.dense16NnzShare = f.blocks16.denseNnzShare;
    f.sorted.dense32NnzShare = f.blocks32.denseNnzShare;
  }
  if (f.sorted.windowLineFetches > 0)
    f.sorted.fetchRatio = static_cast<double>(f.windowLineFetches) /
                          static_cast<double>(f.sorted.windowLineFetches);
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

  auto blocks = [&](const char *group, const BlockFeatures &b) {
    integer(group, "nonzero_blocks", b.nonzeroBlocks);
    real(group, "mean_density", b.meanDensity);
    real(group, "dense_nnz_share", b.denseNnzShare);
    // Always ten bins, so that every matrix has the same keys.
    for (int k = 0; k < kHistogramBins; ++k) {
      int64_t v = static_cast<size_t>(k) < b.densityHistogram.size()
                      ? b.densityHistogram[k]
                      : 0;
      integer(group, "d" + std::to_string(k), v);
    }
  };
  blocks("blocks16", f.blocks16);
  blocks("blocks32", f.blocks32);

  integer("sorted", "window_line_fetches", f.sorted.windowLineFetches);
  real("sorted", "fetch_ratio", f.sorted.fetchRatio);
  real("sorted", "dense16_nnz_share", f.sorted.dense16NnzShare);
  real("sorted", "dense32_nnz_share", f.sorted.dense32NnzShare);

  for (size_t k = 0; k < f.rowNnzHistogram.size(); ++k)
    integer("row_nnz_histogram", rowLengthBinName(k), f.rowNnzHistogram[k]);

  integer("model", "warps", f.options.warps);
  integer("model", "line_width", f.options.lineWidth);
  integer("model", "rows_per_warp", f.options.rowsPerWarp);
  return out;
}
