//===- FormatsTest.cpp - Tests of the storage formats -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// csr, bell and hbp on random and adversarial matrices: every invariant and
// exact entry preservation (verifyFormat with the original), the CPU
// executors against a float64 reference for several K and every permutation
// strategy, bell's dense/residual split against a direct tile count, the
// delta search, ELL/HYB as bell with tau = 1, HBP's hash reordering (the
// per-warp-group standard deviation of the seed, printed), and
// verifyFormat on corrupted formats (it must reject them, never crash).
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "spperm/Sparse/CsrMatrix.h"
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
#include <string>
#include <vector>

using namespace spperm;

namespace {

/// A matrix from explicit rows of (sorted, distinct) column indices; values
/// are 1 + column / 8 + row / 16 (so they differ).
CsrMatrix fromRows(int32_t cols,
                   const std::vector<std::vector<int32_t>> &rows) {
  CsrMatrix m;
  m.rows = static_cast<int32_t>(rows.size());
  m.cols = cols;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int32_t c : rows[r]) {
      m.colIdx.push_back(c);
      m.values.push_back(1.0f + c / 8.0f + r / 16.0f);
    }
    m.rowPtr.push_back(static_cast<int32_t>(m.colIdx.size()));
  }
  return m;
}

/// An empty matrix of the given shape.
CsrMatrix emptyMatrix(int32_t rows, int32_t cols) {
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.rowPtr.assign(static_cast<size_t>(rows) + 1, 0);
  return m;
}

/// The adversarial shapes: empty, degenerate, one dense row, sizes that are
/// not multiples of 32, tau or rowBlock, explicit zeros, empty blocks.
std::vector<std::pair<std::string, CsrMatrix>> adversarialMatrices() {
  std::vector<std::pair<std::string, CsrMatrix>> out;
  out.push_back({"0x0", emptyMatrix(0, 0)});
  out.push_back({"0x7", emptyMatrix(0, 7)});
  out.push_back({"5x0", emptyMatrix(5, 0)});
  out.push_back({"all-empty 70x40", emptyMatrix(70, 40)});
  {
    std::vector<std::vector<int32_t>> rows(37);
    for (int32_t c = 0; c < 300; ++c)
      rows[17].push_back(c);
    out.push_back({"one dense row", fromRows(300, rows)});
  }
  {
    std::vector<std::vector<int32_t>> rows(1);
    for (int32_t c = 0; c < 1000; c += 3)
      rows[0].push_back(c);
    out.push_back({"single row", fromRows(1000, rows)});
  }
  {
    std::vector<std::vector<int32_t>> rows(531, std::vector<int32_t>{0});
    out.push_back({"single column", fromRows(1, rows)});
  }
  {
    CsrMatrix m = generateUniform(45, 1203, 0.02, 7);
    m.values[3] = 0.0f; // an explicit zero stays stored
    m.values[5] = -0.0f;
    out.push_back({"wide with zeros", m});
  }
  out.push_back({"tall", generateUniform(1111, 33, 0.1, 8)});
  {
    // Empty rows and empty blocks: entries only in a few far-apart places.
    std::vector<std::vector<int32_t>> rows(600);
    for (int32_t r = 0; r < 600; r += 7)
      rows[r] = {r % 50, 5000 + r, 9000};
    for (int32_t c = 100; c < 164; ++c)
      rows[300].push_back(c);
    for (auto &row : rows) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    out.push_back({"empty blocks", fromRows(9001, rows)});
  }
  out.push_back({"block sparse 100x97", generateBlockSparse(100, 97, 16, 0.3,
                                                           9)});
  out.push_back({"dense 40x40", generateUniform(40, 40, 1.0, 10)});
  out.push_back({"banded 333", generateBanded(333, 5, 11)});
  return out;
}

/// Random matrices of the generators.
std::vector<std::pair<std::string, CsrMatrix>> randomMatrices() {
  return {{"uniform", generateUniform(517, 413, 0.03, 1)},
          {"rmat", generateRmat(9, 8, 2)},
          {"skewed", generateSkewed(700, 650, 3)},
          {"block sparse", generateBlockSparse(256, 320, 32, 0.25, 4)},
          {"banded", generateBanded(1000, 20, 5)}};
}

/// The format configurations every matrix is checked with.
std::vector<FormatOptions> allConfigs() {
  std::vector<FormatOptions> out;
  FormatOptions csr;
  csr.kind = FormatKind::Csr;
  out.push_back(csr);
  for (int32_t tau : {1, 16, 32})
    for (double delta : {-1.0, 0.05, 0.3, 1.0}) {
      FormatOptions o;
      o.kind = FormatKind::Bell;
      o.bellBlock = tau;
      o.bellDelta = delta;
      out.push_back(o);
    }
  {
    FormatOptions o;
    o.kind = FormatKind::Bell;
    o.bellBlock = 4;
    o.bellDelta = 0.2;
    o.bellMaxWidth = 2;
    out.push_back(o);
  }
  for (int32_t rb : {32, 64})
    for (int32_t cb : {32, 64}) {
      FormatOptions o;
      o.kind = FormatKind::Hbp;
      o.hbpRowBlock = rb;
      o.hbpColBlock = cb;
      o.hbpWarps = 4;
      out.push_back(o);
    }
  FormatOptions hbp;
  hbp.kind = FormatKind::Hbp;
  out.push_back(hbp);
  return out;
}

std::string describe(const FormatOptions &o) {
  std::string s(formatName(o.kind));
  if (o.kind == FormatKind::Bell)
    s += " tau=" + std::to_string(o.bellBlock) +
         " delta=" + std::to_string(o.bellDelta) +
         " cap=" + std::to_string(o.bellMaxWidth);
  if (o.kind == FormatKind::Hbp)
    s += " R=" + std::to_string(o.hbpRowBlock) +
         " C=" + std::to_string(o.hbpColBlock);
  return s;
}

std::vector<int32_t> identityOrder(int32_t n) {
  std::vector<int32_t> o(n);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

std::vector<int32_t> randomOrder(int32_t n, uint64_t seed) {
  std::vector<int32_t> o = identityOrder(n);
  std::mt19937_64 rng(seed);
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

std::vector<float> randomDense(int64_t rows, int64_t cols, uint64_t seed) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : out)
    x = dist(rng);
  return out;
}

/// C = A * B in float64, rows in original order.
std::vector<double> referenceSpmm(const CsrMatrix &m,
                                  const std::vector<float> &b, int64_t k) {
  std::vector<double> c(static_cast<size_t>(m.rows) * k, 0.0);
  for (int32_t r = 0; r < m.rows; ++r)
    for (int32_t e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
      for (int64_t j = 0; j < k; ++j)
        c[r * k + j] += static_cast<double>(m.values[e]) *
                        static_cast<double>(b[m.colIdx[e] * k + j]);
  return c;
}

/// Runs spmmCpu on a NaN-poisoned C and checks it against the reference:
/// every element written, ||C - ref|| <= 1e-5 ||ref||.
void expectSpmmMatches(const FormattedMatrix &f, const CsrMatrix &m,
                       int64_t k, const std::string &what) {
  std::vector<float> b = randomDense(m.cols, k, 99 + k);
  std::vector<double> ref = referenceSpmm(m, b, k);
  std::vector<float> c(static_cast<size_t>(m.rows) * k,
                       std::numeric_limits<float>::quiet_NaN());
  spmmCpu(f, b.data(), k, c.data());
  double err = 0, norm = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_FALSE(std::isnan(c[i])) << what << " K=" << k << ": C[" << i
                                   << "] was not written";
    err += (c[i] - ref[i]) * (c[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  EXPECT_LE(std::sqrt(err), 1e-5 * std::sqrt(norm))
      << what << " K=" << k;
}

FormattedMatrix buildOk(const CsrMatrix &m, const std::vector<int32_t> &order,
                        const FormatOptions &o) {
  StatusOr<FormattedMatrix> f = buildFormat(m, order, o);
  EXPECT_TRUE(f.isOk()) << describe(o) << ": " << f.message();
  if (!f.isOk())
    return FormattedMatrix();
  return std::move(*f);
}

/// Builds, verifies against the original, and runs the executor for
/// K in {1, 2, 7, 32}.
void checkEverything(const std::string &name, const CsrMatrix &m,
                     const std::vector<int32_t> &order,
                     const FormatOptions &o) {
  std::string what = name + " / " + describe(o);
  FormattedMatrix f = buildOk(m, order, o);
  if (::testing::Test::HasFailure())
    return;
  Status s = verifyFormat(f, &m);
  ASSERT_TRUE(s.isOk()) << what << ": " << s.message();
  s = verifyFormat(f);
  ASSERT_TRUE(s.isOk()) << what << ": " << s.message();
  EXPECT_EQ(f.kind, o.kind);
  EXPECT_EQ(f.order, order);
  for (int64_t k : {1, 2, 7, 32})
    expectSpmmMatches(f, m, k, what);
}

/// tile (br, bc) -> entries of P = permuteRows(m, order).
std::map<std::pair<int32_t, int32_t>, int32_t>
tileCounts(const CsrMatrix &p, int32_t tau) {
  std::map<std::pair<int32_t, int32_t>, int32_t> out;
  for (int32_t r = 0; r < p.rows; ++r)
    for (int32_t e = p.rowPtr[r]; e < p.rowPtr[r + 1]; ++e)
      ++out[{r / tau, p.colIdx[e] / tau}];
  return out;
}

/// The seed's metric for the best possible reordering: every non-empty
/// rowBlock x colBlock block of `m` with its rows sorted by length, mean
/// over the warp groups of the standard deviation of the lengths.
double sortedGroupStd(const CsrMatrix &m, int32_t rowBlock, int32_t colBlock) {
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> blocks;
  for (int32_t r = 0; r < m.rows; ++r)
    for (int32_t e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
      std::vector<int64_t> &len =
          blocks[{r / rowBlock, m.colIdx[e] / colBlock}];
      len.resize(rowBlock);
      ++len[r % rowBlock];
    }
  double sum = 0;
  int64_t groups = 0;
  for (auto &[id, len] : blocks) {
    std::sort(len.begin(), len.end());
    for (int32_t g = 0; g < rowBlock / 32; ++g, ++groups) {
      double mean = 0, sq = 0;
      for (int32_t t = 0; t < 32; ++t)
        mean += len[g * 32 + t] / 32.0;
      for (int32_t t = 0; t < 32; ++t)
        sq += (len[g * 32 + t] - mean) * (len[g * 32 + t] - mean);
      sum += std::sqrt(sq / 32);
    }
  }
  return groups ? sum / groups : 0.0;
}

} // namespace

TEST(Formats, Names) {
  EXPECT_EQ(formatName(FormatKind::Csr), "csr");
  EXPECT_EQ(formatName(FormatKind::Bell), "bell");
  EXPECT_EQ(formatName(FormatKind::Hbp), "hbp");
}

TEST(Formats, RejectsBadOptionsAndOrders) {
  CsrMatrix m = generateUniform(50, 50, 0.1, 1);
  std::vector<int32_t> id = identityOrder(50);
  FormatOptions o;
  o.kind = FormatKind::Bell;
  for (int32_t tau : {0, 3, 64, -1}) {
    o.bellBlock = tau;
    EXPECT_FALSE(buildFormat(m, id, o).isOk()) << tau;
  }
  o.bellBlock = 8;
  o.bellDelta = 1.5;
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o.bellDelta = std::nan("");
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o.bellDelta = 0.5;
  o.bellMaxWidth = -1;
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o = FormatOptions();
  o.kind = FormatKind::Hbp;
  for (int32_t rb : {0, 31, 48, -32, 1 << 20}) {
    o.hbpRowBlock = rb;
    EXPECT_FALSE(buildFormat(m, id, o).isOk()) << rb;
  }
  o.hbpRowBlock = 64;
  o.hbpColBlock = 0;
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o.hbpColBlock = 64;
  o.hbpFixedFraction = 1.5;
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o.hbpFixedFraction = 0.5;
  o.hbpWarps = 0;
  EXPECT_FALSE(buildFormat(m, id, o).isOk());
  o.hbpWarps = 8;
  EXPECT_TRUE(buildFormat(m, id, o).isOk());
  // Orders that are not permutations.
  std::vector<int32_t> bad = id;
  bad[3] = 4;
  EXPECT_FALSE(buildFormat(m, bad, o).isOk());
  bad.pop_back();
  EXPECT_FALSE(buildFormat(m, bad, o).isOk());
}

TEST(Formats, AdversarialMatrices) {
  for (const auto &[name, m] : adversarialMatrices()) {
    ASSERT_TRUE(m.verify().isOk()) << name;
    for (const FormatOptions &o : allConfigs()) {
      checkEverything(name, m, identityOrder(m.rows), o);
      checkEverything(name + " shuffled", m, randomOrder(m.rows, 5), o);
    }
  }
}

TEST(Formats, RandomMatrices) {
  for (const auto &[name, m] : randomMatrices())
    for (const FormatOptions &o : allConfigs())
      checkEverything(name, m, randomOrder(m.rows, 6), o);
}

TEST(Formats, EveryPermutationStrategy) {
  std::vector<std::pair<std::string, CsrMatrix>> ms = {
      {"skewed", generateSkewed(400, 380, 21)},
      {"block sparse", generateBlockSparse(192, 160, 16, 0.3, 22)}};
  FormatOptions bell;
  bell.kind = FormatKind::Bell;
  bell.bellBlock = 16;
  FormatOptions hbp;
  hbp.kind = FormatKind::Hbp;
  hbp.hbpRowBlock = 64;
  hbp.hbpColBlock = 64;
  hbp.hbpWarps = 4;
  FormatOptions csr;
  for (const auto &[name, m] : ms)
    for (Strategy s : kAllStrategies) {
      PermutationOptions po;
      po.strategy = s;
      StatusOr<Permutation> p = computePermutation(m, po);
      ASSERT_TRUE(p.isOk()) << p.message();
      for (const FormatOptions &o : {csr, bell, hbp})
        checkEverything(name + " " + std::string(strategyCliName(s)), m,
                        p->order, o);
    }
}

TEST(Formats, SpmvIsColumnZeroOfSpmm) {
  // K = 1 accumulates in a register, K > 1 in C: same order, same bits.
  CsrMatrix m = generateSkewed(300, 310, 25);
  std::vector<int32_t> order = randomOrder(m.rows, 26);
  const int64_t k = 5;
  std::vector<float> b = randomDense(m.cols, k, 27), b1(m.cols);
  for (int32_t r = 0; r < m.cols; ++r)
    b1[r] = b[r * k];
  for (const FormatOptions &o : allConfigs()) {
    FormattedMatrix f = buildOk(m, order, o);
    std::vector<float> c(static_cast<size_t>(m.rows) * k), c1(m.rows);
    spmmCpu(f, b.data(), k, c.data());
    spmmCpu(f, b1.data(), 1, c1.data());
    for (int32_t r = 0; r < m.rows; ++r)
      ASSERT_EQ(c1[r], c[r * k]) << describe(o) << " row " << r;
  }
}

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
      FormattedMatrix f = buildOk(a, order, o);
      ASSERT_TRUE(verifyFormat(f, &a).isOk());
      const BellStorage &b = f.bell;
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

TEST(FormatsHbp, LayoutOfASmallBlock) {
  // One 32-row block: row 0 has 3 entries, row 1 none, row 2 one.
  std::vector<std::vector<int32_t>> rows(32);
  rows[0] = {1, 4, 6};
  rows[2] = {5};
  CsrMatrix m = fromRows(8, rows);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 32;
  o.hbpColBlock = 8;
  o.hbpWarps = 1;
  o.hbpFixedFraction = 1.0;
  FormattedMatrix f = buildOk(m, identityOrder(32), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  const HbpStorage &h = f.hbp;
  EXPECT_EQ(h.blocks, std::vector<int32_t>{0});
  EXPECT_EQ(h.beginNnz, (std::vector<int64_t>{0, 4}));
  // Slots: empty rows hash to 0; the lanes holding rows 0 and 2 are the only
  // non-empty ones. Find them and check the column-major chain.
  std::vector<int32_t> live;
  for (int32_t t = 0; t < 32; ++t)
    if (h.zeroRow[t] >= 0)
      live.push_back(t);
  ASSERT_EQ(live.size(), 2u);
  // Row 2 (1 entry) hashes before row 0 (3 entries).
  EXPECT_EQ(h.outputHash[live[0]], 2);
  EXPECT_EQ(h.outputHash[live[1]], 0);
  EXPECT_EQ(h.zeroRow[live[0]], live[0]);
  EXPECT_EQ(h.zeroRow[live[1]], live[1] - 1);
  // Round 0: row 2's entry, row 0's first; then row 0's others.
  EXPECT_EQ(h.col, (std::vector<int32_t>{5, 1, 4, 6}));
  EXPECT_EQ(h.addSign, (std::vector<int32_t>{-1, 1, 1, -1}));
  EXPECT_EQ(h.fixedBlocks, std::vector<int32_t>{0});
  EXPECT_EQ(h.fixedBlockPtr, (std::vector<int32_t>{0, 1}));
  EXPECT_TRUE(h.competitiveBlocks.empty());
}

TEST(FormatsHbp, FixedAndCompetitiveSplit) {
  CsrMatrix m = generateSkewed(1000, 1000, 51);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 128;
  o.hbpWarps = 7;
  o.hbpFixedFraction = 0.6;
  FormattedMatrix f = buildOk(m, identityOrder(m.rows), o);
  ASSERT_TRUE(verifyFormat(f, &m).isOk());
  const HbpStorage &h = f.hbp;
  const int64_t s = static_cast<int64_t>(h.blocks.size());
  ASSERT_GT(s, 50);
  ASSERT_EQ(h.fixedBlockPtr.size(), 8u);
  int64_t perWarp = static_cast<int64_t>(std::floor(s * 0.6)) / 7;
  EXPECT_EQ(h.fixedBlockPtr[1], perWarp);
  EXPECT_EQ(static_cast<int64_t>(h.fixedBlocks.size()), perWarp * 7);
  auto nnzOf = [&](int32_t b) {
    return h.beginNnz[(b + 1) * 2] - h.beginNnz[b * 2];
  };
  // Competitive blocks are the heaviest, heaviest first; fixed ones are
  // grouped by column block.
  int64_t lightestCompetitive = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < h.competitiveBlocks.size(); ++i) {
    lightestCompetitive =
        std::min(lightestCompetitive, nnzOf(h.competitiveBlocks[i]));
    if (i > 0) {
      EXPECT_GE(nnzOf(h.competitiveBlocks[i - 1]),
                nnzOf(h.competitiveBlocks[i]));
    }
  }
  for (int32_t b : h.fixedBlocks)
    EXPECT_LE(nnzOf(b), lightestCompetitive);
  for (size_t i = 1; i < h.fixedBlocks.size(); ++i)
    EXPECT_LE(h.blocks[h.fixedBlocks[i - 1]] % h.blockCols,
              h.blocks[h.fixedBlocks[i]] % h.blockCols);
}

TEST(FormatsHbp, HashReducesGroupDeviation) {
  // The seed's metric on a skewed matrix: mean over warp groups of the
  // standard deviation of the row lengths in the group.
  struct Case {
    const char *name;
    CsrMatrix m;
    int32_t rowBlock, colBlock;
  };
  std::vector<Case> cases = {
      {"skewed 4096 R512 C4096", generateSkewed(4096, 4096, 61), 512, 4096},
      {"skewed 4096 R512 C512", generateSkewed(4096, 4096, 61), 512, 512},
      {"rmat-12 R512 C4096", generateRmat(12, 8, 62), 512, 4096},
      {"skewed 2000 R64 C256", generateSkewed(2000, 2000, 63), 64, 256}};
  for (const Case &c : cases) {
    FormatOptions o;
    o.kind = FormatKind::Hbp;
    o.hbpRowBlock = c.rowBlock;
    o.hbpColBlock = c.colBlock;
    FormattedMatrix f = buildOk(c.m, identityOrder(c.m.rows), o);
    ASSERT_TRUE(verifyFormat(f, &c.m).isOk());
    FormatStats st = computeFormatStats(f, c.m);
    double ideal = sortedGroupStd(c.m, c.rowBlock, c.colBlock);
    std::printf("[ hbp std ] %-24s a=%d b=%d c=%d d=%d: %.3f -> %.3f "
                "(-%.0f%%; sorted rows: %.3f)\n",
                c.name, f.hbp.hashA, f.hbp.hashB, f.hbp.hashC, f.hbp.hashD,
                st.hbpGroupStdBefore, st.hbpGroupStdAfter,
                100.0 * (1.0 - st.hbpGroupStdAfter / st.hbpGroupStdBefore),
                ideal);
    // Rows are ordered by a coarsened length, so the result comes close to
    // sorting them; the 32-row blocks cannot gain much from any order.
    EXPECT_LE(st.hbpGroupStdAfter, 1.05 * ideal + 1e-9) << c.name;
    if (c.rowBlock >= 512) {
      EXPECT_LT(st.hbpGroupStdAfter, 0.5 * st.hbpGroupStdBefore) << c.name;
    }
  }
}

TEST(FormatsHbp, Deterministic) {
  CsrMatrix m = generateRmat(10, 8, 71);
  FormatOptions o;
  o.kind = FormatKind::Hbp;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 256;
  FormattedMatrix a = buildOk(m, identityOrder(m.rows), o);
  FormattedMatrix b = buildOk(m, identityOrder(m.rows), o);
  EXPECT_EQ(a.hbp.outputHash, b.hbp.outputHash);
  EXPECT_EQ(a.hbp.col, b.hbp.col);
  EXPECT_EQ(a.hbp.addSign, b.hbp.addSign);
  EXPECT_EQ(a.hbp.competitiveBlocks, b.hbp.competitiveBlocks);
}

TEST(FormatsVerify, RejectsTargetedCorruption) {
  CsrMatrix m = generateSkewed(300, 280, 81);
  std::vector<int32_t> order = randomOrder(m.rows, 82);
  FormatOptions bo;
  bo.kind = FormatKind::Bell;
  bo.bellBlock = 8;
  bo.bellDelta = 0.1;
  FormatOptions ho;
  ho.kind = FormatKind::Hbp;
  ho.hbpRowBlock = 64;
  ho.hbpColBlock = 64;
  ho.hbpWarps = 3;
  FormattedMatrix csr = buildOk(m, order, FormatOptions());
  FormattedMatrix bell = buildOk(m, order, bo);
  FormattedMatrix hbp = buildOk(m, order, ho);
  ASSERT_GT(bell.bell.width, 0);
  ASSERT_GT(bell.bell.residual.nnz(), 0);

  auto rejects = [&](FormattedMatrix f, const char *what, bool needsOriginal) {
    if (!needsOriginal) {
      EXPECT_FALSE(verifyFormat(f).isOk()) << what;
    }
    EXPECT_FALSE(verifyFormat(f, &m).isOk()) << what;
  };
  {
    FormattedMatrix f = csr;
    f.order[0] = f.order[1];
    rejects(f, "csr order", false);
    f = csr;
    f.csr.values[5] += 1.0f;
    rejects(f, "csr value", true);
    f = csr;
    std::swap(f.order[0], f.order[1]);
    rejects(f, "csr swapped rows", true);
    f = csr;
    f.nnz += 1;
    rejects(f, "csr nnz", false);
  }
  {
    FormattedMatrix f = bell;
    f.bell.blockCol[0] = 10000;
    rejects(f, "bell block column", false);
    f = bell;
    f.bell.width += 1;
    rejects(f, "bell width", false);
    f = bell;
    f.bell.blockValues.pop_back();
    rejects(f, "bell values size", false);
    f = bell;
    f.bell.denseNnz -= 1;
    rejects(f, "bell denseNnz", false);
    f = bell;
    f.bell.delta = 0;
    rejects(f, "bell delta", false);
    f = bell;
    // A value where the original has no entry: find an in-range zero.
    size_t z = 0;
    while (f.bell.blockValues[z] != 0.0f)
      ++z;
    f.bell.blockValues[z] = 1.0f;
    rejects(f, "bell extra value", true);
    f = bell;
    size_t nz = 0;
    while (f.bell.blockValues[nz] == 0.0f)
      ++nz;
    f.bell.blockValues[nz] *= 2.0f;
    rejects(f, "bell changed value", true);
    f = bell;
    f.bell.residual.values[0] += 1.0f;
    rejects(f, "bell residual value", true);
  }
  {
    FormattedMatrix f = hbp;
    std::swap(f.hbp.outputHash[0], f.hbp.outputHash[1]);
    // Two empty rows may swap harmlessly; swap a live with an empty lane.
    f = hbp;
    int32_t live = -1, dead = -1;
    for (int32_t t = 0; t < 32; ++t)
      (f.hbp.zeroRow[t] >= 0 ? live : dead) = t;
    ASSERT_GE(live, 0);
    if (dead >= 0) {
      std::swap(f.hbp.outputHash[live], f.hbp.outputHash[dead]);
      rejects(f, "hbp output hash", true);
    }
    f = hbp;
    f.hbp.outputHash[0] = f.hbp.outputHash[1];
    rejects(f, "hbp output hash duplicate", false);
    f = hbp;
    f.hbp.addSign[0] = 1000000;
    rejects(f, "hbp add sign", false);
    f = hbp;
    f.hbp.addSign[f.hbp.addSign.size() - 1] = 1;
    rejects(f, "hbp last add sign", false);
    f = hbp;
    f.hbp.col[0] = -5;
    rejects(f, "hbp column", false);
    f = hbp;
    f.hbp.data[3] = -f.hbp.data[3] + 1.0f;
    rejects(f, "hbp value", true);
    f = hbp;
    f.hbp.beginNnz[1] += 1;
    rejects(f, "hbp begin", false);
    f = hbp;
    f.hbp.zeroRow[live] = -1;
    rejects(f, "hbp zero row", false);
    f = hbp;
    f.hbp.blocks[0] = f.hbp.blockRows * f.hbp.blockCols;
    rejects(f, "hbp block id", false);
    f = hbp;
    if (!f.hbp.competitiveBlocks.empty()) {
      f.hbp.competitiveBlocks[0] = f.hbp.competitiveBlocks.back() + 0;
      f.hbp.competitiveBlocks.push_back(0);
      rejects(f, "hbp block lists", false);
    }
    f = hbp;
    f.hbp.fixedBlockPtr.back() += 1;
    rejects(f, "hbp fixed ptr", false);
  }
  FormattedMatrix f = csr;
  f.kind = static_cast<FormatKind>(7);
  rejects(f, "kind", false);
}

TEST(FormatsVerify, SurvivesRandomGarbage) {
  // Random corruption of every field: verifyFormat must return (either
  // way) without crashing or reading out of bounds, and what it accepts
  // must still compute the right product.
  CsrMatrix m = generateSkewed(200, 190, 91);
  std::vector<int32_t> order = randomOrder(m.rows, 92);
  std::vector<FormattedMatrix> bases;
  for (const FormatOptions &o : allConfigs())
    if (o.hbpRowBlock <= 64 || o.kind != FormatKind::Hbp)
      bases.push_back(buildOk(m, order, o));
  std::mt19937_64 rng(93);
  auto pick = [&](int64_t n) {
    return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
  };
  auto garbage = [&]() -> int64_t {
    switch (pick(6)) {
    case 0:
      return -1;
    case 1:
      return 0;
    case 2:
      return pick(100);
    case 3:
      return std::numeric_limits<int32_t>::max();
    case 4:
      return std::numeric_limits<int32_t>::min();
    default:
      return static_cast<int32_t>(rng());
    }
  };
  auto poke = [&](auto &vec) {
    if (vec.empty() || pick(4) == 0) {
      vec.resize(static_cast<size_t>(pick(8)));
      return;
    }
    vec[pick(static_cast<int64_t>(vec.size()))] =
        static_cast<typename std::decay_t<decltype(vec)>::value_type>(
            garbage());
  };
  int rejected = 0, total = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    FormattedMatrix f = bases[pick(static_cast<int64_t>(bases.size()))];
    int mutations = 1 + static_cast<int>(pick(3));
    for (int i = 0; i < mutations; ++i) {
      switch (pick(24)) {
      case 0: f.rows = static_cast<int32_t>(garbage()); break;
      case 1: f.cols = static_cast<int32_t>(garbage()); break;
      case 2: f.nnz = garbage(); break;
      case 3: poke(f.order); break;
      case 4: poke(f.csr.rowPtr); break;
      case 5: poke(f.csr.colIdx); break;
      case 6: f.bell.block = static_cast<int32_t>(garbage()); break;
      case 7: f.bell.width = static_cast<int32_t>(garbage()); break;
      case 8: f.bell.blockRows = static_cast<int32_t>(garbage()); break;
      case 9: poke(f.bell.blockCol); break;
      case 10: poke(f.bell.blockValues); break;
      case 11: poke(f.bell.residual.rowPtr); break;
      case 12: f.bell.denseNnz = garbage(); break;
      case 13: f.hbp.rowBlock = static_cast<int32_t>(garbage()); break;
      case 14: f.hbp.colBlock = static_cast<int32_t>(garbage()); break;
      case 15: poke(f.hbp.blocks); break;
      case 16: poke(f.hbp.col); break;
      case 17: poke(f.hbp.addSign); break;
      case 18: poke(f.hbp.zeroRow); break;
      case 19: poke(f.hbp.beginNnz); break;
      case 20: poke(f.hbp.outputHash); break;
      case 21: poke(f.hbp.fixedBlocks); break;
      case 22: poke(f.hbp.fixedBlockPtr); break;
      default: f.hbp.blockCols = static_cast<int32_t>(garbage()); break;
      }
    }
    ++total;
    bool ok1 = verifyFormat(f).isOk();
    bool ok2 = verifyFormat(f, &m).isOk();
    EXPECT_FALSE(ok2 && !ok1);
    rejected += !ok2;
    // Whatever verifyFormat accepts, the executor runs safely and right.
    if (ok2)
      expectSpmmMatches(f, m, 3, "accepted mutation");
  }
  std::printf("[ garbage ] %d of %d corrupted formats rejected\n", rejected,
              total);
  EXPECT_GT(rejected, total / 2);
}
