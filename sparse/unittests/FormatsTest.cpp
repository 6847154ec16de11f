//===- FormatsTest.cpp - Tests of the storage formats -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// csr, bell and hbp on random and adversarial matrices: every invariant and
// exact entry preservation (verifyFormat with the original), and the CPU
// executors against a float64 reference for several K and every permutation
// strategy. The formats' own layouts are tested in FormatsBellTest.cpp and
// FormatsHbpTest.cpp, verifyFormat on corrupted formats in
// FormatsVerifyTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "FormatsTestUtil.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Permutation.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

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

TEST(Formats, HalfPrecisionSpmmRoundsOnceAfterFp32Accumulation) {
  // Property test over random matrices and every format: with 16-bit B and
  // C (and A's values rounded to the same type, as a 16-bit matrix holds
  // them, or fp32), C is the fp32 result rounded once per element, within 1e-5
  // (normwise) of the float64 product of the rounded inputs before that
  // rounding and within the type's unit roundoff after it.
  const std::vector<std::pair<std::string, CsrMatrix>> ms = {
      {"uniform", generateUniform(220, 300, 0.05, 31)},
      {"skewed", generateSkewed(260, 240, 32)},
      {"block sparse", generateBlockSparse(128, 96, 16, 0.3, 33)}};
  for (ValueType type : {ValueType::F16, ValueType::BF16}) {
    const double unit = type == ValueType::F16 ? std::ldexp(1.0, -11)
                                               : std::ldexp(1.0, -8);
    uint16_t (*narrow)(float) =
        type == ValueType::F16 ? floatToHalf : floatToBFloat16;
    float (*widen)(uint16_t) =
        type == ValueType::F16 ? halfToFloat : bfloat16ToFloat;
    for (const auto &[name, original] : ms)
    for (bool roundValues : {true, false}) {
      // A of `type` (values rounded as a 16-bit matrix holds them), or
      // fp32 weights with 16-bit operands.
      CsrMatrix m = original;
      if (roundValues)
        for (float &v : m.values)
          v = roundToValueType(v, type);
      std::vector<int32_t> order = randomOrder(m.rows, 34);
      for (int64_t k : {int64_t{1}, int64_t{8}, int64_t{33}}) {
        std::vector<float> b = randomDense(m.cols, k, 35 + k);
        std::vector<uint16_t> bHalf(b.size());
        for (size_t i = 0; i < b.size(); ++i) {
          bHalf[i] = narrow(b[i]);
          b[i] = widen(bHalf[i]);
        }
        const std::vector<double> ref = referenceSpmm(m, b, k);
        double refNorm = 0.0;
        for (double x : ref)
          refNorm += x * x;
        for (const FormatOptions &o : allConfigs()) {
          const std::string what =
              std::string(valueTypeName(type)) + " " + name +
              (roundValues ? "" : " f32 values") + " " + describe(o) +
              " K=" + std::to_string(k);
          FormattedMatrix f = buildOk(m, order, o);
          std::vector<float> wide(ref.size());
          spmmCpu(f, b.data(), k, wide.data());
          std::vector<uint16_t> c(ref.size(), 0xffff);
          spmmCpu(f, bHalf.data(), type, k, c.data());
          double before = 0.0, after = 0.0;
          for (size_t i = 0; i < ref.size(); ++i) {
            ASSERT_EQ(c[i], narrow(wide[i])) << what << " element " << i;
            before += (wide[i] - ref[i]) * (wide[i] - ref[i]);
            const double d = widen(c[i]) - ref[i];
            after += d * d;
          }
          EXPECT_LE(std::sqrt(before), 1e-5 * std::sqrt(refNorm)) << what;
          EXPECT_LE(std::sqrt(after), unit * std::sqrt(refNorm)) << what;
        }
      }
    }
  }
}
