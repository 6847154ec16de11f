//===- FormatsBellTest.cpp - Tests of the bell format -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// bell's dense/residual split against a direct tile count, ELL and HYB as
// bell with tau = 1, the delta search, and the cost model.
//
//===----------------------------------------------------------------------===//

#include "FormatsTestUtil.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

/// tile (br, bc) -> entries of P = permuteRows(m, order).
std::map<std::pair<int32_t, int32_t>, int32_t>
tileCounts(const CsrMatrix &p, int32_t tau) {
  std::map<std::pair<int32_t, int32_t>, int32_t> out;
  for (int32_t r = 0; r < p.rows; ++r)
    for (int32_t e = p.rowPtr[r]; e < p.rowPtr[r + 1]; ++e)
      ++out[{r / tau, p.colIdx[e] / tau}];
  return out;
}

} // namespace

TEST(FormatsBell, SplitFollowsTheDensityRule) {
  CsrMatrix m = generateBlockSparse(200, 230, 8, 0.4, 31);
  // Sprinkle sparse entries too.
  CsrMatrix noise = generateUniform(200, 230, 0.02, 32);
  CooTriplets coo;
  coo.rows = 200;
  coo.cols = 230;
  for (const CsrMatrix *x : {&m, &noise})
    for (int32_t r = 0; r < x->rows; ++r)
      for (int32_t e = x->rowPtr[r]; e < x->rowPtr[r + 1]; ++e) {
        coo.row.push_back(r);
        coo.col.push_back(x->colIdx[e]);
        coo.value.push_back(x->values[e]);
      }
  CsrMatrix a = buildCsr(coo);
  std::vector<int32_t> order = randomOrder(a.rows, 33);
  CsrMatrix p = permuteRows(a, order);
  for (int32_t tau : {1, 2, 8, 16, 32})
    for (double delta : {0.05, 0.1, 0.5, 0.9, 1.0}) {
      FormatOptions o;
      o.kind = FormatKind::Bell;
      o.bellBlock = tau;
      o.bellDelta = delta;
      o.bellColumns = BellColumns::Blocks;
      FormattedMatrix f = buildOk(a, order, o);
      ASSERT_TRUE(verifyFormat(f, &a).isOk());
      const BellStorage &b = f.bell;
      EXPECT_FALSE(b.condensed);
      EXPECT_TRUE(b.tileCol.empty());
      EXPECT_EQ(b.delta, delta);
      EXPECT_EQ(b.blockRows, (a.rows + tau - 1) / tau);
      // Exactly the tiles of density >= delta are kept, per block row in
      // increasing block column, width = the most per block row.
      std::map<int32_t, std::vector<int32_t>> expected;
      int64_t denseNnz = 0;
      for (const auto &[tile, count] : tileCounts(p, tau))
        if (static_cast<double>(count) / (tau * tau) >= delta) {
          expected[tile.first].push_back(tile.second);
          denseNnz += count;
        }
      size_t width = 0;
      for (const auto &[br, list] : expected)
        width = std::max(width, list.size());
      ASSERT_EQ(b.width, static_cast<int32_t>(width)) << tau << " " << delta;
      EXPECT_EQ(b.denseNnz, denseNnz);
      for (int32_t br = 0; br < b.blockRows; ++br) {
        std::vector<int32_t> got;
        for (int32_t w = 0; w < b.width; ++w)
          if (b.blockCol[br * b.width + w] >= 0)
            got.push_back(b.blockCol[br * b.width + w]);
        EXPECT_EQ(got, expected[br]) << "block row " << br;
      }
      if (b.width == 0) {
        EXPECT_TRUE(b.blockCol.empty());
        EXPECT_TRUE(b.blockValues.empty());
      }
      FormatStats st = computeFormatStats(f, a);
      if (denseNnz > 0) {
        EXPECT_GE(st.fillRatio, 1.0);
        EXPECT_DOUBLE_EQ(st.denseNnzShare,
                         static_cast<double>(denseNnz) / a.nnz());
      }
    }
}

/// The split of `a` under `order` into condensed tiles of tau columns for
/// `delta`, built directly: per block row, its columns of count / tau >=
/// delta.
static void expectCondensedSplit(const CsrMatrix &a,
                                 const std::vector<int32_t> &order,
                                 int32_t tau, double delta) {
  FormatOptions o;
  o.kind = FormatKind::Bell;
  o.bellBlock = tau;
  o.bellDelta = delta;
  o.bellColumns = BellColumns::Condensed;
  FormattedMatrix f = buildOk(a, order, o);
  ASSERT_TRUE(verifyFormat(f, &a).isOk());
  const BellStorage &b = f.bell;
  ASSERT_TRUE(b.condensed);
  EXPECT_EQ(b.delta, delta);
  CsrMatrix p = permuteRows(a, order);
  std::map<int32_t, std::map<int32_t, int32_t>> counts; // br -> col -> n
  for (int32_t r = 0; r < p.rows; ++r)
    for (int32_t e = p.rowPtr[r]; e < p.rowPtr[r + 1]; ++e)
      ++counts[r / tau][p.colIdx[e]];
  std::map<int32_t, std::vector<int32_t>> expected;
  int64_t denseNnz = 0;
  size_t width = 0;
  for (const auto &[br, cols] : counts) {
    for (const auto &[c, n] : cols)
      if (static_cast<double>(n) / tau >= delta) {
        expected[br].push_back(c);
        denseNnz += n;
      }
    width = std::max(width, (expected[br].size() + tau - 1) / tau);
  }
  ASSERT_EQ(b.width, static_cast<int32_t>(width)) << tau << " " << delta;
  EXPECT_EQ(b.denseNnz, denseNnz);
  ASSERT_EQ(b.tileCol.size(), b.blockCol.size() * tau);
  for (int32_t br = 0; br < b.blockRows; ++br) {
    std::vector<int32_t> got;
    for (int64_t q = 0; q < int64_t{b.width} * tau; ++q) {
      int32_t c = b.tileCol[br * int64_t{b.width} * tau + q];
      if (c >= 0)
        got.push_back(c);
      if (q % tau == 0) {
        EXPECT_EQ(b.blockCol[br * b.width + q / tau], c);
      }
    }
    EXPECT_EQ(got, expected[br]) << "block row " << br;
  }
  // The values sit in their tile column.
  for (int32_t r = 0; r < p.rows; ++r)
    for (int32_t e = p.rowPtr[r]; e < p.rowPtr[r + 1]; ++e) {
      const int64_t br = r / tau, base = br * int64_t{b.width} * tau;
      for (int64_t q = 0; q < int64_t{b.width} * tau; ++q)
        if (b.tileCol[base + q] == p.colIdx[e]) {
          EXPECT_EQ(b.blockValues[(br * b.width + q / tau) * tau * tau +
                                  (r % tau) * tau + q % tau],
                    p.values[e]);
        }
    }
}

TEST(FormatsBell, CondensedSplitFollowsTheColumnDensityRule) {
  // Rows in groups that share scattered columns (what a clustering order
  // leaves in a block row), plus noise.
  CsrMatrix a = generateUniform(150, 400, 0.05, 41);
  std::vector<int32_t> order = randomOrder(a.rows, 42);
  for (int32_t tau : {1, 4, 16, 32})
    for (double delta : {0.05, 0.1, 0.25, 0.5, 1.0})
      expectCondensedSplit(a, order, tau, delta);
  CsrMatrix dense = generateUniform(64, 300, 0.6, 43);
  for (double delta : {0.1, 0.5, 0.75})
    expectCondensedSplit(dense, identityOrder(dense.rows), 16, delta);
}

TEST(FormatsBell, AutoColumnsTakeTheCheaperSplit) {
  // Scattered shared columns: each group of 16 rows draws 48 random
  // columns of 1024 and has each with probability 0.6, so condensed tiles
  // are 60 % dense where consecutive blocks are 3 % dense.
  CooTriplets coo;
  coo.rows = 256;
  coo.cols = 1024;
  std::mt19937_64 rng(51);
  for (int32_t g = 0; g < 16; ++g) {
    std::vector<int32_t> cols(1024);
    std::iota(cols.begin(), cols.end(), 0);
    std::shuffle(cols.begin(), cols.end(), rng);
    for (int32_t r = g * 16; r < g * 16 + 16; ++r)
      for (int32_t i = 0; i < 48; ++i)
        if (rng() % 10 < 6) {
          coo.row.push_back(r);
          coo.col.push_back(cols[i]);
          coo.value.push_back(1.0f + static_cast<float>(rng() % 7));
        }
  }
  CsrMatrix scattered = buildCsr(coo);
  FormatOptions o;
  o.kind = FormatKind::Bell;
  o.bellBlock = 16;
  o.bellColumns = BellColumns::Auto;
  FormattedMatrix f = buildOk(scattered, identityOrder(256), o);
  EXPECT_TRUE(f.bell.condensed);
  EXPECT_TRUE(verifyFormat(f, &scattered).isOk());
  // Aligned dense blocks: consecutive blocks store the same tiles without
  // the column lists, so they win.
  CsrMatrix blocks = generateBlockSparse(256, 256, 16, 0.3, 52);
  FormattedMatrix g = buildOk(blocks, identityOrder(256), o);
  EXPECT_FALSE(g.bell.condensed);
  EXPECT_GT(g.bell.width, 0);
  // Whichever wins is the cheaper of the two at their own best delta.
  for (const CsrMatrix *m : {&scattered, &blocks}) {
    double cost[2];
    for (int i = 0; i < 2; ++i) {
      FormatOptions x = o;
      x.bellColumns = i ? BellColumns::Condensed : BellColumns::Blocks;
      FormattedMatrix h = buildOk(*m, identityOrder(m->rows), x);
      BellCostShape shape;
      shape.block = 16;
      shape.blockRows = h.bell.blockRows;
      shape.width = h.bell.width;
      shape.rows = m->rows;
      shape.residualNnz = h.bell.residual.nnz();
      shape.condensed = h.bell.condensed;
      cost[i] = bellCost(shape, kBellSearchK);
    }
    FormattedMatrix h = buildOk(*m, identityOrder(m->rows), o);
    EXPECT_EQ(h.bell.condensed, cost[1] < cost[0]);
  }
}

TEST(FormatsBell, EllIsTauOne) {
  // PMPP 14.4: ELL pads every row to the longest one. bell with tau = 1
  // keeps every entry (each 1 x 1 tile has density 1): blockCol row p is
  // row p's column indices padded with -1, blockValues its values padded
  // with 0 (row-major [row][slot]; PMPP stores the transpose, a kernel
  // layout choice), and the residual is empty.
  CsrMatrix m = fromRows(6, {{0, 2}, {1, 2, 3, 5}, {}, {4}});
  FormatOptions o;
  o.kind = FormatKind::Bell;
  o.bellBlock = 1;
  o.bellDelta = 0.5;
  FormattedMatrix f = buildOk(m, identityOrder(4), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  EXPECT_EQ(f.bell.width, 4);
  EXPECT_EQ(f.bell.blockCol,
            (std::vector<int32_t>{0, 2, -1, -1, 1, 2, 3, 5, -1, -1, -1, -1,
                                  4, -1, -1, -1}));
  EXPECT_EQ(f.bell.blockValues[4], m.values[2]);
  EXPECT_EQ(f.bell.blockValues[2], 0.0f);
  EXPECT_EQ(f.bell.residual.nnz(), 0);
  EXPECT_EQ(f.bell.denseNnz, m.nnz());
}

TEST(FormatsBell, HybIsTauOneWithAWidthCap) {
  // PMPP 14.5: HYB keeps the first W entries of each row in ELL and the
  // rest in COO; bell with tau = 1 and bellMaxWidth = W does the same with a
  // CSR residual (all tiles are equally dense, so the cap keeps the ones of
  // the smaller columns).
  CsrMatrix m = fromRows(8, {{0, 2}, {1, 2, 3, 5, 7}, {}, {4}, {0, 1, 2, 3}});
  FormatOptions o;
  o.kind = FormatKind::Bell;
  o.bellBlock = 1;
  o.bellMaxWidth = 2;
  FormattedMatrix f = buildOk(m, identityOrder(5), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  EXPECT_EQ(f.bell.width, 2);
  EXPECT_EQ(f.bell.blockCol,
            (std::vector<int32_t>{0, 2, 1, 2, -1, -1, 4, -1, 0, 1}));
  const CsrMatrix &res = f.bell.residual;
  EXPECT_EQ(res.rowPtr, (std::vector<int32_t>{0, 0, 3, 3, 3, 5}));
  EXPECT_EQ(res.colIdx, (std::vector<int32_t>{3, 5, 7, 2, 3}));
  for (int64_t k : {1, 7})
    expectSpmmMatches(f, m, k, "hyb");
}

TEST(FormatsBell, DeltaSearchIsDeterministicAndMinimal) {
  std::vector<CsrMatrix> ms = {generateBlockSparse(512, 512, 32, 0.2, 41),
                               generateUniform(512, 512, 0.3, 42),
                               generateUniform(512, 512, 0.01, 43),
                               generateRmat(9, 16, 44)};
  for (const CsrMatrix &m : ms) {
    std::vector<int32_t> order = randomOrder(m.rows, 45);
    FormatOptions o;
    o.kind = FormatKind::Bell;
    o.bellBlock = 32;
    FormattedMatrix f1 = buildOk(m, order, o);
    FormattedMatrix f2 = buildOk(m, order, o);
    ASSERT_TRUE(verifyFormat(f1, &m).isOk());
    EXPECT_EQ(f1.bell.delta, f2.bell.delta);
    EXPECT_EQ(f1.bell.blockCol, f2.bell.blockCol);
    EXPECT_EQ(f1.bell.blockValues, f2.bell.blockValues);
    EXPECT_EQ(f1.bell.residual.colIdx, f2.bell.residual.colIdx);
    auto costOf = [&](const FormattedMatrix &f) {
      BellCostShape s;
      s.block = f.bell.block;
      s.blockRows = f.bell.blockRows;
      s.width = f.bell.width;
      s.rows = f.rows;
      s.residualNnz = f.bell.residual.nnz();
      return bellCost(s, kBellSearchK);
    };
    double best = costOf(f1);
    // No grid delta is cheaper, and the chosen one is on the grid.
    bool onGrid = false;
    for (int i = 1; i <= 20; ++i) {
      o.bellDelta = i / 20.0;
      onGrid |= o.bellDelta == f1.bell.delta;
      EXPECT_GE(costOf(buildOk(m, order, o)), best) << o.bellDelta;
    }
    EXPECT_TRUE(onGrid) << f1.bell.delta;
    std::printf("[ delta   ] rows %d nnz %lld: delta %.2f width %d dense "
                "share %.3f\n",
                m.rows, static_cast<long long>(m.nnz()), f1.bell.delta,
                f1.bell.width,
                computeFormatStats(f1, m).denseNnzShare);
  }
}

TEST(FormatsBell, CostModelOrdersTheObviousCases) {
  // A fully dense 32 x 32 tile is cheaper than its 1024 entries in CSR; a
  // tile with one entry is dearer.
  BellCostShape dense{32, 1, 1, 32, 0};
  BellCostShape csr{32, 1, 0, 32, 1024};
  EXPECT_LT(bellCost(dense, 32), bellCost(csr, 32));
  BellCostShape lonely{32, 1, 1, 32, 0};
  BellCostShape lonelyCsr{32, 1, 0, 32, 1};
  EXPECT_GT(bellCost(lonely, 32), bellCost(lonelyCsr, 32));
}

/// Non-finite B (docs/Formats.md, "Non-finite B"): a NaN in B's row c
/// reaches C's row r in csr and hbp where A stores (r, c), explicit zeros
/// included, as a dense product over the stored entries does; in bell also
/// where a kept tile of r's block row covers column c. Property over random
/// matrices with explicit zeros, in both column modes.
TEST(FormatsBell, NonFiniteBFollowsStoredEntriesAndTiles) {
  std::mt19937_64 rng(77);
  // Rows reached through a tile alone, and through an explicit zero.
  int64_t throughTiles = 0, throughZeros = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t rows = 1 + static_cast<int32_t>(rng() % 70);
    const int32_t cols = 1 + static_cast<int32_t>(rng() % 70);
    CsrMatrix m = generateBlockSparse(rows, cols, 4, 0.3, rng());
    // Every fifth entry an explicit zero (of either sign).
    for (size_t e = 0; e < m.values.size(); e += 5)
      m.values[e] = (e / 5) % 2 ? 0.0f : -0.0f;
    const int64_t k = 1 + static_cast<int64_t>(rng() % 5);
    std::vector<float> b = randomDense(cols, k, rng());
    const int32_t nanCol = static_cast<int32_t>(rng() % cols);
    const float bad = trial % 2 ? std::numeric_limits<float>::quiet_NaN()
                                : std::numeric_limits<float>::infinity();
    for (int64_t x = 0; x < k; ++x)
      b[nanCol * k + x] = bad;
    // The rows that store column nanCol.
    std::vector<char> stores(static_cast<size_t>(rows), 0);
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
        if (m.colIdx[e] == nanCol) {
          stores[r] = 1;
          throughZeros += m.values[e] == 0.0f;
        }
    const std::vector<int32_t> order =
        randomOrder(rows, static_cast<uint64_t>(rng()));
    for (const FormatOptions &o : allConfigs()) {
      FormattedMatrix f = buildOk(m, order, o);
      std::vector<float> c(static_cast<size_t>(rows) * k);
      spmmCpu(f, b.data(), k, c.data());
      // Rows (original) whose kept tiles cover nanCol.
      std::vector<char> tiled(static_cast<size_t>(rows), 0);
      if (f.kind == FormatKind::Bell) {
        const BellStorage &bl = f.bell;
        const int64_t tau = bl.block;
        for (int64_t br = 0; br < bl.blockRows; ++br)
          for (int64_t w = 0; w < bl.width; ++w) {
            const int64_t bc = bl.blockCol[br * bl.width + w];
            if (bc < 0)
              continue;
            bool covers = false;
            for (int64_t j = 0; j < tau; ++j)
              covers |=
                  bl.condensed
                      ? bl.tileCol[(br * bl.width + w) * tau + j] == nanCol
                      : bc * tau + j == nanCol;
            for (int64_t i = 0; covers && i < tau; ++i)
              if (br * tau + i < rows)
                tiled[f.order[br * tau + i]] = 1;
          }
      }
      for (int32_t r = 0; r < rows; ++r) {
        const bool expectBad = stores[r] || tiled[r];
        throughTiles += tiled[r] && !stores[r];
        for (int64_t x = 0; x < k; ++x)
          ASSERT_EQ(!std::isfinite(c[r * k + x]), expectBad)
              << describe(o) << " trial " << trial << " row " << r;
      }
    }
  }
  // Both cases were met.
  EXPECT_GT(throughTiles, 0);
  EXPECT_GT(throughZeros, 0);
}
