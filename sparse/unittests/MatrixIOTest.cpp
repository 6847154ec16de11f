//===- MatrixIOTest.cpp - Tests of the matrix file readers ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The DLMC format and its malformed input; files, plain and gzip, the format
// chosen by extension or content, and file-system errors, each checking the
// `FILE:LINE: ...` message; the --values option and the random value
// contract. The Matrix Market variants are tested in MatrixMarketTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "MatrixIOTestUtil.h"
#include "SparseTestUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <string>

using namespace spperm;
using namespace spperm::test;

namespace {

//===----------------------------------------------------------------------===//
// DLMC .smtx
//===----------------------------------------------------------------------===//

TEST(Smtx, ReadsPattern) {
  StatusOr<CsrMatrix> m = parseSmtx("3, 4, 5\n"
                                    "0 2 2 5\n"
                                    "3 1 0 2 1\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  ASSERT_TRUE(m->verify().isOk());
  EXPECT_EQ(m->rows, 3);
  EXPECT_EQ(m->cols, 4);
  EXPECT_EQ(m->nnz(), 5);
  EXPECT_EQ(entriesOf(*m), (EntryMap{{{0, 1}, 1.0f},
                                     {{0, 3}, 1.0f},
                                     {{2, 0}, 1.0f},
                                     {{2, 1}, 1.0f},
                                     {{2, 2}, 1.0f}}));
}

TEST(Smtx, HeaderSeparatorsAndTrailingBlanks) {
  for (const char *header :
       {"2,2,2", "2, 2, 2", "2 2 2", "  2 ,\t2 , 2  ", "2, 2, 2\r"}) {
    std::string text = std::string(header) + "\n0 1 2 \n1 0 \n\n";
    StatusOr<CsrMatrix> m = parseSmtx(text);
    ASSERT_TRUE(m.isOk()) << header << ": " << m.message();
    EXPECT_EQ(entriesOf(*m), (EntryMap{{{0, 1}, 1.0f}, {{1, 0}, 1.0f}}));
  }
}

TEST(Smtx, DuplicatesSummedAndRandomValues) {
  StatusOr<CsrMatrix> m = parseSmtx("1, 3, 3\n0 3\n2 2 0\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(entriesOf(*m), (EntryMap{{{0, 0}, 1.0f}, {{0, 2}, 2.0f}}));
  m = parseSmtx("1, 3, 3\n0 3\n2 2 0\n", randomSpec(9));
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(entriesOf(*m),
            (EntryMap{{{0, 0}, randomValue(9, 2)},
                      {{0, 2},
                       static_cast<float>(double(randomValue(9, 0)) +
                                          double(randomValue(9, 1)))}}));
}

TEST(Smtx, EmptyMatrices) {
  StatusOr<CsrMatrix> m = parseSmtx("0, 0, 0\n0\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 0);
  m = parseSmtx("3, 5, 0\n0 0 0 0\n\n");
  ASSERT_TRUE(m.isOk()) << m.message();
  EXPECT_EQ(m->rows, 3);
  EXPECT_EQ(m->nnz(), 0);
  m = parseSmtx("3, 5, 0\n0 0 0 0");
  ASSERT_TRUE(m.isOk()) << m.message();
}

void expectSmtxError(const std::string &text, const std::string &message) {
  StatusOr<CsrMatrix> m = parseSmtx(text);
  ASSERT_FALSE(m.isOk()) << "parsed without error:\n" << text;
  EXPECT_EQ(m.message(), message);
}

TEST(SmtxErrors, Header) {
  expectSmtxError("", "m.smtx:1: empty file");
  expectSmtxError("abc\n", "m.smtx:1: bad DLMC header 'abc': expected 'ROWS, "
                           "COLS, NNZ'");
  expectSmtxError("3, 4\n0 0 0 0\n\n", "m.smtx:1: bad DLMC header '3, 4': "
                                       "expected 'ROWS, COLS, NNZ'");
  expectSmtxError("3, 4, 1, 2\n", "m.smtx:1: bad DLMC header '3, 4, 1, 2': "
                                  "expected 'ROWS, COLS, NNZ'");
  expectSmtxError("-3, 4, 1\n", "m.smtx:1: number of rows is negative (-3)");
  expectSmtxError("3, 4294967296, 1\n",
                  "m.smtx:1: number of columns 4294967296 exceeds the limit "
                  "2147483647");
  expectSmtxError("2, 0, 5\n", "m.smtx:1: 5 nonzeros announced, but a 2 x 0 "
                               "matrix has no positions");
}

TEST(SmtxErrors, Offsets) {
  expectSmtxError("2, 2, 2\n",
                  "m.smtx:2: expected 3 row offsets (rows + 1), found 0");
  expectSmtxError("2, 2, 2\n0 2\n1 1\n",
                  "m.smtx:2: expected 3 row offsets (rows + 1), found 2");
  expectSmtxError("2, 2, 2\n0 1 2 2\n1 1\n",
                  "m.smtx:2: more than 3 row offsets (rows + 1)");
  expectSmtxError("2, 2, 2\n1 1 2\n1 1\n",
                  "m.smtx:2: first row offset is 1, expected 0");
  expectSmtxError("3, 2, 2\n0 2 1 2\n1 1\n",
                  "m.smtx:2: row offset 2 (1) is less than the previous one "
                  "(2)");
  expectSmtxError("2, 2, 2\n0 3 2\n1 1\n",
                  "m.smtx:2: row offset 1 (3) exceeds the number of nonzeros "
                  "2");
  expectSmtxError("2, 2, 2\n0 1 1\n1 1\n",
                  "m.smtx:2: last row offset is 1 but the header announces 2 "
                  "nonzeros");
  expectSmtxError("2, 2, 2\n0 x 2\n1 1\n",
                  "m.smtx:2: row offset 'x' is not a non-negative integer");
}

TEST(SmtxErrors, Columns) {
  expectSmtxError("2, 2, 2\n0 1 2\n",
                  "m.smtx:3: expected 2 column indices (the number of "
                  "nonzeros), found 0");
  expectSmtxError("2, 2, 2\n0 1 2\n1\n",
                  "m.smtx:3: expected 2 column indices (the number of "
                  "nonzeros), found 1");
  expectSmtxError("2, 2, 2\n0 1 2\n1 0 1\n",
                  "m.smtx:3: more than 2 column indices (the number of "
                  "nonzeros)");
  expectSmtxError("2, 2, 2\n0 1 2\n1 2\n",
                  "m.smtx:3: column index 2 is out of range [0, 2)");
  expectSmtxError("2, 2, 2\n0 1 2\n1 -1\n",
                  "m.smtx:3: column index '-1' is not a non-negative integer");
  expectSmtxError("2, 2, 2\n0 1 2\n1 0\n1 0\n",
                  "m.smtx:4: unexpected '1' after the column indices line");
}

//===----------------------------------------------------------------------===//
// Files: plain, gzip, format choice, file-system errors
//===----------------------------------------------------------------------===//

const std::string kSampleMtx = "%%MatrixMarket matrix coordinate real general\n"
                               "% comment\n"
                               "3 3 4\n"
                               "1 1 1\n"
                               "2 3 2.5\n"
                               "3 2 -1\n"
                               "1 1 1\n";
const EntryMap kSampleEntries{{{0, 0}, 2.0f}, {{1, 2}, 2.5f}, {{2, 1}, -1.0f}};
const std::string kSampleSmtx = "3, 3, 3\n0 1 2 3\n0 2 1\n";
const EntryMap kSampleSmtxEntries{
    {{0, 0}, 1.0f}, {{1, 2}, 1.0f}, {{2, 1}, 1.0f}};

EntryMap entriesOfFile(const std::string &path) {
  StatusOr<CsrMatrix> m = readMatrixFile(path);
  EXPECT_TRUE(m.isOk()) << m.message();
  return m.isOk() ? entriesOf(*m) : EntryMap();
}

TEST(MatrixFiles, PlainAndGzip) {
  ScratchDir dir;
  writePlainFile(dir.path("a.mtx"), kSampleMtx);
  writeGzipFile(dir.path("a.mtx.gz"), kSampleMtx);
  writePlainFile(dir.path("a.smtx"), kSampleSmtx);
  writeGzipFile(dir.path("a.smtx.gz"), kSampleSmtx);
  EXPECT_EQ(entriesOfFile(dir.path("a.mtx")), kSampleEntries);
  EXPECT_EQ(entriesOfFile(dir.path("a.mtx.gz")), kSampleEntries);
  EXPECT_EQ(entriesOfFile(dir.path("a.smtx")), kSampleSmtxEntries);
  EXPECT_EQ(entriesOfFile(dir.path("a.smtx.gz")), kSampleSmtxEntries);
}

TEST(MatrixFiles, GzipDetectedFromContentAndFormatSniffed) {
  ScratchDir dir;
  // Compressed content under a plain name, and plain content under .gz.
  writeGzipFile(dir.path("b.mtx"), kSampleMtx);
  writePlainFile(dir.path("b.smtx.gz"), kSampleSmtx);
  EXPECT_EQ(entriesOfFile(dir.path("b.mtx")), kSampleEntries);
  EXPECT_EQ(entriesOfFile(dir.path("b.smtx.gz")), kSampleSmtxEntries);
  // Unknown extensions: sniffed from the content.
  writePlainFile(dir.path("c.txt"), kSampleMtx);
  writeGzipFile(dir.path("c.dat"), kSampleSmtx);
  writeGzipFile(dir.path("d"), kSampleMtx);
  EXPECT_EQ(entriesOfFile(dir.path("c.txt")), kSampleEntries);
  EXPECT_EQ(entriesOfFile(dir.path("c.dat")), kSampleSmtxEntries);
  EXPECT_EQ(entriesOfFile(dir.path("d")), kSampleEntries);
  // Upper-case extensions.
  writePlainFile(dir.path("e.MTX"), kSampleMtx);
  EXPECT_EQ(entriesOfFile(dir.path("e.MTX")), kSampleEntries);
}

TEST(MatrixFiles, LargeGzipFileStreams) {
  // Several buffer refills, a comment line longer than the token window and
  // entries straddling chunk boundaries.
  std::string text = "%%MatrixMarket matrix coordinate integer general\n%" +
                     std::string(10000, 'c') + "\n";
  const int n = 400000;
  text += "1000 1000 " + std::to_string(n) + "\n";
  EntryMap expected;
  std::map<std::pair<int32_t, int32_t>, double> sums;
  for (int e = 0; e < n; ++e) {
    int r = static_cast<int>((int64_t(e) * 7919) % 1000);
    int c = static_cast<int>((int64_t(e) * 104729 + 13) % 1000);
    int v = e % 17 - 8;
    text += std::to_string(r + 1) + " " + std::to_string(c + 1) + " " +
            std::to_string(v) + "\n";
    sums[{r, c}] += v;
  }
  for (auto &[k, v] : sums)
    expected[k] = static_cast<float>(v);
  ScratchDir dir;
  writeGzipFile(dir.path("big.mtx.gz"), text);
  writePlainFile(dir.path("big.mtx"), text);
  EXPECT_EQ(entriesOfFile(dir.path("big.mtx.gz")), expected);
  EXPECT_EQ(entriesOfFile(dir.path("big.mtx")), expected);
}

TEST(MatrixFiles, LongBlankRunsAndOverlongTokensStream) {
  ScratchDir dir;
  // Blank runs longer than the scanner's token window are fine...
  const std::string pad(5000, ' ');
  writePlainFile(dir.path("pad.mtx"), std::string(kBanner) + pad + "2" + pad +
                                          "2" + pad + "1\n" + pad + "1" + pad +
                                          "2" + pad + "-2.5" + pad + "\n" +
                                          pad + "\n");
  EXPECT_EQ(entriesOfFile(dir.path("pad.mtx")), (EntryMap{{{0, 1}, -2.5f}}));
  // ... but a single token longer than it is refused when streaming.
  std::string path = dir.path("long.mtx");
  writePlainFile(path, std::string(kBanner) + "1 1 1\n1 1 " +
                           std::string(5000, '1') + "\n");
  StatusOr<CsrMatrix> m = readMatrixFile(path);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), path + ":3: token '" + std::string(40, '1') +
                             "...' is longer than 4096 bytes");
}

TEST(MatrixFiles, ErrorsNameTheFileAsGiven) {
  ScratchDir dir;
  std::string path = dir.path("bad.mtx.gz");
  writeGzipFile(path, std::string(kBanner) + "2 2 1\n1 3 1\n");
  StatusOr<CsrMatrix> m = readMatrixFile(path);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), path + ":3: column index 3 is out of range [1, 2]");
}

TEST(MatrixFiles, MissingFileAndDirectory) {
  ScratchDir dir;
  std::string missing = dir.path("nope.mtx");
  StatusOr<CsrMatrix> m = readMatrixFile(missing);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), missing + ": cannot open: No such file or directory");
  m = readMatrixFile(dir.root());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), dir.root() + ": is a directory, not a matrix file");
  // A package (a directory with a manifest.json) is named as one.
  const std::string package = dir.path("p.spp");
  ASSERT_TRUE(std::filesystem::create_directory(package));
  std::ofstream(package + "/manifest.json") << "{}";
  m = readMatrixFile(package);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(),
            package + ": is a spperm package, not a matrix file (spperm-run "
                      "and spperm-verify run a package; spperm-inspect PKG "
                      "prints what it holds)");
}

TEST(MatrixFiles, EmptyFileOnDisk) {
  ScratchDir dir;
  writePlainFile(dir.path("empty.mtx"), "");
  writeGzipFile(dir.path("empty.mtx.gz"), "");
  StatusOr<CsrMatrix> m = readMatrixFile(dir.path("empty.mtx"));
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), dir.path("empty.mtx") + ":1: empty file");
  m = readMatrixFile(dir.path("empty.mtx.gz"));
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), dir.path("empty.mtx.gz") + ":1: empty file");
}

TEST(MatrixFiles, TruncatedGzip) {
  ScratchDir dir;
  std::string full = dir.path("full.mtx.gz");
  writeGzipFile(full, kSampleMtx);
  std::string bytes = readWholeFile(full);
  ASSERT_GT(bytes.size(), 30u);
  // Cut inside the gzip header, inside the deflate data, and cut only the
  // 8-byte trailer (all the text is then present: the reader must still
  // refuse it).
  for (size_t cut : {size_t(2), size_t(5), size_t(10), bytes.size() / 2,
                     bytes.size() - 8, bytes.size() - 1}) {
    std::string path = dir.path("cut" + std::to_string(cut) + ".mtx.gz");
    writePlainFile(path, bytes.substr(0, cut));
    StatusOr<CsrMatrix> m = readMatrixFile(path);
    ASSERT_FALSE(m.isOk()) << "cut at " << cut;
    EXPECT_NE(m.message().find(path + ":"), std::string::npos) << m.message();
    EXPECT_NE(m.message().find(": truncated gzip data (unexpected end of "
                               "file)"),
              std::string::npos)
        << m.message();
  }
}

TEST(MatrixFiles, CorruptGzip) {
  ScratchDir dir;
  std::string full = dir.path("full.mtx.gz");
  writeGzipFile(full, kSampleMtx);
  std::string bytes = readWholeFile(full);
  // Flip a byte of the CRC-32 in the trailer: the data inflates but fails
  // its check.
  std::string crc = bytes;
  crc[crc.size() - 6] ^= 0x55;
  writePlainFile(dir.path("crc.mtx.gz"), crc);
  StatusOr<CsrMatrix> m = readMatrixFile(dir.path("crc.mtx.gz"));
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.message().find("corrupt gzip data"), std::string::npos)
      << m.message();
  EXPECT_EQ(m.message().rfind(dir.path("crc.mtx.gz") + ":", 0), 0u);
  // Garbage deflate data after a valid gzip header.
  std::string garbage = bytes.substr(0, 10) + std::string(40, '\xff');
  writePlainFile(dir.path("garbage.mtx.gz"), garbage);
  m = readMatrixFile(dir.path("garbage.mtx.gz"));
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.message().find("corrupt gzip data"), std::string::npos)
      << m.message();
  EXPECT_EQ(m.message().rfind(dir.path("garbage.mtx.gz") + ":1: ", 0), 0u)
      << m.message();
}

//===----------------------------------------------------------------------===//
// --values
//===----------------------------------------------------------------------===//

TEST(ValuesSpec, Parses) {
  StatusOr<ValuesSpec> s = parseValuesSpec("file");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->mode, ValueMode::File);
  s = parseValuesSpec("ones");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->mode, ValueMode::Ones);
  s = parseValuesSpec("random:42");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(*s, randomSpec(42));
  s = parseValuesSpec("random:18446744073709551615");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->seed, UINT64_MAX);
  s = parseValuesSpec("random:007");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->seed, 7u);
}

TEST(ValuesSpec, RoundTrips) {
  for (ValuesSpec spec :
       {ValuesSpec(), onesSpec(), randomSpec(0), randomSpec(123456789)}) {
    StatusOr<ValuesSpec> back = parseValuesSpec(formatValuesSpec(spec));
    ASSERT_TRUE(back.isOk()) << back.message();
    EXPECT_EQ(*back, spec);
  }
  EXPECT_EQ(formatValuesSpec(randomSpec(5)), "random:5");
}

TEST(ValuesSpec, Rejects) {
  auto expectError = [](const char *text, const std::string &message) {
    StatusOr<ValuesSpec> s = parseValuesSpec(text);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_EQ(s.message(), message);
  };
  expectError("random:x", "invalid --values 'random:x': SEED must be a "
                          "non-negative decimal integer");
  expectError("random:", "invalid --values 'random:': SEED must be a "
                         "non-negative decimal integer");
  expectError("random:-1", "invalid --values 'random:-1': SEED must be a "
                           "non-negative decimal integer");
  expectError("random:+1", "invalid --values 'random:+1': SEED must be a "
                           "non-negative decimal integer");
  expectError("random:12x", "invalid --values 'random:12x': SEED must be a "
                            "non-negative decimal integer");
  expectError("random: 1", "invalid --values 'random: 1': SEED must be a "
                           "non-negative decimal integer");
  expectError("random:18446744073709551616",
              "invalid --values 'random:18446744073709551616': SEED does not "
              "fit in 64 bits");
  expectError("rand", "invalid --values 'rand': expected file, ones or "
                      "random:SEED");
  expectError("", "invalid --values '': expected file, ones or random:SEED");
  expectError("Ones", "invalid --values 'Ones': expected file, ones or "
                      "random:SEED");
}

/// An independent splitmix64, written from the contract's formula.
uint64_t referenceSplitmix(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double referenceRandomValue(uint64_t seed, uint64_t entry) {
  return static_cast<double>(referenceSplitmix(seed ^ entry) >> 40) /
             8388608.0 -
         1.0;
}

TEST(RandomValues, MatchTheContract) {
  // Computed with Python's arbitrary-precision integers.
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(42 ^ 7), 0xf7e9f3f88cc04ad6ULL);
  EXPECT_EQ(randomValue(0, 0), 0.7666215896606445f);
  EXPECT_EQ(randomValue(0, 1), 0.13312304019927979f);
  EXPECT_EQ(randomValue(42, 7), 0.9368270635604858f);
  EXPECT_EQ(randomValue(12345678901234567890ULL, 3), -0.30873239040374756f);
  for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(42),
                        uint64_t(0xdeadbeef), UINT64_MAX}) {
    for (uint64_t e = 0; e < 1000; ++e) {
      double want = referenceRandomValue(seed, e);
      float got = randomValue(seed, e);
      ASSERT_EQ(static_cast<double>(got), want) << seed << " " << e;
      ASSERT_GE(got, -1.0f);
      ASSERT_LT(got, 1.0f);
    }
  }
}

TEST(RandomValues, NumberEntriesInFileOrderBeforeExpansion) {
  const uint64_t seed = 77;
  auto rv = [&](uint64_t e) { return randomValue(seed, e); };
  // General: comments and blank lines do not count as entries.
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate real general\n"
                          "3 3 3\n"
                          "3 3 9\n"
                          "% comment\n"
                          "\n"
                          "1 2 9\n"
                          "2 1 9\n",
                          randomSpec(seed)),
            (EntryMap{{{0, 1}, rv(1)}, {{1, 0}, rv(2)}, {{2, 2}, rv(0)}}));
  // Symmetric: the mirror gets the same value; skew: the negated value.
  EXPECT_EQ(entriesOfText("%%MatrixMarket matrix coordinate pattern symmetric\n"
                          "3 3 2\n"
                          "2 2\n"
                          "3 1\n",
                          randomSpec(seed)),
            (EntryMap{{{0, 2}, rv(1)}, {{1, 1}, rv(0)}, {{2, 0}, rv(1)}}));
  EXPECT_EQ(
      entriesOfText("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                    "3 3 2\n"
                    "2 1 5\n"
                    "3 2 5\n",
                    randomSpec(seed)),
      (EntryMap{{{0, 1}, -rv(0)},
                {{1, 0}, rv(0)},
                {{1, 2}, -rv(1)},
                {{2, 1}, rv(1)}}));
  // Duplicates: their random values are summed (in double).
  EXPECT_EQ(
      entriesOfText("%%MatrixMarket matrix coordinate pattern general\n"
                    "1 2 2\n"
                    "1 1\n"
                    "1 1\n",
                    randomSpec(seed)),
      (EntryMap{{{0, 0}, static_cast<float>(double(rv(0)) + double(rv(1)))}}));
}

} // namespace
