//===- SparseTestUtil.h - Helpers for the sparse core tests -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A scratch directory per test, writers for plain and gzip files, and a dense
// view of a CsrMatrix for comparisons.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_UNITTESTS_SPARSE_SPARSETESTUTIL_H
#define SPPERM_UNITTESTS_SPARSE_SPARSETESTUTIL_H

#include "spperm/Sparse/CsrMatrix.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <zlib.h>

namespace spperm::test {

/// A fresh directory under the gtest temporary directory, removed with its
/// contents on destruction.
class ScratchDir {
public:
  ScratchDir() {
    std::string tmpl = ::testing::TempDir() + "spperm-test-XXXXXX";
    char *made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr) << "mkdtemp failed for " << tmpl;
    dir = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    // A test may have taken the write permission away.
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir, ec);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  /// The path of `name` inside the directory.
  std::string path(const std::string &name) const { return dir + "/" + name; }
  const std::string &root() const { return dir; }

  /// The number of entries in the directory.
  size_t entryCount() const {
    std::error_code ec;
    size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      ++n;
    return n;
  }

private:
  std::string dir;
};

/// Writes `bytes` to `path` as a plain file.
inline void writePlainFile(const std::string &path, const std::string &bytes) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
}

/// Writes `text` to `path` gzip-compressed.
inline void writeGzipFile(const std::string &path, const std::string &text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  if (!text.empty()) {
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
  }
  ASSERT_EQ(gzclose(f), Z_OK);
}

/// Reads a whole file.
inline std::string readWholeFile(const std::string &path) {
  std::string out;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.append(buf, n);
  std::fclose(f);
  return out;
}

/// The stored entries of a CsrMatrix keyed by (row, column).
using EntryMap = std::map<std::pair<int32_t, int32_t>, float>;

inline EntryMap entriesOf(const CsrMatrix &m) {
  EntryMap out;
  for (int32_t r = 0; r < m.rows; ++r)
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k)
      out[{r, m.colIdx[k]}] = m.values[k];
  return out;
}

} // namespace spperm::test

#endif // SPPERM_UNITTESTS_SPARSE_SPARSETESTUTIL_H
