//===- MatrixMarketTest.cpp - Tests of the .mtx reader ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every Matrix Market variant (field, symmetry, line endings, duplicates,
// values at the edges of float32), and one test per class of malformed input,
// each checking the `FILE:LINE: ...` message.
//
//===----------------------------------------------------------------------===//

#include "MatrixIOTestUtil.h"
#include "SparseTestUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include "gtest/gtest.h"

#include <string>

using namespace spperm;
using namespace spperm::test;

namespace {

//===----------------------------------------------------------------------===//
// Matrix Market variants
//===----------------------------------------------------------------------===//

TEST(MatrixMarket, RealGeneralWithCommentsAndBlankLines) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n"
                           "% a comment\n"
                           "%\n"
                           "\n"
                           "  3 4 5  \n"
                           "\n"
                           "1 1 1.5\n"
                           "% a comment between entries\n"
                           "2\t3 -2e0\n"
                           "   \n"
                           "3 4 .25\n"
                           "1 4 +4\n"
                           "3 1 -0.5\n"
                           "% trailing comment\n"
                           "\n";
  StatusOr<CsrMatrix> m = parseMtx(text);
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 3);
  EXPECT_EQ(m->cols, 4);
  EXPECT_EQ(m->nnz(), 5);
  EXPECT_EQ(entriesOf(*m), (EntryMap{{{0, 0}, 1.5f},
                                     {{0, 3}, 4.0f},
                                     {{1, 2}, -2.0f},
                                     {{2, 0}, -0.5f},
                                     {{2, 3}, 0.25f}}));
}

TEST(MatrixMarket, IntegerGeneral) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate integer general\n"
                          "2 2 3\n"
                          "1 1 7\n"
                          "2 1 -3\n"
                          "2 2 +12\n"),
            (EntryMap{{{0, 0}, 7.0f}, {{1, 0}, -3.0f}, {{1, 1}, 12.0f}}));
}

TEST(MatrixMarket, PatternGeneral) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate pattern general\n"
                          "2 3 2\n"
                          "1 3\n"
                          "2 1\n"),
            (EntryMap{{{0, 2}, 1.0f}, {{1, 0}, 1.0f}}));
}

TEST(MatrixMarket, RealSymmetricMirrorsOffDiagonal) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real symmetric\n"
                          "3 3 3\n"
                          "1 1 2\n"
                          "2 1 3\n"
                          "3 2 -1\n"),
            (EntryMap{{{0, 0}, 2.0f},
                      {{0, 1}, 3.0f},
                      {{1, 0}, 3.0f},
                      {{1, 2}, -1.0f},
                      {{2, 1}, -1.0f}}));
}

TEST(MatrixMarket, IntegerSymmetric) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate integer symmetric\n"
                          "2 2 2\n"
                          "2 1 5\n"
                          "2 2 6\n"),
            (EntryMap{{{0, 1}, 5.0f}, {{1, 0}, 5.0f}, {{1, 1}, 6.0f}}));
}

TEST(MatrixMarket, PatternSymmetric) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate pattern symmetric\n"
                          "3 3 2\n"
                          "3 1\n"
                          "2 2\n"),
            (EntryMap{{{0, 2}, 1.0f}, {{1, 1}, 1.0f}, {{2, 0}, 1.0f}}));
}

TEST(MatrixMarket, SkewSymmetricMirrorsWithOppositeSign) {
  // The diagonal entry (an explicit zero here) is kept, not mirrored.
  EXPECT_EQ(
      entriesOfText("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                    "3 3 3\n"
                    "2 1 3\n"
                    "3 1 -1.5\n"
                    "2 2 0\n"),
      (EntryMap{{{0, 1}, -3.0f},
                {{0, 2}, 1.5f},
                {{1, 0}, 3.0f},
                {{1, 1}, 0.0f},
                {{2, 0}, -1.5f}}));
}

TEST(MatrixMarket, IntegerSkewSymmetric) {
  EXPECT_EQ(
      entriesOfText("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                    "2 2 1\n"
                    "2 1 4\n"),
      (EntryMap{{{0, 1}, -4.0f}, {{1, 0}, 4.0f}}));
}

TEST(MatrixMarket, PatternSkewSymmetric) {
  const std::string text =
      "%%MatrixMarket matrix coordinate pattern skew-symmetric\n"
      "2 2 1\n"
      "2 1\n";
  EntryMap expected{{{0, 1}, -1.0f}, {{1, 0}, 1.0f}};
  EXPECT_EQ(entriesOfText(text), expected);
  EXPECT_EQ(entriesOfText(text, onesSpec()), expected);
}

TEST(MatrixMarket, OnesReplacesFileValues) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real general\n"
                          "2 2 2\n"
                          "1 2 -7.5\n"
                          "2 1 3\n",
                          onesSpec()),
            (EntryMap{{{0, 1}, 1.0f}, {{1, 0}, 1.0f}}));
  EXPECT_EQ(
      entriesOfText("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                    "2 2 1\n"
                    "2 1 -7.5\n",
                    onesSpec()),
      (EntryMap{{{0, 1}, -1.0f}, {{1, 0}, 1.0f}}));
}

TEST(MatrixMarket, BannerWordsAreCaseInsensitive) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket MATRIX Coordinate Real GENERAL\n"
                          "1 1 1\n"
                          "1 1 2\n"),
            (EntryMap{{{0, 0}, 2.0f}}));
  EXPECT_EQ(entriesOfText("%%matrixmarket matrix coordinate double general\n"
                          "1 1 1\n"
                          "1 1 2\n"),
            (EntryMap{{{0, 0}, 2.0f}}));
}

TEST(MatrixMarket, CrLfAndNoFinalNewline) {
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real general\r\n"
                          "% comment\r\n"
                          "2 2 2\r\n"
                          "1 1 1\r\n"
                          "2 2 2"),
            (EntryMap{{{0, 0}, 1.0f}, {{1, 1}, 2.0f}}));
}

TEST(MatrixMarket, DuplicatesSummedAndExplicitZerosKept) {
  StatusOr<CsrMatrix> m =
      parseMtx("%%MatrixMarket matrix coordinate real general\n"
               "2 3 6\n"
               "1 1 1\n"
               "2 2 0\n"
               "1 1 1\n"
               "1 2 5\n"
               "1 1 -2\n"
               "1 2 0.5\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->nnz(), 3); // (0,0) sums to zero and stays stored
  EXPECT_EQ(entriesOf(*m),
            (EntryMap{{{0, 0}, 0.0f}, {{0, 1}, 5.5f}, {{1, 1}, 0.0f}}));
}

TEST(MatrixMarket, MoreEntriesThanPositions) {
  // Duplicates make a file legal even when it announces more entries than
  // the matrix has positions (SciPy reads it too).
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real symmetric\n"
                          "1 1 3\n"
                          "1 1 1\n"
                          "1 1 2\n"
                          "1 1 4\n"),
            (EntryMap{{{0, 0}, 7.0f}}));
}

TEST(MatrixMarket, SymmetricEntriesInBothTrianglesAreSummed) {
  // As SciPy does: every off-diagonal entry is mirrored, wherever it is.
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real symmetric\n"
                          "2 2 2\n"
                          "2 1 1\n"
                          "1 2 2\n"),
            (EntryMap{{{0, 1}, 3.0f}, {{1, 0}, 3.0f}}));
}

TEST(MatrixMarket, EmptyMatrices) {
  StatusOr<CsrMatrix> m =
      parseMtx("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 0);
  EXPECT_EQ(m->nnz(), 0);
  m = parseMtx("%%MatrixMarket matrix coordinate pattern general\n5 7 0\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 5);
  EXPECT_EQ(m->cols, 7);
  EXPECT_EQ(m->rowPtr, (std::vector<int32_t>(6, 0)));
}

TEST(MatrixMarket, ValueEdgeCases) {
  // Underflow becomes zero (kept), large-but-finite values are fine.
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real general\n"
                          "1 3 3\n"
                          "1 1 1e-400\n"
                          "1 2 3.0e38\n"
                          "1 3 -1E+2\n"),
            (EntryMap{{{0, 0}, 0.0f}, {{0, 1}, 3.0e38f}, {{0, 2}, -100.0f}}));
}

//===----------------------------------------------------------------------===//
// Malformed Matrix Market input
//===----------------------------------------------------------------------===//

/// Expects `text` to fail with exactly `message`.
void expectMtxError(const std::string &text, const std::string &message,
                    ValuesSpec values = ValuesSpec()) {
  StatusOr<CsrMatrix> m = parseMtx(text, values);
  ASSERT_FALSE(m.isOk()) << "parsed without error:\n" << text;
  EXPECT_EQ(m.message(), message);
  EXPECT_EQ(m.message().find('\n'), std::string::npos);
}

TEST(MatrixMarketErrors, EmptyFile) {
  expectMtxError("", "m.mtx:1: empty file");
}

TEST(MatrixMarketErrors, MissingOrWrongBanner) {
  const std::string missing = "m.mtx:1: missing Matrix Market banner: "
                              "expected '%%MatrixMarket matrix coordinate "
                              "FIELD SYMMETRY'";
  expectMtxError("3 3 1\n1 1 1\n", missing);
  expectMtxError("% just a comment\n", missing);
  expectMtxError("%%MatrixMarkets matrix coordinate real general\n", missing);
  expectMtxError("\n%%MatrixMarket matrix coordinate real general\n", missing);
  expectMtxError("%%MatrixMarket matrix coordinate real\n2 2 0\n",
                 "m.mtx:1: incomplete Matrix Market banner: missing the "
                 "symmetry");
  expectMtxError("%%MatrixMarket\n",
                 "m.mtx:1: incomplete Matrix Market banner: missing the "
                 "object");
  expectMtxError("%%MatrixMarket matrix coordinate real general extra\n",
                 "m.mtx:1: unexpected 'extra' after the Matrix Market banner");
}

TEST(MatrixMarketErrors, UnsupportedBannerWords) {
  expectMtxError("%%MatrixMarket vector coordinate real general\n",
                 "m.mtx:1: unsupported Matrix Market object 'vector' (only "
                 "'matrix' is supported)");
  expectMtxError("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
                 "m.mtx:1: unsupported Matrix Market format 'array' (dense "
                 "storage); only 'coordinate' is supported");
  expectMtxError("%%MatrixMarket matrix coordinate complex general\n",
                 "m.mtx:1: unsupported Matrix Market field 'complex' "
                 "(expected real, integer or pattern)");
  expectMtxError("%%MatrixMarket matrix coordinate real hermitian\n",
                 "m.mtx:1: unsupported Matrix Market symmetry 'hermitian' "
                 "(expected general, symmetric or skew-symmetric)");
  expectMtxError("%%MatrixMarket matrix coordinate complex hermitian\n",
                 "m.mtx:1: unsupported Matrix Market field 'complex' "
                 "(expected real, integer or pattern)");
}

TEST(MatrixMarketErrors, MissingOrGarbledSizeLine) {
  expectMtxError(std::string(kBanner),
                 "m.mtx:1: missing size line 'ROWS COLS NNZ' after the banner");
  expectMtxError(std::string(kBanner) + "% comment\n\n",
                 "m.mtx:3: missing size line 'ROWS COLS NNZ' after the banner");
  expectMtxError(std::string(kBanner) + "3 3\n",
                 "m.mtx:2: size line is missing the number of entries "
                 "(expected 'ROWS COLS NNZ')");
  expectMtxError(std::string(kBanner) + "3 x 1\n",
                 "m.mtx:2: bad size line: number of columns 'x' is not an "
                 "integer");
  expectMtxError(std::string(kBanner) + "3 3 1.0\n",
                 "m.mtx:2: bad size line: number of entries '1.0' is not an "
                 "integer");
  expectMtxError(std::string(kBanner) + "3 3 1 4\n",
                 "m.mtx:2: unexpected '4' after the size line");
}

TEST(MatrixMarketErrors, NegativeOrOversizedDimensions) {
  expectMtxError(std::string(kBanner) + "-3 3 1\n",
                 "m.mtx:2: number of rows is negative (-3)");
  expectMtxError(std::string(kBanner) + "3 -1 1\n",
                 "m.mtx:2: number of columns is negative (-1)");
  expectMtxError(std::string(kBanner) + "3 3 -1\n",
                 "m.mtx:2: number of entries is negative (-1)");
  expectMtxError(std::string(kBanner) + "2147483648 3 1\n",
                 "m.mtx:2: number of rows 2147483648 exceeds the limit "
                 "2147483647");
  expectMtxError(std::string(kBanner) + "3 99999999999999999999999 1\n",
                 "m.mtx:2: number of columns 99999999999999999999999 exceeds "
                 "the limit 2147483647");
  expectMtxError(std::string(kBanner) + "2147483647 2147483647 2147483648\n",
                 "m.mtx:2: number of entries 2147483648 exceeds the limit "
                 "2147483647");
  expectMtxError(std::string(kBanner) + "0 3 1\n",
                 "m.mtx:2: 1 entries announced, but a 0 x 3 matrix has no "
                 "positions");
  // More entries than positions is legal: duplicates are summed. But the
  // count must still match the entries that follow.
  expectMtxError("%%MatrixMarket matrix coordinate real symmetric\n2 2 7\n"
                 "1 1 1\n2 1 1\n",
                 "m.mtx:4: file ends after 2 of 7 entries");
  expectMtxError("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n",
                 "m.mtx:2: symmetric matrix must be square, but it is 3 x 4");
  expectMtxError(
      "%%MatrixMarket matrix coordinate pattern skew-symmetric\n4 3 1\n",
      "m.mtx:2: skew-symmetric matrix must be square, but it is 4 x 3");
}

TEST(MatrixIOErrors, LowerIndexLimit) {
  // ReadOptions::maxIndex bounds dimensions and entries (the fuzz targets
  // read with 2^20); values above kMaxIndex act as kMaxIndex.
  ReadOptions options;
  options.maxIndex = 4;
  auto parse = [&](const std::string &text, MatrixFileFormat format) {
    return parseMatrixText(text, format, "m", options);
  };
  StatusOr<CsrMatrix> m = parse(std::string(kBanner) + "4 4 1\n4 4 1\n",
                                MatrixFileFormat::MatrixMarket);
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 4);
  m = parse(std::string(kBanner) + "5 4 1\n1 1 1\n",
            MatrixFileFormat::MatrixMarket);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), "m:2: number of rows 5 exceeds the limit 4");
  m = parse("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n"
            "2 1\n3 1\n4 1\n",
            MatrixFileFormat::MatrixMarket);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), "m:5: more than 4 stored entries after symmetric "
                         "expansion");
  m = parse("2, 9, 1\n0 0 1\n3\n", MatrixFileFormat::Smtx);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), "m:1: number of columns 9 exceeds the limit 4");
  options.maxIndex = INT64_MAX;
  m = parse(std::string(kBanner) + "2147483648 3 1\n",
            MatrixFileFormat::MatrixMarket);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(),
            "m:2: number of rows 2147483648 exceeds the limit 2147483647");
}

TEST(MatrixMarketErrors, EntryCountLies) {
  expectMtxError(std::string(kBanner) + "3 3 5\n1 1 1\n2 2 1\n3 3 1\n",
                 "m.mtx:5: file ends after 3 of 5 entries");
  expectMtxError(std::string(kBanner) + "3 3 5\n1 1 1\n2 2 1\n3 3 1",
                 "m.mtx:5: file ends after 3 of 5 entries");
  expectMtxError(std::string(kBanner) + "3 3 2\n1 1 1\n% c\n\n",
                 "m.mtx:5: file ends after 1 of 2 entries");
  expectMtxError(std::string(kBanner) + "3 3 2\n1 1 1\n2 2 1\n\n3 3 1\n",
                 "m.mtx:6: more entries than the 2 announced");
  expectMtxError(std::string(kBanner) + "3 3 0\n1 1 1\n",
                 "m.mtx:3: more entries than the 0 announced");
}

TEST(MatrixMarketErrors, IndexZeroOrOutOfRange) {
  expectMtxError(std::string(kBanner) + "3 4 1\n0 1 1\n",
                 "m.mtx:3: row index 0 is out of range [1, 3] (Matrix Market "
                 "indices are 1-based)");
  expectMtxError(std::string(kBanner) + "3 4 1\n4 1 1\n",
                 "m.mtx:3: row index 4 is out of range [1, 3]");
  expectMtxError(std::string(kBanner) + "3 4 2\n1 1 1\n1 5 1\n",
                 "m.mtx:4: column index 5 is out of range [1, 4]");
  expectMtxError(std::string(kBanner) + "3 4 1\n1 0 1\n",
                 "m.mtx:3: column index 0 is out of range [1, 4] (Matrix "
                 "Market indices are 1-based)");
  expectMtxError(std::string(kBanner) + "3 4 1\n1 99999999999999999999 1\n",
                 "m.mtx:3: column index 99999999999999999999 is out of range "
                 "[1, 4]");
  expectMtxError(std::string(kBanner) + "3 4 1\n-1 1 1\n",
                 "m.mtx:3: row index '-1' is not a positive integer");
  expectMtxError(std::string(kBanner) + "3 4 1\n1.0 1 1\n",
                 "m.mtx:3: row index '1.0' is not a positive integer");
}

TEST(MatrixMarketErrors, MissingIndexOrValue) {
  expectMtxError(std::string(kBanner) + "3 4 1\n1\n",
                 "m.mtx:3: missing column index");
  expectMtxError(std::string(kBanner) + "3 4 1\n1 2\n",
                 "m.mtx:3: missing value");
  expectMtxError(std::string(kBanner) + "3 4 1\n1 2", "m.mtx:3: missing value");
  expectMtxError(std::string(kBanner) + "3 4 2\n1 2 3\n2 2   \n",
                 "m.mtx:4: missing value");
}

TEST(MatrixMarketErrors, NonNumbers) {
  const std::string head = std::string(kBanner) + "3 4 1\n";
  expectMtxError(head + "1 2 1.2.3\n",
                 "m.mtx:3: value '1.2.3' is not a number");
  expectMtxError(head + "1 2 abc\n", "m.mtx:3: value 'abc' is not a number");
  expectMtxError(head + "1 2 1,5\n", "m.mtx:3: value '1,5' is not a number");
  expectMtxError(head + "1 2 0x10\n", "m.mtx:3: value '0x10' is not a number");
  expectMtxError(head + "1 2 ++1\n", "m.mtx:3: value '++1' is not a number");
  expectMtxError(head + "1 2 -\n", "m.mtx:3: value '-' is not a number");
  expectMtxError(head + "1 2 nan\n",
                 "m.mtx:3: value 'nan' is not a finite number");
  expectMtxError(head + "1 2 -inf\n",
                 "m.mtx:3: value '-inf' is not a finite number");
  expectMtxError(head + "1 2 1e400\n",
                 "m.mtx:3: value '1e400' is not a finite number");
  expectMtxError(head + "1 2 1e39\n",
                 "m.mtx:3: value '1e39' is out of the float32 range");
  expectMtxError(head + "1 2 1\x01\n",
                 "m.mtx:3: value '1\\x01' is not a number");
  expectMtxError("%%MatrixMarket matrix coordinate integer general\n"
                 "3 4 1\n1 2 1.5\n",
                 "m.mtx:3: value '1.5' is not an integer");
  expectMtxError("%%MatrixMarket matrix coordinate integer general\n"
                 "3 4 1\n1 2 99999999999999999999\n",
                 "m.mtx:3: integer value '99999999999999999999' is out of "
                 "range");
}

TEST(MatrixMarket, NonFiniteValuesAreIgnoredWhenNotUsed) {
  // With --values ones or random the file's values are only checked for
  // syntax.
  const std::string text = std::string(kBanner) + "1 1 1\n1 1 nan\n";
  EXPECT_EQ(entriesOfText(text, onesSpec()), (EntryMap{{{0, 0}, 1.0f}}));
  EXPECT_EQ(entriesOfText(text, randomSpec(1)),
            (EntryMap{{{0, 0}, randomValue(1, 0)}}));
  expectMtxError(std::string(kBanner) + "1 1 1\n1 1 x\n",
                 "m.mtx:3: value 'x' is not a number", onesSpec());
}

TEST(MatrixMarketErrors, TrailingGarbage) {
  expectMtxError(std::string(kBanner) + "3 4 1\n1 2 3 4\n",
                 "m.mtx:3: unexpected '4' after the entry");
  expectMtxError(std::string(kBanner) + "3 4 1\n1 2 3 % comment\n",
                 "m.mtx:3: unexpected '%' after the entry");
  expectMtxError("%%MatrixMarket matrix coordinate pattern general\n"
                 "3 4 1\n1 2 3\n",
                 "m.mtx:3: unexpected '3' after the entry");
}

TEST(MatrixMarketErrors, OverlongToken) {
  expectMtxError(std::string(kBanner) + "1 1 1\n1 1 " + std::string(5000, '1') +
                     "\n",
                 "m.mtx:3: token '" + std::string(40, '1') +
                     "...' is longer than 4096 bytes");
  expectMtxError(std::string(kBanner) + "1 1 1\n1 1 " + std::string(5000, '0') +
                     "\n",
                 "m.mtx:3: token '" + std::string(40, '0') +
                     "...' is longer than 4096 bytes");
  // 4096 bytes is still fine.
  EXPECT_EQ(entriesOfText(std::string(kBanner) + "1 1 1\n1 1 " +
                          std::string(4095, '0') + "5\n"),
            (EntryMap{{{0, 0}, 5.0f}}));
}

TEST(MatrixMarketErrors, MessagesEscapeBinaryBytes) {
  std::string text = std::string(kBanner) + "1 1 1\n1 1 \x80\x7f\x1b[31m\n";
  expectMtxError(text, "m.mtx:3: value '\\x80\\x7f\\x1b[31m' is not a number");
}

} // namespace
