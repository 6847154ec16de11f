//===- RuntimeTestUtil.h - Helpers for the runtime tests --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the runtime's test files share: packages made of the test matrices in
// every format and strategy (makeLayer), the float64 reference C is checked
// against, loading through the C API, the file edits of the corruption
// tests (a byte patched, a manifest rewritten with a valid checksum), the
// hand-written GPU kernels of Inputs/test_kernels.cu, and environment
// variables set for a scope.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define SPPERM_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include "SparseTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace spperm::test {

/// The manifest as JSON, its keys kept in order.
using json = nlohmann::ordered_json;

/// Writes `bytes` to `path`, replacing the file.
inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

/// Overwrites one byte of an existing file in place (much cheaper than
/// rewriting the file, which the flip tests do thousands of times).
inline void patchByte(const std::string &path, size_t offset, char value) {
  int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::pwrite(fd, &value, 1, static_cast<off_t>(offset)), 1) << path;
  ASSERT_EQ(::close(fd), 0);
}

/// Whether `path` exists.
inline bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// Format parameters small enough for the test matrices.
inline FormatOptions formatOptions(FormatKind kind) {
  FormatOptions o;
  o.kind = kind;
  o.bellBlock = 4;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 16;
  o.hbpWarps = 4;
  return o;
}

/// A package layer of `m` made with strategy `s` in format `kind`.
inline PackageLayer makeLayer(const std::string &name, const CsrMatrix &m,
                              Strategy s, FormatKind kind, int64_t k = 0) {
  PackageLayer layer;
  layer.name = name;
  layer.permutation.strategy = s;
  layer.permutation.warps = 4;
  layer.format = formatOptions(kind);
  StatusOr<Permutation> perm = computePermutation(m, layer.permutation);
  EXPECT_TRUE(perm) << perm.message();
  StatusOr<FormattedMatrix> f = buildFormat(m, perm->order, layer.format);
  EXPECT_TRUE(f) << f.message();
  layer.matrix = std::move(*f);
  layer.k = k;
  layer.sourcePath = name + ".mtx";
  layer.values.mode = ValueMode::File;
  return layer;
}

/// A layer's source file: its matrix as read back and its sha256.
struct SourceFile {
  CsrMatrix matrix;
  std::string sha256;
};

/// Writes `m` to `path` as Matrix Market and reads it back (the values as
/// the file holds them) with the file's sha256; nullopt, with the failure
/// recorded, when a step fails.
inline std::optional<SourceFile> writeSource(const std::string &path,
                                             const CsrMatrix &m) {
  EXPECT_TRUE(writeMatrixMarket(path, m)) << path;
  StatusOr<CsrMatrix> reread = readMatrixFile(path);
  EXPECT_TRUE(reread) << reread.message();
  StatusOr<std::string> sha = sha256File(path);
  EXPECT_TRUE(sha) << sha.message();
  if (!reread || !sha)
    return std::nullopt;
  return SourceFile{std::move(*reread), *sha};
}

/// The test matrices: uniform, skewed (empty and long rows), block-sparse.
inline std::vector<CsrMatrix> testMatrices() {
  return {generateUniform(70, 50, 0.08, 1), generateSkewed(90, 60, 2),
          generateBlockSparse(64, 48, 4, 0.3, 3)};
}

/// C = A * B in float64, rows in the original order.
inline std::vector<double> reference(const CsrMatrix &a,
                                     const std::vector<float> &b, int64_t k) {
  std::vector<double> c(static_cast<size_t>(a.rows) * k, 0.0);
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t e = a.rowPtr[r]; e < a.rowPtr[r + 1]; ++e)
      for (int64_t j = 0; j < k; ++j)
        c[r * k + j] += static_cast<double>(a.values[e]) *
                        b[static_cast<int64_t>(a.colIdx[e]) * k + j];
  return c;
}

/// ||got - want|| / ||want|| (Frobenius; absolute when want is 0).
inline double relativeError(const std::vector<float> &got,
                            const std::vector<double> &want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

/// `count` floats uniform in [-1, 1), from `seed`.
inline std::vector<float> randomDense(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v)
    x = u(rng);
  return v;
}

/// Loads through the C API; returns the status, the message in `message`.
inline sprt_status tryLoad(const std::string &dir, std::string &message) {
  sprt_package *p = reinterpret_cast<sprt_package *>(0x1);
  sprt_status s = sprt_package_load(dir.c_str(), SPRT_DEVICE_CPU, &p);
  message = s == SPRT_OK ? "" : sprt_last_error();
  if (s != SPRT_OK) {
    EXPECT_EQ(p, nullptr);
  }
  sprt_package_release(s == SPRT_OK ? p : nullptr);
  return s;
}

/// Asserts that loading `dir` is refused as corrupt or unreadable, with one
/// line that names a file of the package.
inline void expectRefused(const std::string &dir, const std::string &what) {
  std::string message;
  sprt_status s = tryLoad(dir, message);
  EXPECT_TRUE(s == SPRT_ERROR_CORRUPT_PACKAGE || s == SPRT_ERROR_IO)
      << what << ": status " << sprt_status_name(s);
  EXPECT_FALSE(message.empty()) << what;
  EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": " << message;
  EXPECT_EQ(message.rfind(dir, 0), 0u) << what << ": " << message;
}

/// The manifest's closing checksum as docs/Package.md defines it.
inline std::string withChecksum(const json &manifest) {
  std::string text = manifest.dump(2);
  text.resize(text.size() - 2);
  text += ",\n  ";
  std::string sha = sha256Hex(text.data(), text.size());
  return text + "\"manifest_sha256\": \"" + sha + "\"\n}\n";
}

/// Edits the manifest of `dir` and writes it back with a valid checksum.
inline void rewriteManifest(const std::string &dir,
                            const std::function<void(json &)> &edit) {
  json j = json::parse(readWholeFile(dir + "/manifest.json"));
  j.erase("manifest_sha256");
  edit(j);
  writeBytes(dir + "/manifest.json", withChecksum(j));
}

/// Copies the package directory `from` to `to`.
inline void copyPackage(const std::string &from, const std::string &to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

/// Expects `a` and `b` to be the same matrix, array for array.
inline void expectSameCsr(const CsrMatrix &a, const CsrMatrix &b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.rowPtr, b.rowPtr);
  EXPECT_EQ(a.colIdx, b.colIdx);
  EXPECT_EQ(a.values, b.values);
}

/// Expects `a` and `b` to be the same format, array for array.
inline void expectSameMatrix(const FormattedMatrix &a,
                             const FormattedMatrix &b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.nnz, b.nnz);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.order, b.order);
  switch (a.kind) {
  case FormatKind::Csr:
    expectSameCsr(a.csr, b.csr);
    break;
  case FormatKind::Bell:
    EXPECT_EQ(a.bell.block, b.bell.block);
    EXPECT_EQ(a.bell.width, b.bell.width);
    EXPECT_EQ(a.bell.blockRows, b.bell.blockRows);
    EXPECT_EQ(a.bell.blockCol, b.bell.blockCol);
    EXPECT_EQ(a.bell.blockValues, b.bell.blockValues);
    EXPECT_EQ(a.bell.delta, b.bell.delta);
    EXPECT_EQ(a.bell.denseNnz, b.bell.denseNnz);
    EXPECT_EQ(a.bell.condensed, b.bell.condensed);
    EXPECT_EQ(a.bell.tileCol, b.bell.tileCol);
    expectSameCsr(a.bell.residual, b.bell.residual);
    break;
  case FormatKind::Hbp:
    EXPECT_EQ(a.hbp.rowBlock, b.hbp.rowBlock);
    EXPECT_EQ(a.hbp.colBlock, b.hbp.colBlock);
    EXPECT_EQ(a.hbp.blockRows, b.hbp.blockRows);
    EXPECT_EQ(a.hbp.blockCols, b.hbp.blockCols);
    EXPECT_EQ(a.hbp.blocks, b.hbp.blocks);
    EXPECT_EQ(a.hbp.col, b.hbp.col);
    EXPECT_EQ(a.hbp.data, b.hbp.data);
    EXPECT_EQ(a.hbp.addSign, b.hbp.addSign);
    EXPECT_EQ(a.hbp.zeroRow, b.hbp.zeroRow);
    EXPECT_EQ(a.hbp.beginNnz, b.hbp.beginNnz);
    EXPECT_EQ(a.hbp.outputHash, b.hbp.outputHash);
    EXPECT_EQ(a.hbp.fixedBlocks, b.hbp.fixedBlocks);
    EXPECT_EQ(a.hbp.fixedBlockPtr, b.hbp.fixedBlockPtr);
    EXPECT_EQ(a.hbp.competitiveBlocks, b.hbp.competitiveBlocks);
    EXPECT_EQ(a.hbp.hashA, b.hbp.hashA);
    EXPECT_EQ(a.hbp.hashB, b.hbp.hashB);
    EXPECT_EQ(a.hbp.hashC, b.hbp.hashC);
    EXPECT_EQ(a.hbp.hashD, b.hbp.hashD);
    break;
  }
}

/// The formats and strategies the package tests cover.
const FormatKind kKinds[] = {FormatKind::Csr, FormatKind::Bell,
                             FormatKind::Hbp};
const Strategy kStrategies[] = {Strategy::Identity, Strategy::Lpt,
                                Strategy::Hybrid21, Strategy::Bsa};

/// A checked layer with two alternatives (the selector's shortlist): each
/// has the layer's matrix in its own strategy and format, and kernels.
inline std::vector<PackageLayer> layersWithAlternatives(const CsrMatrix &m) {
  KernelInfo kernel;
  kernel.family = "csr";
  kernel.variant = "any";
  kernel.args = {"order", "B", "C", "K"};
  kernel.blockX = 32;
  PackageLayer layer = makeLayer("fc", m, Strategy::Lpt, FormatKind::Csr);
  layer.libraryCheck = true;
  kernel.name = "l0_csr";
  layer.kernels.push_back(kernel);
  PackageLayer bell = makeLayer("fc", m, Strategy::Bsa, FormatKind::Bell);
  bell.libraryCheck = true;
  kernel.name = "l0a1_bell";
  bell.kernels.push_back(kernel);
  PackageLayer csr = makeLayer("fc", m, Strategy::Identity, FormatKind::Csr);
  csr.libraryCheck = true;
  kernel.name = "l0a2_csr";
  csr.kernels.push_back(kernel);
  layer.alternatives = {bell, csr};
  PackageLayer plain = makeLayer("plain", m, Strategy::Identity,
                                 FormatKind::Csr);
  return {layer, plain};
}

/// The hand-written kernels (Inputs/test_kernels.cu, compiled to PTX).
inline std::string testPtx() {
  std::string ptx =
      readWholeFile(SPPERM_RUNTIME_TEST_INPUTS "/test_kernels.ptx");
  EXPECT_FALSE(ptx.empty())
      << "cannot read " SPPERM_RUNTIME_TEST_INPUTS "/test_kernels.ptx";
  return ptx;
}

/// A test kernel of `variant` for K % kAlign == 0, with a launch
/// configuration that covers any matrix (the kernels loop over the rows).
/// They read the layer's csr.* buffers (a csr layer's own).
inline KernelInfo testKernel(const std::string &name,
                             const std::string &variant, int64_t kAlign = 1,
                             bool zeroOutput = false) {
  KernelInfo k;
  k.name = name;
  k.family = "csr";
  k.variant = variant;
  k.kAlign = kAlign;
  k.zeroOutput = zeroOutput;
  k.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values",
            "B",     "C",           "K"};
  k.gridX = 8;
  k.blockX = 128;
  return k;
}

/// A layer's transposing kernel (`transpose_b`): Inputs/test_kernels.cu's
/// grid-stride `transpose_b`, or any generated kernel's name.
inline KernelInfo testTransposeKernel(const std::string &name = "transpose_b",
                                      int64_t gridX = 16) {
  KernelInfo k;
  k.name = name;
  k.family = k.variant = "transpose";
  k.args = {"B_col", "B", "K"};
  k.gridX = gridX;
  k.blockX = kTransposeThreads;
  return k;
}

/// An in-place kernel over a csr layer's arrays (`in_place_b`):
/// Inputs/test_kernels.cu's `spmm_in_place` (one thread per element of C,
/// reading the column-major B where it is), or any name, for K = `k` (0:
/// any).
inline KernelInfo testInPlaceKernel(const std::string &name = "spmm_in_place",
                                    int64_t k = 0) {
  KernelInfo kernel;
  kernel.name = name;
  kernel.family = "in-place";
  kernel.variant = "in-place.test";
  kernel.kMin = k > 0 ? k : 1;
  kernel.kMax = k;
  kernel.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values",
                 "B_col", "C", "K"};
  kernel.gridX = 64;
  kernel.blockX = 128;
  return kernel;
}

/// The test kernels as a layer's: for K % 32 == 0, the two-launch "atomic"
/// variant (adds into C, so it needs C cleared); for any other K, "rows".
inline std::vector<KernelInfo> testKernels() {
  return {testKernel("spmm_even", "atomic", 32, true),
          testKernel("spmm_odd", "atomic", 32),
          testKernel("spmm_rows", "rows")};
}

/// Sets (or, for nullptr, unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name;
  std::optional<std::string> saved;
};

/// Loads `path` for the GPU, or skips the test with the runtime's reason.
#define LOAD_GPU_OR_SKIP(path, package)                                        \
  do {                                                                         \
    sprt_status s_ = sprt_package_load((path).c_str(), SPRT_DEVICE_GPU,       \
                                       &(package));                            \
    if (s_ == SPRT_ERROR_DEVICE || s_ == SPRT_ERROR_UNSUPPORTED) {            \
      std::string message_ = sprt_last_error();                                \
      EXPECT_EQ(message_.find('\n'), std::string::npos) << message_;          \
      EXPECT_EQ((package), nullptr);                                           \
      GTEST_SKIP() << "no usable GPU: " << message_;                           \
    }                                                                          \
    ASSERT_EQ(s_, SPRT_OK) << sprt_last_error();                              \
  } while (0)

/// Device memory for the duration of a test.
struct DeviceArray {
  void *ptr = nullptr;
  explicit DeviceArray(int64_t bytes) {
    EXPECT_EQ(sprt_device_malloc(bytes, &ptr), SPRT_OK) << sprt_last_error();
  }
  ~DeviceArray() { EXPECT_EQ(sprt_device_free(ptr), SPRT_OK); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  float *get() const { return static_cast<float *>(ptr); }
};

/// Writes at `path` a package of `layers` library layers of `a` (csr,
/// identity order, no kernels of their own; `transposeB` their transposing
/// kernel where given), named dense0, dense1, ..., and makes the dense
/// candidate, cublas-sgemm, their choice for the bucket of `k` in the
/// tuning cache `cachePath` (the caller's $SPRT_TUNING_CACHE): a first call
/// of each at `k` times the candidates, then the entries are edited. Skips
/// the test where there is no usable GPU or no dense candidate (cuBLAS did
/// not load); the caller returns when IsSkipped() or HasFatalFailure().
inline void writeDenseChoice(const std::string &path,
                             const std::string &cachePath, const CsrMatrix &a,
                             int64_t k,
                             std::optional<KernelInfo> transposeB = {},
                             int layers = 1) {
  std::vector<PackageLayer> written;
  for (int i = 0; i < layers; ++i) {
    written.push_back(makeLayer("dense" + std::to_string(i), a,
                                Strategy::Identity, FormatKind::Csr));
    written.back().transposeB = transposeB;
  }
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(path, written, options));
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(path, p);
  {
    DeviceArray b(a.cols * k * 4), c(a.rows * k * 4);
    for (int i = 0; i < layers; ++i)
      ASSERT_EQ(sprt_spmm(p, i, b.get(), k, c.get(), nullptr), SPRT_OK)
          << sprt_last_error();
  }
  sprt_package_release(p);
  nlohmann::json root =
      nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), static_cast<size_t>(layers));
  for (nlohmann::json &entry : root["entries"]) {
    if (!entry["key"]["dense"].get<bool>())
      GTEST_SKIP() << "no dense candidate here (cuBLAS did not load)";
    entry["choice"]["library"] = "cublas-sgemm";
  }
  writeBytes(cachePath, root.dump());
}

} // namespace spperm::test

#endif // SPPERM_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
