//===- NpzTest.cpp - Tests of the scipy.sparse .npz reader ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// .npz archives built here the way scipy.sparse.save_npz builds them
// (numpy.savez: one .npy member per array, stored or deflated) for every
// format save_npz writes, read through readMatrixFile and compared with the
// same matrix read from Matrix Market; a property test on random matrices
// in all four formats; and the malformed archives and arrays, each checking
// the `FILE: ...` message.
//
//===----------------------------------------------------------------------===//

#include "MatrixIOTestUtil.h"
#include "SparseTestUtil.h"

#include "spperm/Sparse/MatrixIO.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>
#include <zlib.h>

using namespace spperm;
using namespace spperm::test;

namespace {

//===----------------------------------------------------------------------===//
// Writing .npy arrays and zip archives
//===----------------------------------------------------------------------===//

/// A .npy 1.0 array of `descr` and `shape` holding `data` (raw bytes).
std::string npy(const std::string &descr, const std::vector<int64_t> &shape,
                const std::string &data) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.erase(dims.size() - 2); // "(3, 4)", but "(3,)" and "()"
  else if (shape.empty())
    dims.clear();
  else
    dims.erase(dims.size() - 1);
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
std::string bytesOf(const std::vector<T> &v) {
  std::string out(v.size() * sizeof(T), '\0');
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::string vectorNpy(const std::string &descr, const std::vector<T> &v) {
  return npy(descr, {static_cast<int64_t>(v.size())}, bytesOf(v));
}

void put16(std::string &out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string &out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

/// Raw deflate of `data` (what zipfile.ZIP_DEFLATED stores).
std::string deflateRaw(const std::string &data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                         Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// A zip archive of (name, bytes) members, stored or deflated. Like
/// numpy.savez (zipfile with force_zip64), each local header carries a
/// zip64 extra field and 0xffffffff sizes; the central directory has the
/// real ones.
std::string zipOf(const std::vector<std::pair<std::string, std::string>> &members,
                  bool deflated) {
  std::string out, central;
  for (const auto &[name, data] : members) {
    const std::string packed = deflated ? deflateRaw(data) : data;
    const uint32_t crc = crc32(0, reinterpret_cast<const Bytef *>(data.data()),
                               static_cast<uInt>(data.size()));
    const uint32_t offset = static_cast<uint32_t>(out.size());
    const uint32_t method = deflated ? 8 : 0;
    // Local header with a zip64 extra of both sizes.
    put32(out, 0x04034b50);
    put16(out, 45);
    put16(out, 0);
    put16(out, method);
    put32(out, 0);
    put32(out, crc);
    put32(out, 0xffffffff);
    put32(out, 0xffffffff);
    put16(out, static_cast<uint32_t>(name.size()));
    put16(out, 20);
    out += name;
    put16(out, 1);
    put16(out, 16);
    put32(out, static_cast<uint32_t>(data.size()));
    put32(out, 0);
    put32(out, static_cast<uint32_t>(packed.size()));
    put32(out, 0);
    out += packed;
    // Central directory entry.
    put32(central, 0x02014b50);
    put16(central, 45);
    put16(central, 45);
    put16(central, 0);
    put16(central, method);
    put32(central, 0);
    put32(central, crc);
    put32(central, static_cast<uint32_t>(packed.size()));
    put32(central, static_cast<uint32_t>(data.size()));
    put16(central, static_cast<uint32_t>(name.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, offset);
    central += name;
  }
  const uint32_t dirOffset = static_cast<uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(members.size()));
  put16(out, static_cast<uint32_t>(members.size()));
  put32(out, static_cast<uint32_t>(central.size()));
  put32(out, dirOffset);
  put16(out, 0);
  return out;
}

/// The members save_npz writes for format `format` and `shape`.
std::vector<std::pair<std::string, std::string>>
sparseMembers(const std::string &format, int64_t rows, int64_t cols,
              std::vector<std::pair<std::string, std::string>> arrays) {
  arrays.push_back({"format.npy", npy("|S3", {}, format)});
  arrays.push_back(
      {"shape.npy", vectorNpy("<i8", std::vector<int64_t>{rows, cols})});
  return arrays;
}

//===----------------------------------------------------------------------===//
// The small matrix of test/Inputs/small.mtx in every format
//===----------------------------------------------------------------------===//

// 4 x 5: (0,0) 1.5 + 0.5 (a duplicate), (0,2) -2, (2,1) an explicit zero,
// (2,4) 0.4, (3,3) 7; row 1 empty.
const char *kSmallMtx = "%%MatrixMarket matrix coordinate real general\n"
                        "4 5 6\n1 1 1.5\n1 3 -2\n3 2 0.0\n3 5 4e-1\n"
                        "1 1 0.5\n4 4 7\n";

std::vector<std::pair<std::string, std::string>> smallCsr() {
  return sparseMembers(
      "csr", 4, 5,
      {{"indices.npy", vectorNpy("<i4", std::vector<int32_t>{0, 2, 1, 4, 3})},
       {"indptr.npy", vectorNpy("<i4", std::vector<int32_t>{0, 2, 2, 4, 5})},
       {"data.npy",
        vectorNpy("<f8", std::vector<double>{2.0, -2.0, 0.0, 0.4, 7.0})}});
}

class NpzFiles : public ::testing::Test {
protected:
  StatusOr<CsrMatrix> readArchive(const std::string &name,
                                  const std::string &bytes,
                                  const ReadOptions &options = {}) {
    const std::string path = dir.path(name);
    writePlainFile(path, bytes);
    return readMatrixFile(path, options);
  }
  EntryMap small() {
    auto m = parseMtx(kSmallMtx);
    EXPECT_TRUE(m.isOk());
    return entriesOf(*m);
  }
  ScratchDir dir;
};

TEST_F(NpzFiles, CsrDeflatedAndStored) {
  for (bool deflated : {true, false}) {
    auto m = readArchive("a.npz", zipOf(smallCsr(), deflated));
    ASSERT_TRUE(m.isOk()) << m.status().message();
    EXPECT_EQ(m->rows, 4);
    EXPECT_EQ(m->cols, 5);
    EXPECT_EQ(entriesOf(*m), small());
  }
}

TEST_F(NpzFiles, CscFloat32Int64) {
  // Columns outer: col 0 {0: 2}, col 1 {2: 0}, col 2 {0: -2}, col 3 {3: 7},
  // col 4 {2: 0.4}.
  auto members = sparseMembers(
      "csc", 4, 5,
      {{"indices.npy", vectorNpy("<i8", std::vector<int64_t>{0, 2, 0, 3, 2})},
       {"indptr.npy",
        vectorNpy("<i8", std::vector<int64_t>{0, 1, 2, 3, 4, 5})},
       {"data.npy",
        vectorNpy("<f4", std::vector<float>{2.0f, 0.0f, -2.0f, 7.0f, 0.4f})}});
  auto m = readArchive("csc.npz", zipOf(members, true));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(entriesOf(*m), small());
}

TEST_F(NpzFiles, CooWithDuplicatesIsSummed) {
  auto members = sparseMembers(
      "coo", 4, 5,
      {{"row.npy", vectorNpy("<i4", std::vector<int32_t>{0, 0, 2, 2, 0, 3})},
       {"col.npy", vectorNpy("<i4", std::vector<int32_t>{0, 2, 1, 4, 0, 3})},
       {"data.npy", vectorNpy("<f8", std::vector<double>{1.5, -2.0, 0.0, 0.4,
                                                         0.5, 7.0})}});
  auto m = readArchive("coo.npz", zipOf(members, false));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(entriesOf(*m), small());
}

TEST_F(NpzFiles, BsrBlocksStoreEveryElement) {
  // 2 x 1 blocks: block row 0 has block columns 0 and 2, block row 1 has 1,
  // 3 and 4; the blocks' zeros are stored entries (scipy's nnz counts them).
  auto members = sparseMembers(
      "bsr", 4, 5,
      {{"indices.npy", vectorNpy("<i4", std::vector<int32_t>{0, 2, 1, 3, 4})},
       {"indptr.npy", vectorNpy("<i4", std::vector<int32_t>{0, 2, 5})},
       {"data.npy", npy("<f8", {5, 2, 1},
                        bytesOf(std::vector<double>{2, 0, -2, 0, 0, 0, 0, 7,
                                                    0.4, 0}))}});
  auto m = readArchive("bsr.npz", zipOf(members, true));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(m->nnz(), 10);
  EntryMap nonzero;
  for (const auto &[at, v] : entriesOf(*m))
    if (v != 0.0f)
      nonzero[at] = v;
  EntryMap expected;
  for (const auto &[at, v] : small())
    if (v != 0.0f)
      expected[at] = v;
  EXPECT_EQ(nonzero, expected);
}

TEST_F(NpzFiles, ChosenByContentAndValueModes) {
  // No .npz extension: the zip signature says what it is.
  auto m = readArchive("matrix.bin", zipOf(smallCsr(), true));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(entriesOf(*m), small());
  ReadOptions ones;
  ones.values = onesSpec();
  auto o = readArchive("ones.npz", zipOf(smallCsr(), true), ones);
  ASSERT_TRUE(o.isOk());
  for (float v : o->values)
    EXPECT_EQ(v, 1.0f);
  ReadOptions random;
  random.values = randomSpec(7);
  auto r = readArchive("random.npz", zipOf(smallCsr(), true), random);
  ASSERT_TRUE(r.isOk());
  // Entry e of the data array (file order) gets randomValue(seed, e).
  EXPECT_EQ(r->values[0], randomValue(7, 0));
  EXPECT_EQ(r->values[4], randomValue(7, 4));
}

TEST_F(NpzFiles, UnicodeFormatAndBoolValues) {
  std::string u(12, '\0');
  u[0] = 'c';
  u[4] = 's';
  u[8] = 'r';
  auto members = smallCsr();
  members[3] = {"format.npy", npy("<U3", {}, u)};
  members[2] = {"data.npy",
                vectorNpy("|b1", std::vector<uint8_t>{1, 1, 0, 1, 1})};
  auto m = readArchive("u.npz", zipOf(members, false));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(m->values, (std::vector<float>{1, 1, 0, 1, 1}));
}

TEST_F(NpzFiles, IntegerValuesOfEveryWidth) {
  // Unsigned values past INT64_MAX are values like any other (only an index
  // there is refused): 2^63, 2^64 - 1 and 2^63 + 1 become their float32
  // roundings; int64's extremes and a negative int8 too.
  auto members = smallCsr();
  members[2] = {
      "data.npy",
      vectorNpy("<u8", std::vector<uint64_t>{uint64_t(1) << 63, ~uint64_t(0),
                                             (uint64_t(1) << 63) + 1, 2, 0})};
  auto u = readArchive("u8.npz", zipOf(members, false));
  ASSERT_TRUE(u.isOk()) << u.status().message();
  EXPECT_EQ(u->values, (std::vector<float>{0x1p63f, 0x1p64f, 0x1p63f, 2, 0}));
  members[2] = {
      "data.npy",
      vectorNpy("<i8", std::vector<int64_t>{INT64_MIN, INT64_MAX, -1, 2, 0})};
  auto i = readArchive("i8.npz", zipOf(members, false));
  ASSERT_TRUE(i.isOk()) << i.status().message();
  EXPECT_EQ(i->values, (std::vector<float>{-0x1p63f, 0x1p63f, -1, 2, 0}));
  members[2] = {"data.npy",
                vectorNpy("|i1", std::vector<int8_t>{-128, 127, -1, 2, 0})};
  auto b = readArchive("i1.npz", zipOf(members, false));
  ASSERT_TRUE(b.isOk()) << b.status().message();
  EXPECT_EQ(b->values, (std::vector<float>{-128, 127, -1, 2, 0}));
}

//===----------------------------------------------------------------------===//
// Property: random matrices in all four formats read as their triplets
//===----------------------------------------------------------------------===//

TEST_F(NpzFiles, RandomMatricesEveryFormat) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t rows = 2 * (1 + rng() % 20), cols = 1 + rng() % 30;
    // Dense reference with ~30 % entries.
    std::vector<double> dense(rows * cols, 0.0);
    std::vector<uint8_t> present(rows * cols, 0);
    for (int64_t i = 0; i < rows * cols; ++i)
      if (rng() % 10 < 3) {
        present[i] = 1;
        dense[i] = static_cast<double>(static_cast<int64_t>(rng() % 17) - 8);
      }
    std::vector<int32_t> ptr{0}, idx, cptr{0}, cidx, row, col;
    std::vector<double> val, cval;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c)
        if (present[r * cols + c]) {
          idx.push_back(static_cast<int32_t>(c));
          val.push_back(dense[r * cols + c]);
          row.push_back(static_cast<int32_t>(r));
          col.push_back(static_cast<int32_t>(c));
        }
      ptr.push_back(static_cast<int32_t>(idx.size()));
    }
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r)
        if (present[r * cols + c]) {
          cidx.push_back(static_cast<int32_t>(r));
          cval.push_back(dense[r * cols + c]);
        }
      cptr.push_back(static_cast<int32_t>(cidx.size()));
    }
    // bsr with 2 x 1 blocks: every (block row, column) with an entry.
    std::vector<int32_t> bptr{0}, bidx;
    std::vector<double> bval;
    for (int64_t br = 0; br < rows / 2; ++br) {
      for (int64_t c = 0; c < cols; ++c)
        if (present[2 * br * cols + c] || present[(2 * br + 1) * cols + c]) {
          bidx.push_back(static_cast<int32_t>(c));
          bval.push_back(dense[2 * br * cols + c]);
          bval.push_back(dense[(2 * br + 1) * cols + c]);
        }
      bptr.push_back(static_cast<int32_t>(bidx.size()));
    }
    const std::vector<std::vector<std::pair<std::string, std::string>>> archives = {
        sparseMembers("csr", rows, cols,
                      {{"indices.npy", vectorNpy("<i4", idx)},
                       {"indptr.npy", vectorNpy("<i4", ptr)},
                       {"data.npy", vectorNpy("<f8", val)}}),
        sparseMembers("csc", rows, cols,
                      {{"indices.npy", vectorNpy("<i4", cidx)},
                       {"indptr.npy", vectorNpy("<i4", cptr)},
                       {"data.npy", vectorNpy("<f8", cval)}}),
        sparseMembers("coo", rows, cols,
                      {{"row.npy", vectorNpy("<i4", row)},
                       {"col.npy", vectorNpy("<i4", col)},
                       {"data.npy", vectorNpy("<f8", val)}}),
        sparseMembers("bsr", rows, cols,
                      {{"indices.npy", vectorNpy("<i4", bidx)},
                       {"indptr.npy", vectorNpy("<i4", bptr)},
                       {"data.npy",
                        npy("<f8", {static_cast<int64_t>(bidx.size()), 2, 1},
                            bytesOf(bval))}})};
    for (const auto &members : archives) {
      auto m = readArchive("r.npz", zipOf(members, trial % 2 == 0));
      ASSERT_TRUE(m.isOk()) << m.status().message();
      ASSERT_TRUE(m->verify()) << m->verify().message();
      // Every stored value is the dense one; every present entry is stored.
      std::vector<double> got(rows * cols, 0.0);
      for (const auto &[at, v] : entriesOf(*m))
        got[at.first * cols + at.second] = v;
      EXPECT_EQ(got, dense) << "trial " << trial;
      const EntryMap stored = entriesOf(*m);
      for (int64_t i = 0; i < rows * cols; ++i) {
        if (present[i]) {
          EXPECT_TRUE(stored.count({static_cast<int32_t>(i / cols),
                                    static_cast<int32_t>(i % cols)}));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Malformed archives and arrays
//===----------------------------------------------------------------------===//

class NpzErrors : public NpzFiles {
protected:
  /// The error of reading `bytes` as x.npz; expects it to contain `what`
  /// and to name the file.
  void expectError(const std::string &bytes, const std::string &what) {
    auto m = readArchive("x.npz", bytes);
    ASSERT_FALSE(m.isOk()) << "expected: " << what;
    EXPECT_NE(m.status().message().find(dir.path("x.npz") + ": "),
              std::string::npos)
        << m.status().message();
    EXPECT_NE(m.status().message().find(what), std::string::npos)
        << m.status().message();
    EXPECT_EQ(m.status().message().find('\n'), std::string::npos);
  }
};

TEST_F(NpzErrors, Archive) {
  std::string good = zipOf(smallCsr(), true);
  expectError("PK\x03\x04 not really", "no zip end of central directory");
  expectError(good.substr(0, good.size() / 2),
              "no zip end of central directory");
  std::string stored = zipOf(smallCsr(), false);
  // Flip a byte of the first member's data: its CRC no longer matches.
  std::string flipped = stored;
  flipped[100] ^= 0x55;
  expectError(flipped, "CRC mismatch in 'indices.npy'");
  auto members = smallCsr();
  members.erase(members.begin() + 1); // indptr
  expectError(zipOf(members, true), "no 'indptr.npy' in the archive");
  // Member names are the file's: the list in the message stays one line
  // (escaped) and short (found by spperm-fuzz-npz).
  members = smallCsr();
  members.erase(members.begin() + 1);
  members.emplace_back("odd\nname.npy", "x");
  expectError(zipOf(members, true), "odd\\x0aname.npy");
  for (int i = 0; i < 12; ++i)
    members.emplace_back("m" + std::to_string(i), "x");
  expectError(zipOf(members, true), ", ...)");
}

TEST_F(NpzErrors, Arrays) {
  auto with = [&](size_t i, std::string name, std::string bytes) {
    auto members = smallCsr();
    members[i] = {std::move(name), std::move(bytes)};
    return zipOf(members, true);
  };
  expectError(with(3, "format.npy", npy("|S3", {}, "dia")),
              "format 'dia' is not read (csr, csc, coo and bsr are; convert with A.tocsr())");
  expectError(with(2, "data.npy", npy("<c16", {5}, std::string(80, '\0'))),
              "unsupported dtype '<c16'");
  expectError(with(0, "indices.npy",
                   vectorNpy("<i4", std::vector<int32_t>{0, 2, 1, 5, 3})),
              "indices.npy element 3 (5) is out of range [0, 5)");
  expectError(with(1, "indptr.npy",
                   vectorNpy("<i4", std::vector<int32_t>{0, 2, 1, 4, 5})),
              "indptr.npy is not non-decreasing from 0");
  expectError(with(1, "indptr.npy",
                   vectorNpy("<i4", std::vector<int32_t>{0, 2, 4, 5})),
              "indptr.npy has 4 elements, expected 5");
  expectError(with(2, "data.npy",
                   vectorNpy("<f8", std::vector<double>{1, 2, 3})),
              "data.npy has 3 values for 5 entries");
  expectError(with(4, "shape.npy",
                   vectorNpy("<i8", std::vector<int64_t>{4, 5, 6})),
              "shape.npy is not two integers");
  expectError(with(4, "shape.npy",
                   vectorNpy("<i8", std::vector<int64_t>{4, -5})),
              "out of range");
  expectError(with(2, "data.npy", "not an array"),
              "data.npy: not a .npy array");
  expectError(with(2, "data.npy",
                   vectorNpy("<f8", std::vector<double>{1, 2, NAN, 3, 4})),
              "data.npy element 2 (nan) is not a finite number");
  expectError(with(2, "data.npy",
                   vectorNpy("<f8", std::vector<double>{1, 2, 1e300, 3, 4})),
              "data.npy element 2 (1e+300) is out of the float32 range");
  // A data size that disagrees with the header's shape.
  expectError(with(2, "data.npy", npy("<f8", {5}, std::string(16, '\0'))),
              "data.npy: the data is 16 bytes");
}

TEST_F(NpzErrors, NotAMatrixFile) {
  auto m = readArchive("weights.pt", std::string("\x80\x02garbage", 9));
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.status().message().find(
                "not a matrix file spperm recognizes (spperm reads Matrix "
                "Market (.mtx), DLMC (.smtx)"),
            std::string::npos)
      << m.status().message();
  EXPECT_NE(m.status().message().find("scipy.io.mmwrite"), std::string::npos);
}

} // namespace
