//===- GeneratorsTest.cpp - Tests of the synthetic matrices -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Each generator against a brute-force statement of its definition, on
// several shapes and seeds.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Generators.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

using namespace spperm;

namespace {

/// The (row, column) pairs of `m`.
std::set<std::pair<int32_t, int32_t>> entries(const CsrMatrix &m) {
  std::set<std::pair<int32_t, int32_t>> out;
  for (int32_t r = 0; r < m.rows; ++r)
    for (int32_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p)
      out.insert({r, m.colIdx[p]});
  return out;
}

TEST(GenerateStencil, MatchesTheNeighbourDefinition) {
  struct Case {
    int32_t side;
    int dims, points;
  };
  for (const Case &c : {Case{1, 2, 5}, Case{7, 2, 5}, Case{6, 2, 9},
                        Case{5, 3, 7}, Case{4, 3, 27}, Case{2, 3, 27}}) {
    SCOPED_TRACE(testing::Message() << c.side << "^" << c.dims << " "
                                    << c.points << "-point");
    CsrMatrix m = generateStencil(c.side, c.dims, c.points, 3);
    ASSERT_TRUE(m.verify().isOk()) << m.verify().message();
    const int32_t zs = c.dims == 3 ? c.side : 1;
    ASSERT_EQ(m.rows, zs * c.side * c.side);
    std::set<std::pair<int32_t, int32_t>> want;
    for (int32_t i = 0; i < m.rows; ++i)
      for (int32_t j = 0; j < m.rows; ++j) {
        const int32_t d[3] = {i / (c.side * c.side) - j / (c.side * c.side),
                              i / c.side % c.side - j / c.side % c.side,
                              i % c.side - j % c.side};
        const int chebyshev =
            std::max({std::abs(d[0]), std::abs(d[1]), std::abs(d[2])});
        const int manhattan = std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]);
        const bool full = c.points == 9 || c.points == 27;
        if (chebyshev <= 1 && (full || manhattan <= 1))
          want.insert({i, j});
      }
    EXPECT_EQ(entries(m), want);
  }
}

TEST(GenerateCommunities, EntriesStayInTheirCommunityUnlessOutside) {
  for (uint64_t seed : {1, 2, 3}) {
    const int32_t rows = 300, cols = 120, communities = 6;
    // No out-degree: every entry inside the row's community's columns.
    CsrMatrix inside =
        generateCommunities(rows, cols, communities, 9.0, 0.0, seed);
    ASSERT_TRUE(inside.verify().isOk()) << inside.verify().message();
    ASSERT_EQ(inside.rows, rows);
    ASSERT_EQ(inside.cols, cols);
    for (int32_t r = 0; r < rows; ++r) {
      const int32_t g = r * communities / rows;
      const int32_t lo = g * cols / communities, hi = (g + 1) * cols / communities;
      const int32_t length = inside.rowPtr[r + 1] - inside.rowPtr[r];
      EXPECT_GE(length, 8) << "row " << r;
      EXPECT_LE(length, 11) << "row " << r;
      for (int32_t p = inside.rowPtr[r]; p < inside.rowPtr[r + 1]; ++p) {
        EXPECT_GE(inside.colIdx[p], lo) << "row " << r;
        EXPECT_LT(inside.colIdx[p], hi) << "row " << r;
      }
    }
    // With out-degree 3, about 3 entries per row fall anywhere: the mean
    // row is near 12, and some entries leave the community.
    CsrMatrix mixed =
        generateCommunities(rows, cols, communities, 9.0, 3.0, seed);
    const double mean = static_cast<double>(mixed.nnz()) / rows;
    EXPECT_GT(mean, 10.5);
    EXPECT_LT(mean, 12.5);
    int64_t outside = 0;
    for (int32_t r = 0; r < rows; ++r) {
      const int32_t g = r * communities / rows;
      const int32_t lo = g * cols / communities, hi = (g + 1) * cols / communities;
      for (int32_t p = mixed.rowPtr[r]; p < mixed.rowPtr[r + 1]; ++p)
        outside += mixed.colIdx[p] < lo || mixed.colIdx[p] >= hi;
    }
    EXPECT_GT(outside, rows);
  }
}

TEST(GenerateCommunities, DegreesLargerThanTheCommunityAreClipped) {
  // 4 columns per community and 10 wanted inside: the row is the whole
  // community.
  CsrMatrix m = generateCommunities(40, 16, 4, 10.0, 0.0, 5);
  ASSERT_TRUE(m.verify().isOk()) << m.verify().message();
  for (int32_t r = 0; r < m.rows; ++r)
    EXPECT_EQ(m.rowPtr[r + 1] - m.rowPtr[r], 4) << "row " << r;
  // Empty shapes.
  EXPECT_EQ(generateCommunities(0, 10, 3, 4.0, 1.0, 1).nnz(), 0);
  EXPECT_EQ(generateCommunities(10, 0, 3, 4.0, 1.0, 1).nnz(), 0);
}

TEST(GenerateCommunities, LargeDegreesAreReached) {
  // An integer mean degree gives mean - 1, mean or mean + 1 entries. With
  // few repeated draws among 10^6 columns every row reaches that, however
  // large the degree (the draw budget once shrank with each column found,
  // which stopped rows near 89 % of a large degree).
  CsrMatrix m = generateCommunities(4, 1000000, 1, 5000.0, 0.0, 3);
  ASSERT_TRUE(m.verify().isOk()) << m.verify().message();
  for (int32_t r = 0; r < m.rows; ++r) {
    EXPECT_GE(m.rowPtr[r + 1] - m.rowPtr[r], 4999) << "row " << r;
    EXPECT_LE(m.rowPtr[r + 1] - m.rowPtr[r], 5001) << "row " << r;
  }
}

TEST(Generators, SameSeedSameMatrix) {
  EXPECT_EQ(entries(generateCommunities(500, 400, 7, 6.0, 2.0, 11)),
            entries(generateCommunities(500, 400, 7, 6.0, 2.0, 11)));
  EXPECT_NE(entries(generateCommunities(500, 400, 7, 6.0, 2.0, 11)),
            entries(generateCommunities(500, 400, 7, 6.0, 2.0, 12)));
  CsrMatrix a = generateStencil(9, 2, 9, 4), b = generateStencil(9, 2, 9, 4);
  EXPECT_EQ(a.values, b.values);
}

} // namespace
