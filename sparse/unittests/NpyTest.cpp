//===- NpyTest.cpp - Tests of .npy reading and writing ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "SparseTestUtil.h"

#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Npy.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace spperm;
using namespace spperm::test;

namespace {

DenseMatrix sampleMatrix(int64_t rows, int64_t cols) {
  DenseMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.data.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i)
    m.data[i] = static_cast<float>(i) * 0.5f - 3.25f;
  return m;
}

/// A .npy file: the given version, header text (padded to `align` with a
/// final newline) and raw data bytes.
std::string npyBytes(const std::string &dict, const std::string &data,
                     int major = 1, size_t align = 64) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = prefix + header.size() + 1;
  header.append((align - total % align) % align, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  size_t n = header.size();
  out.push_back(static_cast<char>(n & 0xff));
  out.push_back(static_cast<char>((n >> 8) & 0xff));
  if (major != 1) {
    out.push_back(static_cast<char>((n >> 16) & 0xff));
    out.push_back(static_cast<char>((n >> 24) & 0xff));
  }
  return out + header + data;
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values)
    out.append(reinterpret_cast<const char *>(&v), 4);
  return out;
}

const char kDict23[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST(Npy, RoundTrip) {
  ScratchDir dir;
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{3, 5}, {1, 1}, {0, 4}, {4, 0}, {100, 37}}) {
    std::string path = dir.path("m.npy");
    DenseMatrix m = sampleMatrix(rows, cols);
    Status s = writeNpy(path, m);
    ASSERT_TRUE(s.isOk()) << s.message();
    StatusOr<DenseMatrix> back = readNpy(path);
    ASSERT_TRUE(back.isOk()) << back.message();
    EXPECT_EQ(back->rows, rows);
    EXPECT_EQ(back->cols, cols);
    EXPECT_EQ(back->data, m.data);
  }
  EXPECT_EQ(dir.entryCount(), 1u) << "temporary files were left behind";
}

// A float16 matrix (`<f2`): written with each value rounded to float16,
// read back widened exactly, and marked float16 both ways; the data is two
// bytes a value.
TEST(Npy, Float16RoundTrip) {
  ScratchDir dir;
  const std::string path = dir.path("h.npy");
  DenseMatrix m = sampleMatrix(7, 9);
  m.float16 = true;
  m.data[0] = 1.0f / 3.0f; // not a float16: rounded on write
  m.data[1] = std::numeric_limits<float>::infinity();
  m.data[2] = -0.0f;
  ASSERT_TRUE(writeNpy(path, m));
  StatusOr<DenseMatrix> back = readNpy(path);
  ASSERT_TRUE(back) << back.message();
  EXPECT_TRUE(back->float16);
  ASSERT_EQ(back->data.size(), m.data.size());
  for (size_t i = 0; i < m.data.size(); ++i)
    EXPECT_EQ(back->data[i], roundToValueType(m.data[i], ValueType::F16)) << i;
  EXPECT_TRUE(std::signbit(back->data[2]));
  const std::string bytes = readWholeFile(path);
  EXPECT_NE(bytes.find("'descr': '<f2'"), std::string::npos);
  EXPECT_EQ(bytes.size(), 128u + 2u * 7u * 9u); // 64-byte aligned header
  // A float32 file reads as not float16.
  m.float16 = false;
  ASSERT_TRUE(writeNpy(path, m));
  back = readNpy(path);
  ASSERT_TRUE(back) << back.message();
  EXPECT_FALSE(back->float16);
}

TEST(Npy, WrittenLayout) {
  ScratchDir dir;
  std::string path = dir.path("m.npy");
  ASSERT_TRUE(writeNpy(path, sampleMatrix(2, 3)).isOk());
  std::string bytes = readWholeFile(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                     (static_cast<unsigned char>(bytes[9]) << 8);
  size_t dataStart = 10 + headerLen;
  EXPECT_EQ(dataStart % 64, 0u);
  EXPECT_EQ(bytes[dataStart - 1], '\n');
  EXPECT_EQ(bytes.substr(10, std::strlen(kDict23)), kDict23);
  EXPECT_EQ(bytes.size(), dataStart + 6 * 4);
  // The same bytes our test helper builds, i.e. what NumPy writes.
  EXPECT_EQ(bytes, npyBytes(kDict23, bytes.substr(dataStart)));
  // A plain create's permissions, not mkstemp's 0600.
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  mode_t mask = ::umask(022);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(Npy, ReadsVersionsAndHeaderVariants) {
  ScratchDir dir;
  const std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  struct Case {
    const char *name;
    std::string bytes;
  } cases[] = {
      {"v1.npy", npyBytes(kDict23, data, 1)},
      {"v2.npy", npyBytes(kDict23, data, 2)},
      {"v3.npy", npyBytes(kDict23, data, 3)},
      // Older NumPy aligned to 16 bytes; key order and quotes may vary.
      {"align16.npy", npyBytes(kDict23, data, 1, 16)},
      {"order.npy",
       npyBytes("{\"shape\": (2,3), \"fortran_order\": False, \"descr\": "
                "\"<f4\"}",
                data)},
      {"native.npy",
       npyBytes("{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3)}",
                data)},
  };
  for (const Case &c : cases) {
    std::string path = dir.path(c.name);
    writePlainFile(path, c.bytes);
    StatusOr<DenseMatrix> m = readNpy(path);
    ASSERT_TRUE(m.isOk()) << c.name << ": " << m.message();
    EXPECT_EQ(m->rows, 2);
    EXPECT_EQ(m->cols, 3);
    EXPECT_EQ(m->data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(m->at(1, 0), 4.0f);
  }
}

TEST(Npy, RejectsMalformedFiles) {
  ScratchDir dir;
  const std::string data = floatBytes({1, 2, 3, 4, 5, 6});
  struct Case {
    const char *name;
    std::string bytes;
    const char *message; // after "PATH: "
  } cases[] = {
      {"magic.npy", "\x93NUMPX" + npyBytes(kDict23, data).substr(6),
       "not a .npy file (bad magic)"},
      {"short.npy", "\x93NU", "not a .npy file (bad magic)"},
      {"prefix.npy", std::string("\x93NUMPY\x01", 7), "truncated .npy header"},
      {"version.npy",
       [&] {
         std::string b = npyBytes(kDict23, data);
         b[6] = 4;
         return b;
       }(),
       "unsupported .npy version 4.0 (expected 1.0, 2.0 or 3.0)"},
      {"f8.npy",
       npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                data + data),
       "unsupported dtype '<f8' (expected '<f4', little-endian float32, or "
       "'<f2', float16)"},
      {"bigendian.npy",
       npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
                data),
       "unsupported dtype '>f4' (expected '<f4', little-endian float32, or "
       "'<f2', float16)"},
      {"pipe.npy",
       npyBytes("{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }",
                data),
       "unsupported dtype '|f4' (expected '<f4', little-endian float32, or "
       "'<f2', float16)"},
      {"fortran.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                data),
       "Fortran-order arrays are not supported (expected C order)"},
      {"3d.npy",
       npyBytes(
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }",
           data),
       "expected a 2-D array, but the shape has 3 dimensions"},
      {"1d.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
                data),
       "expected a 2-D array, but the shape has 1 dimension"},
      {"truncated.npy", npyBytes(kDict23, data.substr(0, 20)),
       "truncated .npy data: shape (2, 3) needs 24 bytes, the file has 20"},
      {"extra.npy", npyBytes(kDict23, data + "xy"),
       "2 unexpected bytes after the .npy data"},
      {"huge.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(4611686018427387904, 4), }",
                data),
       "shape (4611686018427387904, 4) is too large"},
      {"hugedata.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(1000000, 1000000), }",
                data),
       "truncated .npy data: shape (1000000, 1000000) needs 4000000000000 "
       "bytes, the file has 24"},
      {"headerlen.npy", npyBytes(kDict23, data).substr(0, 40),
       "truncated .npy header: it needs 118 bytes, the file has 30 after the "
       "prefix"},
      {"nokey.npy", npyBytes("{'descr': '<f4', 'shape': (2, 3), }", data),
       "malformed .npy header: header lacks 'fortran_order'"},
      {"badkey.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                "'x': 1}",
                data),
       "malformed .npy header: unexpected key 'x' in the header"},
      // Found by spperm-fuzz-npy: header text quoted in a message is
      // escaped (and cut), so the message stays one line.
      {"newlinekey.npy",
       npyBytes("{'descr': '<f4', '\nortran_order': False, 'shape': (2, 3)}",
                data),
       "malformed .npy header: unexpected key '\\x0aortran_order' in the "
       "header"},
      {"colonkey.npy", npyBytes("{'a\tb' False}", data),
       "malformed .npy header: expected ':' after 'a\\x09b' in the header"},
      {"longdescr.npy",
       npyBytes("{'descr': '" + std::string(50, 'f') +
                    "\r', 'fortran_order': False, 'shape': (2, 3)}",
                data),
       "unsupported dtype 'ffffffffffffffffffffffffffffffffffffffff...' "
       "(expected '<f4', little-endian float32, or '<f2', float16)"},
      {"notdict.npy", npyBytes("[1, 2]", data),
       "malformed .npy header: header is not a dict"},
      {"badshape.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
                data),
       "malformed .npy header: 'shape' is not a tuple of non-negative "
       "integers"},
  };
  for (const Case &c : cases) {
    std::string path = dir.path(c.name);
    writePlainFile(path, c.bytes);
    StatusOr<DenseMatrix> m = readNpy(path);
    ASSERT_FALSE(m.isOk()) << c.name;
    EXPECT_EQ(m.message(), path + ": " + c.message) << c.name;
  }
}

TEST(Npy, MissingFileAndDirectory) {
  ScratchDir dir;
  StatusOr<DenseMatrix> m = readNpy(dir.path("nope.npy"));
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(),
            dir.path("nope.npy") + ": cannot open: No such file or directory");
  m = readNpy(dir.root());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.message(), dir.root() + ": is a directory, not a .npy file");
}

TEST(Npy, WriteRejectsInconsistentMatrix) {
  ScratchDir dir;
  DenseMatrix m = sampleMatrix(2, 3);
  m.data.pop_back();
  Status s = writeNpy(dir.path("m.npy"), m);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("5 values for shape (2, 3)"), std::string::npos)
      << s.message();
  EXPECT_EQ(dir.entryCount(), 0u);
}

TEST(WriteFileAtomically, WritesAndReplaces) {
  ScratchDir dir;
  std::string path = dir.path("out.txt");
  ASSERT_TRUE(writeFileAtomically(path, "first").isOk());
  EXPECT_EQ(readWholeFile(path), "first");
  ASSERT_TRUE(writeFileAtomically(path, std::string("se\0cond", 7)).isOk());
  EXPECT_EQ(readWholeFile(path), std::string("se\0cond", 7));
  ASSERT_TRUE(writeFileAtomically(path, "").isOk());
  EXPECT_EQ(readWholeFile(path), "");
  EXPECT_EQ(dir.entryCount(), 1u);
}

TEST(WriteFileAtomically, FailsCleanly) {
  ScratchDir dir;
  // The directory does not exist: no temporary file can be made.
  std::string missing = dir.path("no/such/dir/out.txt");
  Status s = writeFileAtomically(missing, "x");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), missing + ": cannot write: the directory " +
                            dir.path("no/such/dir") + " does not exist");
  // A file on the way: said so.
  writePlainFile(dir.path("file"), "f");
  std::string through = dir.path("file/sub/out.txt");
  s = writeFileAtomically(through, "x");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), through + ": cannot write: a component of " +
                             dir.path("file/sub") + " is not a directory");
  ASSERT_EQ(::unlink(dir.path("file").c_str()), 0);
  // The target is a directory: refused, nothing made beside it.
  std::string target = dir.path("target");
  ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
  std::string inside = target + "/keep";
  writePlainFile(inside, "k");
  s = writeFileAtomically(target, "x");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), target + ": is a directory");
  EXPECT_EQ(dir.entryCount(), 1u) << "a temporary file was left behind";
  EXPECT_EQ(readWholeFile(inside), "k");
}

TEST(WriteFileAtomically, WritesThroughLinksAndIntoDevices) {
  ScratchDir dir;
  // A symbolic link (relative, dangling at first) is written through: the
  // link stays a link, its target gets the bytes; then replaced again.
  std::string link = dir.path("link.txt");
  ASSERT_EQ(::symlink("target.txt", link.c_str()), 0);
  ASSERT_TRUE(writeFileAtomically(link, "first").isOk());
  ASSERT_TRUE(writeFileAtomically(link, "second").isOk());
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(readWholeFile(dir.path("target.txt")), "second");
  EXPECT_EQ(dir.entryCount(), 2u);
  // A chain of links: the last target is replaced, every link stays.
  std::string outer = dir.path("outer.txt");
  ASSERT_EQ(::symlink("link.txt", outer.c_str()), 0);
  ASSERT_TRUE(writeFileAtomically(outer, "third").isOk());
  ASSERT_EQ(::lstat(outer.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(readWholeFile(dir.path("target.txt")), "third");
  EXPECT_EQ(dir.entryCount(), 3u);
  // A device is written in place, not replaced by a regular file.
  ASSERT_TRUE(writeFileAtomically("/dev/null", "x").isOk());
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

} // namespace
