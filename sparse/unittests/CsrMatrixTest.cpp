//===- CsrMatrixTest.cpp - Tests of CsrMatrix and buildCsr ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "SparseTestUtil.h"

#include "spperm/Sparse/CsrMatrix.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

CooTriplets makeCoo(int64_t rows, int64_t cols,
                    std::vector<std::tuple<int32_t, int32_t, double>> es) {
  CooTriplets coo;
  coo.rows = rows;
  coo.cols = cols;
  for (auto [r, c, v] : es) {
    coo.row.push_back(r);
    coo.col.push_back(c);
    coo.value.push_back(v);
  }
  return coo;
}

TEST(BuildCsr, SortsRowsAndColumns) {
  CsrMatrix m = buildCsr(
      makeCoo(3, 4, {{2, 3, 1}, {0, 2, 2}, {2, 0, 3}, {0, 0, 4}, {1, 1, 5}}));
  ASSERT_TRUE(m.verify().isOk()) << m.verify().message();
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.rowPtr, (std::vector<int32_t>{0, 2, 3, 5}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 2, 1, 0, 3}));
  EXPECT_EQ(m.values, (std::vector<float>{4, 2, 5, 3, 1}));
}

TEST(BuildCsr, SumsDuplicatesInDoubleInInputOrder) {
  // In float, 2^24 + 1 + 1 stays 2^24; in double it is 2^24 + 2, which float
  // represents exactly.
  CsrMatrix m = buildCsr(
      makeCoo(2, 2, {{1, 1, 16777216.0}, {0, 1, 7}, {1, 1, 1}, {1, 1, 1}}));
  ASSERT_TRUE(m.verify().isOk());
  EXPECT_EQ(m.nnz(), 2);
  EXPECT_EQ(entriesOf(m), (EntryMap{{{0, 1}, 7.0f}, {{1, 1}, 16777218.0f}}));
}

TEST(BuildCsr, KeepsExplicitZerosAndZeroSums) {
  CsrMatrix m = buildCsr(
      makeCoo(2, 3, {{0, 0, 0.0}, {1, 2, 1.5}, {1, 2, -1.5}, {0, 1, 2}}));
  ASSERT_TRUE(m.verify().isOk());
  EXPECT_EQ(m.nnz(), 3);
  EXPECT_EQ(entriesOf(m),
            (EntryMap{{{0, 0}, 0.0f}, {{0, 1}, 2.0f}, {{1, 2}, 0.0f}}));
}

TEST(BuildCsr, EmptyShapes) {
  CsrMatrix empty = buildCsr(makeCoo(0, 0, {}));
  EXPECT_TRUE(empty.verify().isOk());
  EXPECT_EQ(empty.rowPtr, std::vector<int32_t>{0});
  CsrMatrix noEntries = buildCsr(makeCoo(3, 0, {}));
  EXPECT_TRUE(noEntries.verify().isOk());
  EXPECT_EQ(noEntries.rowPtr, (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(noEntries.nnz(), 0);
}

TEST(BuildCsr, RandomAgainstReference) {
  // Shapes from one long row (the counting-sort path for long unsorted
  // rows) to many short ones (insertion sort), with many duplicates whose
  // double sums depend on the order they are added in: (1e17 + 1) - 1e17 is
  // 0 but (1e17 - 1e17) + 1 is 1.
  std::mt19937 rng(5);
  const double pool[] = {1e17, -1e17, 1.0, 3.0, 0.25};
  auto value = [&](std::mt19937 &g) { return pool[g() % 5]; };
  const std::pair<int32_t, int32_t> shapes[] = {
      {1, 50}, {1, 5000}, {3, 200}, {50, 50}, {200, 7}, {1000, 1000}};
  for (auto [rows, cols] : shapes) {
    for (int sortedInput = 0; sortedInput < 2; ++sortedInput) {
      CooTriplets coo;
      coo.rows = rows;
      coo.cols = cols;
      const int n = 4000;
      for (int i = 0; i < n; ++i) {
        coo.row.push_back(static_cast<int32_t>(rng() % rows));
        coo.col.push_back(static_cast<int32_t>(rng() % cols));
        coo.value.push_back(value(rng));
      }
      if (sortedInput) {
        // Row-major order (with duplicates still in some order).
        std::vector<size_t> order(n);
        for (int i = 0; i < n; ++i)
          order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          return std::pair(coo.row[a], coo.col[a]) <
                 std::pair(coo.row[b], coo.col[b]);
        });
        CooTriplets sorted = coo;
        for (int i = 0; i < n; ++i) {
          sorted.row[i] = coo.row[order[i]];
          sorted.col[i] = coo.col[order[i]];
          sorted.value[i] = coo.value[order[i]];
        }
        coo = sorted;
      }
      std::map<std::pair<int32_t, int32_t>, double> sums;
      for (int i = 0; i < n; ++i)
        sums[{coo.row[i], coo.col[i]}] += coo.value[i];
      EntryMap want;
      for (auto &[k, v] : sums)
        want[k] = static_cast<float>(v);
      CsrMatrix m = buildCsr(coo);
      ASSERT_TRUE(m.verify().isOk()) << m.verify().message();
      EXPECT_EQ(m.nnz(), static_cast<int64_t>(want.size()));
      EXPECT_EQ(entriesOf(m), want) << rows << " x " << cols;
    }
  }
}

CsrMatrix validMatrix() {
  return buildCsr(makeCoo(2, 3, {{0, 0, 1}, {0, 2, 2}, {1, 1, 3}}));
}

TEST(CsrMatrixVerify, AcceptsValid) {
  EXPECT_TRUE(validMatrix().verify().isOk());
  EXPECT_TRUE(CsrMatrix().verify().isOk());
}

TEST(CsrMatrixVerify, RejectsEachBrokenInvariant) {
  auto expectBroken = [](CsrMatrix m, const char *words) {
    Status s = m.verify();
    ASSERT_FALSE(s.isOk()) << words;
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
  };
  CsrMatrix m = validMatrix();
  m.rowPtr.pop_back();
  expectBroken(m, "rowPtr has 2 entries, expected rows + 1 = 3");
  m = validMatrix();
  m.values.pop_back();
  expectBroken(m, "values has 2 entries but colIdx has 3");
  m = validMatrix();
  m.rowPtr[0] = 1;
  expectBroken(m, "rowPtr[0] is 1");
  m = validMatrix();
  m.rowPtr[2] = 2;
  expectBroken(m, "rowPtr[rows] is 2");
  m = validMatrix();
  m.rowPtr[1] = 4;
  m.rowPtr[2] = 3;
  expectBroken(m, "rowPtr decreases at row 1 (4 then 3)");
  m = validMatrix();
  m.colIdx[1] = 3;
  expectBroken(m, "column 3 in row 0 is out of range [0, 3)");
  m = validMatrix();
  m.colIdx[1] = 0;
  expectBroken(m, "columns of row 0 are not strictly increasing");
  m = validMatrix();
  m.rows = -1;
  expectBroken(m, "negative dimensions");
}

} // namespace
