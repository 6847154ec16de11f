//===- PermutationTest.cpp - Properties of every strategy -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Properties every strategy must have, checked through computePermutation on
// random and adversarial matrices: a valid permutation, determinism, and
// option validation. The family tests (LoadBalanceTest, CacheAwareTest,
// BsaTest) check what each strategy optimizes.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Permutation.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

using namespace spperm;

namespace {

CsrMatrix fromEntries(int32_t rows, int32_t cols,
                      std::vector<std::pair<int32_t, int32_t>> entries) {
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  for (auto [r, c] : entries) {
    coo.row.push_back(r);
    coo.col.push_back(c);
    coo.value.push_back(1.0);
  }
  return buildCsr(coo);
}

/// The adversarial shapes of the issue, plus random ones.
std::vector<std::pair<std::string, CsrMatrix>> adversarialMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> ms;
  ms.emplace_back("0x0", fromEntries(0, 0, {}));
  ms.emplace_back("0x7", fromEntries(0, 7, {}));
  ms.emplace_back("5x0", fromEntries(5, 0, {}));
  ms.emplace_back("1x1", fromEntries(1, 1, {{0, 0}}));
  ms.emplace_back("all-empty-100x50", fromEntries(100, 50, {}));
  std::vector<std::pair<int32_t, int32_t>> dense;
  for (int32_t c = 0; c < 300; ++c)
    dense.push_back({17, c});
  ms.emplace_back("one-dense-row", fromEntries(40, 300, dense));
  std::vector<std::pair<int32_t, int32_t>> same;
  for (int32_t r = 0; r < 70; ++r)
    for (int32_t c : {3, 40, 41, 99})
      same.push_back({r, c});
  ms.emplace_back("identical-rows", fromEntries(70, 100, same));
  ms.emplace_back("m<32", generateUniform(13, 60, 0.2, 1));
  ms.emplace_back("m%32!=0", generateUniform(1000 + 7, 500, 0.01, 2));
  ms.emplace_back("tall", generateUniform(3000, 20, 0.1, 3));
  ms.emplace_back("wide", generateUniform(20, 5000, 0.01, 4));
  ms.emplace_back("skewed", generateSkewed(2000, 1500, 5));
  ms.emplace_back("rmat", generateRmat(11, 8, 6));
  ms.emplace_back("banded-shuffled", shuffleRows(generateBanded(777, 3, 7), 8));
  ms.emplace_back("blocks", generateBlockSparse(256, 512, 16, 0.1, 9));
  return ms;
}

TEST(Permutation, EveryStrategyGivesAValidDeterministicPermutation) {
  for (const auto &[name, m] : adversarialMatrices()) {
    ASSERT_TRUE(m.verify().isOk()) << name;
    for (Strategy s : kAllStrategies) {
      for (int32_t warps : {1, 4, 32}) {
        PermutationOptions o;
        o.strategy = s;
        o.warps = warps;
        StatusOr<Permutation> a = computePermutation(m, o);
        ASSERT_TRUE(a.isOk()) << name << " " << strategyCliName(s);
        EXPECT_TRUE(isPermutation(a->order, m.rows))
            << name << " " << strategyCliName(s) << " warps=" << warps;
        StatusOr<Permutation> b = computePermutation(m, o);
        ASSERT_TRUE(b.isOk());
        EXPECT_EQ(a->order, b->order)
            << "not deterministic: " << name << " " << strategyCliName(s);
        if (s == Strategy::Bsa) {
          int64_t clustered = std::accumulate(a->clusterSizes.begin(),
                                              a->clusterSizes.end(),
                                              int64_t(0));
          int64_t empty = 0;
          for (int32_t r = 0; r < m.rows; ++r)
            empty += m.rowLength(r) == 0;
          EXPECT_EQ(clustered + empty, m.rows) << name;
        } else {
          EXPECT_TRUE(a->clusterSizes.empty()) << strategyCliName(s);
        }
      }
    }
  }
}

TEST(Permutation, ExactModeIsValidToo) {
  CsrMatrix m = generateUniform(300, 200, 0.05, 11);
  for (Strategy s : kAllStrategies) {
    PermutationOptions o;
    o.strategy = s;
    o.candidateLimit = 0;
    StatusOr<Permutation> p = computePermutation(m, o);
    ASSERT_TRUE(p.isOk());
    EXPECT_TRUE(isPermutation(p->order, m.rows)) << strategyCliName(s);
  }
}

TEST(Permutation, IdentityIsIdentity) {
  CsrMatrix m = generateUniform(100, 100, 0.05, 12);
  PermutationOptions o;
  StatusOr<Permutation> p = computePermutation(m, o);
  ASSERT_TRUE(p.isOk());
  std::vector<int32_t> expected(100);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(p->order, expected);
}

TEST(Permutation, OptionsAreValidated) {
  CsrMatrix m = generateUniform(10, 10, 0.2, 13);
  auto expectError = [&](PermutationOptions o, const std::string &what) {
    StatusOr<Permutation> p = computePermutation(m, o);
    ASSERT_FALSE(p.isOk()) << what;
    EXPECT_NE(p.message().find(what), std::string::npos) << p.message();
  };
  PermutationOptions o;
  o.warps = 0;
  expectError(o, "warps must be in [1, 1024], got 0");
  o = {};
  o.lineWidth = 48;
  expectError(o, "line width must be a power of two");
  o = {};
  o.rowsPerWarp = 0;
  expectError(o, "rows per warp must be in [1, 1024]");
  o = {};
  o.tau = 0;
  expectError(o, "tau must be in [1, 1024]");
  o = {};
  o.alpha = 0.0;
  expectError(o, "alpha must be in (0, 1]");
  o = {};
  o.alpha = 1.5;
  expectError(o, "alpha must be in (0, 1]");
  o = {};
  o.candidateLimit = -1;
  expectError(o, "candidate limit must be >= 0");
}

TEST(Permutation, IsPermutation) {
  EXPECT_TRUE(isPermutation({}, 0));
  EXPECT_TRUE(isPermutation({2, 0, 1}, 3));
  EXPECT_FALSE(isPermutation({0, 0, 1}, 3));
  EXPECT_FALSE(isPermutation({0, 1}, 3));
  EXPECT_FALSE(isPermutation({0, 1, 3}, 3));
  EXPECT_FALSE(isPermutation({-1, 1, 0}, 3));
}

TEST(Permutation, QualityByHand) {
  // Rows: 0 has 40 entries (warp load 2) in lines 0-1, 1 has 1 entry in line
  // 0, 2 is empty, 3 has 1 entry in line 3.
  std::vector<std::pair<int32_t, int32_t>> e;
  for (int32_t c = 0; c < 40; ++c)
    e.push_back({0, c});
  e.push_back({1, 5});
  e.push_back({3, 100});
  CsrMatrix m = fromEntries(4, 128, e);
  PermutationOptions o;
  o.warps = 2;
  o.rowsPerWarp = 1; // windows of 2 rows
  PermutationQuality q = evaluatePermutation(m, {0, 1, 2, 3}, o);
  // Windows {0,1}: max(2, 1) = 2; {2,3}: max(0, 1) = 1.
  EXPECT_EQ(q.ctaMaxWarpLoadSum, 3);
  // Lines: row0 {0,1}, row1 {0}, row2 {}, row3 {3}.
  // Adjacent: d(0,1)=1, d(1,2)=1, d(2,3)=1 -> 1. Warp (gap 2): d(0,2)=2,
  // d(1,3)=2 -> 2.
  EXPECT_DOUBLE_EQ(q.hammingAdjacentMean, 1.0);
  EXPECT_DOUBLE_EQ(q.hammingWarpMean, 2.0);
  // Window {0,1}: lines {0,1} = 2; window {2,3}: {3} = 1.
  EXPECT_EQ(q.windowLineFetches, 3);

  PermutationQuality swapped = evaluatePermutation(m, {0, 2, 1, 3}, o);
  // Windows {0,2}: 2; {1,3}: 1 -> 3. Lines {0,1} + {0,3} = 4.
  EXPECT_EQ(swapped.ctaMaxWarpLoadSum, 3);
  EXPECT_EQ(swapped.windowLineFetches, 4);
}

} // namespace
