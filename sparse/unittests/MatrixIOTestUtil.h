//===- MatrixIOTestUtil.h - Helpers for the reader tests --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the tests of the matrix file readers share: text parsed as a Matrix
// Market or DLMC file, its entries, and the --values specs.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_UNITTESTS_SPARSE_MATRIXIOTESTUTIL_H
#define SPPERM_UNITTESTS_SPARSE_MATRIXIOTESTUTIL_H

#include "SparseTestUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <string>

namespace spperm::test {

/// Parses `text` as a Matrix Market file named m.mtx.
inline StatusOr<CsrMatrix> parseMtx(const std::string &text,
                                    ValuesSpec values = ValuesSpec()) {
  ReadOptions options;
  options.values = values;
  return parseMatrixText(text, MatrixFileFormat::MatrixMarket, "m.mtx",
                         options);
}

/// Parses `text` as a DLMC file named m.smtx.
inline StatusOr<CsrMatrix> parseSmtx(const std::string &text,
                                     ValuesSpec values = ValuesSpec()) {
  ReadOptions options;
  options.values = values;
  return parseMatrixText(text, MatrixFileFormat::Smtx, "m.smtx", options);
}

/// Parses `text` and returns the matrix, failing the test on an error.
inline EntryMap entriesOfText(const std::string &text,
                              ValuesSpec values = ValuesSpec()) {
  StatusOr<CsrMatrix> m = parseMtx(text, values);
  EXPECT_TRUE(m.isOk()) << m.message();
  if (!m.isOk())
    return {};
  EXPECT_TRUE(m->verify().isOk()) << m->verify().message();
  return entriesOf(*m);
}

/// --values ones.
inline ValuesSpec onesSpec() { return ValuesSpec{ValueMode::Ones, 0}; }
/// --values random:SEED.
inline ValuesSpec randomSpec(uint64_t seed) {
  return ValuesSpec{ValueMode::Random, seed};
}

/// The banner of a real general Matrix Market file.
const char kBanner[] = "%%MatrixMarket matrix coordinate real general\n";

} // namespace spperm::test

#endif // SPPERM_UNITTESTS_SPARSE_MATRIXIOTESTUTIL_H
