//===- FeaturesDefinitionsTest.cpp - Features by definition -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The features against a direct set-based transcription of their
// definitions, and against evaluatePermutation() for the identity order, on
// generated matrices; which features a row shuffle changes; and the sorted
// order's recovery of shuffled structure.
//
//===----------------------------------------------------------------------===//

#include "FeaturesTestUtil.h"

#include "spperm/Sparse/Features.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

//===----------------------------------------------------------------------===//
// Agreement with the definitions and with evaluatePermutation()
//===----------------------------------------------------------------------===//

/// Every feature straight from its definition, with std::set line sets and
/// a map of tiles. Quadratic in places; for small matrices only.
Features referenceFeatures(const CsrMatrix &m, const FeatureOptions &o,
                           bool withSorted = true);

/// The sorted-order features by their definition: the rows stably sorted by
/// first column (empty rows last), permuted for real, and that matrix's
/// window fetches and dense tile shares from the reference itself.
ReorderFeatures referenceSorted(const CsrMatrix &m, const FeatureOptions &o,
                                int64_t storedFetches) {
  std::vector<int32_t> order(m.rows);
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int32_t r) -> int64_t {
    return m.rowLength(r) > 0 ? m.colIdx[m.rowPtr[r]] : int64_t(m.cols);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return key(a) < key(b); });
  Features p = referenceFeatures(permuteRows(m, order), o, false);
  ReorderFeatures r;
  r.windowLineFetches = p.windowLineFetches;
  if (p.windowLineFetches > 0)
    r.fetchRatio = double(storedFetches) / double(p.windowLineFetches);
  r.dense16NnzShare = p.blocks16.denseNnzShare;
  r.dense32NnzShare = p.blocks32.denseNnzShare;
  return r;
}

Features referenceFeatures(const CsrMatrix &m, const FeatureOptions &o,
                           bool withSorted) {
  Features f;
  f.options = o;
  f.basic = computeBasicStats(m);
  const int64_t rows = m.rows, nnz = m.nnz();
  const int64_t numLines = (int64_t(m.cols) + o.lineWidth - 1) / o.lineWidth;
  std::vector<std::set<int32_t>> lines(rows);
  std::vector<int64_t> load(rows);
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
      lines[r].insert(m.colIdx[k] / o.lineWidth);
    load[r] = (m.rowLength(r) + 31) / 32;
  }

  if (rows > 0) {
    std::vector<int64_t> histogram;
    long double sum = 0, squares = 0;
    int64_t lanes = 0, lineRefs = 0;
    for (int32_t r = 0; r < rows; ++r) {
      int32_t len = m.rowLength(r);
      size_t bin = 0;
      while (bin > 0 ? (int64_t(1) << bin) <= len : len > 0)
        ++bin;
      if (histogram.size() <= bin)
        histogram.resize(bin + 1, 0);
      ++histogram[bin];
      sum += load[r];
      squares += (long double)load[r] * load[r];
      f.warpLoadMax = std::max(f.warpLoadMax, load[r]);
      lanes += 32 * std::max<int64_t>(1, load[r]);
      lineRefs += static_cast<int64_t>(lines[r].size());
    }
    f.rowNnzHistogram = histogram;
    f.warpLoadMean = static_cast<double>(sum / rows);
    long double mean = sum / rows;
    long double var = 0;
    for (int32_t r = 0; r < rows; ++r)
      var += (load[r] - mean) * (load[r] - mean);
    f.warpLoadStd = static_cast<double>(std::sqrt(var / rows));
    f.warpUtilization = double(nnz) / double(lanes);
    if (numLines > 0)
      f.bitmaskDensity = double(lineRefs) / (double(rows) * double(numLines));

    const int64_t window = int64_t(o.warps) * o.rowsPerWarp;
    int64_t windows = 0;
    long double imbalanceSum = 0;
    for (int64_t start = 0; start < rows; start += window) {
      int64_t end = std::min(rows, start + window);
      std::vector<int64_t> warpTime(o.warps, 0);
      std::set<int32_t> windowLines;
      for (int64_t p = start; p < end; ++p) {
        warpTime[(p - start) % o.warps] += load[p];
        windowLines.insert(lines[p].begin(), lines[p].end());
      }
      f.windowLineFetches += static_cast<int64_t>(windowLines.size());
      int64_t straggler = *std::max_element(warpTime.begin(), warpTime.end());
      int64_t work =
          std::accumulate(warpTime.begin(), warpTime.end(), int64_t(0));
      f.ctaMaxWarpLoadSum += straggler;
      if (work > 0) {
        long double active = std::min<int64_t>(o.warps, end - start);
        long double imbalance = straggler / (work / active);
        imbalanceSum += imbalance;
        f.ctaImbalanceMax = std::max(f.ctaImbalanceMax, double(imbalance));
        ++windows;
      }
    }
    if (windows > 0)
      f.ctaImbalanceMean = double(imbalanceSum / windows);
    if (f.windowLineFetches > 0)
      f.lineReuse = double(lineRefs) / double(f.windowLineFetches);
  }

  auto hamming = [&](int64_t gap, double &mean, double &stdDev) {
    std::vector<long double> d;
    for (int64_t i = 0; i + gap < rows; ++i) {
      std::vector<int32_t> x;
      std::set_symmetric_difference(
          lines[i].begin(), lines[i].end(), lines[i + gap].begin(),
          lines[i + gap].end(), std::back_inserter(x));
      d.push_back(x.size());
    }
    if (d.empty())
      return;
    long double s = std::accumulate(d.begin(), d.end(), (long double)0);
    long double mu = s / d.size(), var = 0;
    for (long double v : d)
      var += (v - mu) * (v - mu);
    mean = double(mu);
    stdDev = double(std::sqrt(var / d.size()));
  };
  hamming(1, f.hammingAdjacentMean, f.hammingAdjacentStd);
  hamming(o.warps, f.hammingWarpMean, f.hammingWarpStd);

  int64_t nonEmpty = 0, pairs = 0, samePairs = 0;
  long double spans = 0;
  for (int32_t r = 0; r < rows; ++r) {
    int32_t b = m.rowPtr[r], e = m.rowPtr[r + 1];
    if (b == e)
      continue;
    ++nonEmpty;
    spans += (long double)(m.colIdx[e - 1] - m.colIdx[b] + 1) / m.cols;
    for (int32_t k = b; k + 1 < e; ++k) {
      ++pairs;
      samePairs += m.colIdx[k] / o.lineWidth == m.colIdx[k + 1] / o.lineWidth;
    }
  }
  if (nonEmpty > 0)
    f.columnSpanMean = double(spans / nonEmpty);
  if (pairs > 0)
    f.sameLineFraction = double(samePairs) / double(pairs);

  for (auto [b, tau] : {std::pair<BlockFeatures *, int32_t>{&f.blocks16, 16},
                        {&f.blocks32, 32}}) {
    b->tau = tau;
    b->densityHistogram.assign(10, 0);
    std::map<std::pair<int32_t, int32_t>, int64_t> tiles;
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
        ++tiles[{r / tau, m.colIdx[k] / tau}];
    long double densities = 0;
    int64_t dense = 0;
    for (auto &[tile, count] : tiles) {
      double density = double(count) / (tau * tau);
      densities += density;
      int bin = std::min(9, std::max(0, int(std::ceil(density * 10)) - 1));
      ++b->densityHistogram[bin];
      if (density >= 0.5)
        dense += count;
    }
    b->nonzeroBlocks = static_cast<int64_t>(tiles.size());
    if (!tiles.empty()) {
      b->meanDensity = double(densities / tiles.size());
      b->denseNnzShare = double(dense) / double(nnz);
    }
  }
  if (withSorted)
    f.sorted = referenceSorted(m, o, f.windowLineFetches);
  return f;
}

void expectNear(double actual, double expected, const char *what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::fabs(expected)))
      << what;
}

void expectSameFeatures(const Features &a, const Features &e) {
  EXPECT_EQ(a.rowNnzHistogram, e.rowNnzHistogram);
  expectNear(a.warpLoadMean, e.warpLoadMean, "warpLoadMean");
  expectNear(a.warpLoadStd, e.warpLoadStd, "warpLoadStd");
  EXPECT_EQ(a.warpLoadMax, e.warpLoadMax);
  EXPECT_EQ(a.ctaMaxWarpLoadSum, e.ctaMaxWarpLoadSum);
  expectNear(a.ctaImbalanceMean, e.ctaImbalanceMean, "ctaImbalanceMean");
  expectNear(a.ctaImbalanceMax, e.ctaImbalanceMax, "ctaImbalanceMax");
  expectNear(a.bitmaskDensity, e.bitmaskDensity, "bitmaskDensity");
  expectNear(a.hammingAdjacentMean, e.hammingAdjacentMean, "adjacentMean");
  expectNear(a.hammingAdjacentStd, e.hammingAdjacentStd, "adjacentStd");
  expectNear(a.hammingWarpMean, e.hammingWarpMean, "warpMean");
  expectNear(a.hammingWarpStd, e.hammingWarpStd, "warpStd");
  EXPECT_EQ(a.windowLineFetches, e.windowLineFetches);
  expectNear(a.lineReuse, e.lineReuse, "lineReuse");
  expectNear(a.warpUtilization, e.warpUtilization, "warpUtilization");
  expectNear(a.columnSpanMean, e.columnSpanMean, "columnSpanMean");
  expectNear(a.sameLineFraction, e.sameLineFraction, "sameLineFraction");
  for (auto [x, y] : {std::pair{&a.blocks16, &e.blocks16},
                      std::pair{&a.blocks32, &e.blocks32}}) {
    EXPECT_EQ(x->tau, y->tau);
    EXPECT_EQ(x->nonzeroBlocks, y->nonzeroBlocks) << "tau " << y->tau;
    EXPECT_EQ(x->densityHistogram, y->densityHistogram) << "tau " << y->tau;
    expectNear(x->meanDensity, y->meanDensity, "meanDensity");
    expectNear(x->denseNnzShare, y->denseNnzShare, "denseNnzShare");
  }
  EXPECT_EQ(a.sorted.windowLineFetches, e.sorted.windowLineFetches);
  expectNear(a.sorted.fetchRatio, e.sorted.fetchRatio, "sorted.fetchRatio");
  expectNear(a.sorted.dense16NnzShare, e.sorted.dense16NnzShare,
             "sorted.dense16NnzShare");
  expectNear(a.sorted.dense32NnzShare, e.sorted.dense32NnzShare,
             "sorted.dense32NnzShare");
}

/// Small generated matrices of every shape the generators make.
std::vector<std::pair<std::string, CsrMatrix>> smallMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("uniform", generateUniform(300, 500, 0.02, 1));
  ms.emplace_back("uniform-wide", generateUniform(37, 5000, 0.01, 2));
  ms.emplace_back("rmat", generateRmat(9, 8, 3));
  ms.emplace_back("banded", generateBanded(301, 7, 4));
  ms.emplace_back("block-sparse", generateBlockSparse(200, 170, 8, 0.2, 5));
  ms.emplace_back("block-sparse-16", generateBlockSparse(96, 96, 16, 0.5, 6));
  ms.emplace_back("skewed", generateSkewed(500, 3000, 7));
  ms.emplace_back("skewed-shuffled",
                  shuffleRows(generateSkewed(257, 900, 8), 9));
  ms.emplace_back("tiny", generateUniform(5, 3, 0.5, 10));
  return ms;
}

std::vector<FeatureOptions> someOptions() {
  return {options(32, 32, 4), options(4, 8, 1),   options(7, 3, 3),
          options(1, 1, 1),   options(64, 16, 2), options(100, 32, 1),
          options(63, 64, 5)};
}

TEST(FeaturesTest, MatchesDefinitions) {
  for (const auto &[name, m] : smallMatrices()) {
    for (const FeatureOptions &o : someOptions()) {
      SCOPED_TRACE(name + " warps=" + std::to_string(o.warps) +
                   " line=" + std::to_string(o.lineWidth) +
                   " rowsPerWarp=" + std::to_string(o.rowsPerWarp));
      expectSameFeatures(computeFeatures(m, o), referenceFeatures(m, o));
    }
  }
}

TEST(FeaturesTest, AgreesWithEvaluatePermutationForIdentity) {
  std::vector<std::pair<std::string, CsrMatrix>> ms = smallMatrices();
  ms.emplace_back("rmat-12", generateRmat(12, 8, 11));
  ms.emplace_back("uniform-big", generateUniform(3000, 4000, 0.003, 12));
  for (const auto &[name, m] : ms) {
    std::vector<int32_t> identity(m.rows);
    std::iota(identity.begin(), identity.end(), 0);
    for (const FeatureOptions &o : someOptions()) {
      SCOPED_TRACE(name + " warps=" + std::to_string(o.warps) +
                   " line=" + std::to_string(o.lineWidth));
      PermutationOptions p;
      p.warps = o.warps;
      p.lineWidth = o.lineWidth;
      p.rowsPerWarp = o.rowsPerWarp;
      PermutationQuality q = evaluatePermutation(m, identity, p);
      Features f = computeFeatures(m, o);
      EXPECT_EQ(f.ctaMaxWarpLoadSum, q.ctaMaxWarpLoadSum);
      EXPECT_EQ(f.windowLineFetches, q.windowLineFetches);
      EXPECT_DOUBLE_EQ(f.hammingAdjacentMean, q.hammingAdjacentMean);
      EXPECT_DOUBLE_EQ(f.hammingWarpMean, q.hammingWarpMean);
    }
  }
}

// Basic stats are computeBasicStats()'s; permuting rows changes the order
// features but not the order-free ones.
TEST(FeaturesTest, OrderFreeFeaturesIgnoreRowOrder) {
  CsrMatrix m = generateSkewed(700, 2000, 13);
  CsrMatrix s = shuffleRows(m, 14);
  Features a = computeFeatures(m), b = computeFeatures(s);
  BasicStats stats = computeBasicStats(m);
  EXPECT_EQ(a.basic.nnz, stats.nnz);
  EXPECT_EQ(a.basic.emptyRows, stats.emptyRows);
  EXPECT_EQ(a.basic.rowNnzStd, stats.rowNnzStd);
  EXPECT_EQ(a.rowNnzHistogram, b.rowNnzHistogram);
  EXPECT_EQ(a.warpLoadMean, b.warpLoadMean);
  EXPECT_EQ(a.warpLoadMax, b.warpLoadMax);
  EXPECT_EQ(a.bitmaskDensity, b.bitmaskDensity);
  EXPECT_EQ(a.warpUtilization, b.warpUtilization);
  EXPECT_EQ(a.sameLineFraction, b.sameLineFraction);
  EXPECT_DOUBLE_EQ(a.columnSpanMean, b.columnSpanMean);
}

// The sorted order undoes a row shuffle of a band or of block rows: the
// features in it are those of the stored order of the unshuffled matrix,
// and the stored order's fetches over them say how much was lost.
TEST(FeaturesTest, SortedOrderRecoversShuffledStructure) {
  for (const auto &[name, m] :
       {std::pair{std::string("banded"), generateBanded(2000, 6, 21)},
        std::pair{std::string("block"),
                  generateBlockSparse(1024, 1024, 16, 0.05, 22)}}) {
    SCOPED_TRACE(name);
    CsrMatrix shuffled = shuffleRows(m, 23);
    Features a = computeFeatures(m), b = computeFeatures(shuffled);
    // A band's first columns never decrease: it is its own sorted order.
    if (name == "banded") {
      EXPECT_EQ(a.sorted.windowLineFetches, a.windowLineFetches);
      EXPECT_DOUBLE_EQ(a.sorted.fetchRatio, 1.0);
      EXPECT_EQ(b.sorted.windowLineFetches, a.windowLineFetches);
    }
    EXPECT_LE(b.sorted.windowLineFetches, a.windowLineFetches);
    EXPECT_GT(b.sorted.fetchRatio, 1.5);
    EXPECT_LT(b.blocks16.denseNnzShare, 0.1);
    EXPECT_GT(b.sorted.dense16NnzShare, 0.5);
  }
  Features empty = computeFeatures(CsrMatrix());
  EXPECT_EQ(empty.sorted.windowLineFetches, 0);
  EXPECT_DOUBLE_EQ(empty.sorted.fetchRatio, 1.0);
}

} // namespace
