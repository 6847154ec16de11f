//===- FormatsTestUtil.h - Helpers for the format tests ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the tests of the storage formats share: matrices from explicit rows,
// the format configurations every matrix is checked with, row orders, and the
// CPU executor checked against a float64 reference.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_UNITTESTS_SPARSE_FORMATSTESTUTIL_H
#define SPPERM_UNITTESTS_SPARSE_FORMATSTESTUTIL_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Formats.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace spperm::test {

/// A matrix from explicit rows of (sorted, distinct) column indices; values
/// are 1 + column / 8 + row / 16 (so they differ).
inline CsrMatrix fromRows(int32_t cols,
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

/// The format configurations every matrix is checked with.
inline std::vector<FormatOptions> allConfigs() {
  std::vector<FormatOptions> out;
  FormatOptions csr;
  csr.kind = FormatKind::Csr;
  out.push_back(csr);
  for (BellColumns columns :
       {BellColumns::Auto, BellColumns::Blocks, BellColumns::Condensed}) {
    for (int32_t tau : {1, 16, 32})
      for (double delta : {-1.0, 0.05, 0.3, 1.0}) {
        FormatOptions o;
        o.kind = FormatKind::Bell;
        o.bellBlock = tau;
        o.bellDelta = delta;
        o.bellColumns = columns;
        out.push_back(o);
      }
    FormatOptions o;
    o.kind = FormatKind::Bell;
    o.bellBlock = 4;
    o.bellDelta = 0.2;
    o.bellMaxWidth = 2;
    o.bellColumns = columns;
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

/// The options `o` in a few words, for messages.
inline std::string describe(const FormatOptions &o) {
  std::string s(formatName(o.kind));
  if (o.kind == FormatKind::Bell)
    s += " tau=" + std::to_string(o.bellBlock) +
         " delta=" + std::to_string(o.bellDelta) +
         " cap=" + std::to_string(o.bellMaxWidth) + " columns=" +
         std::string(bellColumnsName(o.bellColumns));
  if (o.kind == FormatKind::Hbp)
    s += " R=" + std::to_string(o.hbpRowBlock) +
         " C=" + std::to_string(o.hbpColBlock);
  return s;
}

/// The order 0, 1, ..., n - 1.
inline std::vector<int32_t> identityOrder(int32_t n) {
  std::vector<int32_t> o(n);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

/// A random order of n rows, from `seed`.
inline std::vector<int32_t> randomOrder(int32_t n, uint64_t seed) {
  std::vector<int32_t> o = identityOrder(n);
  std::mt19937_64 rng(seed);
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

/// A rows x cols matrix of floats uniform in [-1, 1), from `seed`.
inline std::vector<float> randomDense(int64_t rows, int64_t cols,
                                      uint64_t seed) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : out)
    x = dist(rng);
  return out;
}

/// C = A * B in float64, rows in original order.
inline std::vector<double>
referenceSpmm(const CsrMatrix &m, const std::vector<float> &b, int64_t k) {
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
inline void expectSpmmMatches(const FormattedMatrix &f, const CsrMatrix &m,
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

/// buildFormat, expected to succeed (an empty matrix when it does not).
inline FormattedMatrix buildOk(const CsrMatrix &m,
                               const std::vector<int32_t> &order,
                               const FormatOptions &o) {
  StatusOr<FormattedMatrix> f = buildFormat(m, order, o);
  EXPECT_TRUE(f.isOk()) << describe(o) << ": " << f.message();
  if (!f.isOk())
    return FormattedMatrix();
  return std::move(*f);
}

} // namespace spperm::test

#endif // SPPERM_UNITTESTS_SPARSE_FORMATSTESTUTIL_H
