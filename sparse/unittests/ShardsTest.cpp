//===- ShardsTest.cpp - Cutting rows into shards ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// planShards on hand-checked cases, its invariants on generated matrices
// (bounds cover the rows, every shard non-empty, a balanced shard is off the
// ideal share by less than its heaviest row), the balanced cut against the
// equal-rows cut on R-MAT, and sliceRows against the entries it must keep.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Shards.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace spperm;

namespace {

/// A matrix whose rows have `lengths` entries (columns 0, 1, ...).
CsrMatrix withLengths(const std::vector<int32_t> &lengths, int32_t cols) {
  CsrMatrix m;
  m.rows = static_cast<int32_t>(lengths.size());
  m.cols = cols;
  for (int32_t n : lengths) {
    for (int32_t c = 0; c < n; ++c) {
      m.colIdx.push_back(c);
      m.values.push_back(1.0f + c);
    }
    m.rowPtr.push_back(static_cast<int32_t>(m.colIdx.size()));
  }
  return m;
}

TEST(ShardsTest, Names) {
  EXPECT_EQ(shardCutName(ShardCut::Balanced), "balanced");
  EXPECT_EQ(shardCutName(ShardCut::EqualRows), "equal-rows");
  EXPECT_EQ(parseShardCut("balanced"), ShardCut::Balanced);
  EXPECT_EQ(parseShardCut("equal-rows"), ShardCut::EqualRows);
  EXPECT_FALSE(parseShardCut("equal"));
}

TEST(ShardsTest, OneShardIsTheWholeMatrix) {
  CsrMatrix m = withLengths({3, 0, 5}, 8);
  StatusOr<std::vector<int32_t>> b = planShards(m, 1, ShardCut::Balanced);
  ASSERT_TRUE(b.isOk()) << b.message();
  EXPECT_EQ(*b, (std::vector<int32_t>{0, 3}));
}

TEST(ShardsTest, HandChecked) {
  // Weights 10, 1, 1, 1, 1, 1, 1, 1, 1, 10: total 28, halves at 14.
  CsrMatrix m = withLengths({9, 0, 0, 0, 0, 0, 0, 0, 0, 9}, 16);
  StatusOr<std::vector<int32_t>> b = planShards(m, 2, ShardCut::Balanced);
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(*b, (std::vector<int32_t>{0, 5, 10}));
  // A heavy first row: the balanced cut gives it a shard of its own.
  CsrMatrix skewed = withLengths({30, 1, 1, 1, 1, 1}, 32);
  b = planShards(skewed, 2, ShardCut::Balanced);
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(*b, (std::vector<int32_t>{0, 1, 6}));
  b = planShards(skewed, 2, ShardCut::EqualRows);
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(*b, (std::vector<int32_t>{0, 3, 6}));
  // As many shards as rows: one row each, whatever the weights.
  b = planShards(skewed, 6, ShardCut::Balanced);
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(*b, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(ShardsTest, RefusesBadCounts) {
  CsrMatrix m = withLengths({1, 2, 3}, 4);
  for (int32_t n : {0, -1, 4}) {
    StatusOr<std::vector<int32_t>> b = planShards(m, n, ShardCut::Balanced);
    ASSERT_FALSE(b.isOk()) << n;
    EXPECT_NE(b.message().find("shards must be an integer in [1, 3]"),
              std::string::npos)
        << b.message();
  }
}

/// The invariants of a cut, and for a balanced one its quality: no shard
/// exceeds the ideal share by its heaviest row or more.
void checkCut(const CsrMatrix &m, int32_t n, ShardCut cut) {
  StatusOr<std::vector<int32_t>> b = planShards(m, n, cut);
  ASSERT_TRUE(b.isOk()) << b.message();
  ASSERT_EQ(b->size(), static_cast<size_t>(n) + 1);
  EXPECT_EQ(b->front(), 0);
  EXPECT_EQ(b->back(), m.rows);
  for (int32_t i = 0; i < n; ++i)
    EXPECT_LT((*b)[i], (*b)[i + 1]) << "shard " << i << " is empty";
  if (cut != ShardCut::Balanced)
    return;
  std::vector<double> w = shardWeights(m, *b);
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  double heaviest = 0;
  for (int32_t r = 0; r < m.rows; ++r)
    heaviest = std::max(heaviest, rowWeight(m.rowLength(r)));
  for (double x : w)
    EXPECT_LE(x, total / n + heaviest + 1e-9);
}

TEST(ShardsTest, InvariantsOnGeneratedMatrices) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const CsrMatrix uniform = generateUniform(500 + 37 * seed, 300, 0.02, seed);
    const CsrMatrix skewed = generateSkewed(400 + 11 * seed, 400, seed);
    const CsrMatrix rmat = generateRmat(10, 8, seed);
    for (const CsrMatrix *m : {&uniform, &skewed, &rmat})
      for (int32_t n : {1, 2, 3, 4, 7, 8})
        for (ShardCut cut : {ShardCut::Balanced, ShardCut::EqualRows})
          checkCut(*m, n, cut);
  }
}

TEST(ShardsTest, BalancedBeatsEqualRowsOnRmat) {
  // R-MAT's heavy rows are the low ones: equal rows leave rank 0 far
  // behind; the balanced cut stays within a few % of the ideal.
  const CsrMatrix m = generateRmat(14, 16, 3);
  for (int32_t n : {2, 4, 8}) {
    auto maxOverMean = [&](ShardCut cut) {
      std::vector<double> w = shardWeights(m, *planShards(m, n, cut));
      return *std::max_element(w.begin(), w.end()) /
             (std::accumulate(w.begin(), w.end(), 0.0) / n);
    };
    EXPECT_LT(maxOverMean(ShardCut::Balanced), 1.02) << n;
    EXPECT_GT(maxOverMean(ShardCut::EqualRows), 1.3) << n;
  }
}

TEST(ShardsTest, SliceRowsKeepsTheEntries) {
  const CsrMatrix m = generateUniform(200, 150, 0.05, 9);
  std::vector<int32_t> bounds = *planShards(m, 5, ShardCut::Balanced);
  int64_t nnz = 0;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    CsrMatrix s = sliceRows(m, bounds[i], bounds[i + 1]);
    ASSERT_TRUE(s.verify().isOk()) << s.verify().message();
    EXPECT_EQ(s.cols, m.cols);
    EXPECT_EQ(s.rows, bounds[i + 1] - bounds[i]);
    for (int32_t r = 0; r < s.rows; ++r) {
      const int32_t src = bounds[i] + r;
      ASSERT_EQ(s.rowLength(r), m.rowLength(src));
      for (int32_t e = 0; e < s.rowLength(r); ++e) {
        EXPECT_EQ(s.colIdx[s.rowPtr[r] + e], m.colIdx[m.rowPtr[src] + e]);
        EXPECT_EQ(s.values[s.rowPtr[r] + e], m.values[m.rowPtr[src] + e]);
      }
    }
    nnz += s.nnz();
  }
  EXPECT_EQ(nnz, m.nnz());
  EXPECT_EQ(sliceRows(m, 7, 7).rows, 0);
}

} // namespace
