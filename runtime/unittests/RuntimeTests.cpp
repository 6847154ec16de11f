//===- RuntimeTests.cpp - Tests of the package and the runtime --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SHA-256 against the FIPS 180-2 vectors; packages written with writePackage
// in every format and several strategies, read back exactly and run through
// the C API against a float64 reference; every argument error; and the
// corruption suite: every byte of a small package's manifest and data
// flipped, truncations, deletions, and crafted manifests whose checksums are
// recomputed so that only the structural checks can catch them. Each must
// be refused with one line, never crash.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "CApiSmoke.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Runtime/SpPermRuntime.hpp"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Package.h"

#include "SparseTestUtil.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace spperm;
using json = nlohmann::ordered_json;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Scratch directories come from the sparse core's test helpers.
using ::spperm::test::ScratchDir;
using ::spperm::test::readWholeFile;

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

/// Overwrites one byte of an existing file in place (much cheaper than
/// rewriting the file, which the flip tests do thousands of times).
void patchByte(const std::string &path, size_t offset, char value) {
  int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::pwrite(fd, &value, 1, static_cast<off_t>(offset)), 1) << path;
  ASSERT_EQ(::close(fd), 0);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// Format parameters small enough for the test matrices.
FormatOptions formatOptions(FormatKind kind) {
  FormatOptions o;
  o.kind = kind;
  o.bellBlock = 4;
  o.hbpRowBlock = 64;
  o.hbpColBlock = 16;
  o.hbpWarps = 4;
  return o;
}

/// A package layer of `m` made with strategy `s` in format `kind`.
PackageLayer makeLayer(const std::string &name, const CsrMatrix &m, Strategy s,
                       FormatKind kind, int64_t k = 0) {
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

/// The test matrices: uniform, skewed (empty and long rows), block-sparse.
std::vector<CsrMatrix> testMatrices() {
  return {generateUniform(70, 50, 0.08, 1), generateSkewed(90, 60, 2),
          generateBlockSparse(64, 48, 4, 0.3, 3)};
}

/// C = A * B in float64, rows in the original order.
std::vector<double> reference(const CsrMatrix &a, const std::vector<float> &b,
                              int64_t k) {
  std::vector<double> c(static_cast<size_t>(a.rows) * k, 0.0);
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t e = a.rowPtr[r]; e < a.rowPtr[r + 1]; ++e)
      for (int64_t j = 0; j < k; ++j)
        c[r * k + j] += static_cast<double>(a.values[e]) *
                        b[static_cast<int64_t>(a.colIdx[e]) * k + j];
  return c;
}

/// ||got - want|| / ||want|| (Frobenius; absolute when want is 0).
double relativeError(const std::vector<float> &got,
                     const std::vector<double> &want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

std::vector<float> randomDense(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v)
    x = u(rng);
  return v;
}

/// Loads through the C API; returns the status, the message in `message`.
sprt_status tryLoad(const std::string &dir, std::string &message) {
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
void expectRefused(const std::string &dir, const std::string &what) {
  std::string message;
  sprt_status s = tryLoad(dir, message);
  EXPECT_TRUE(s == SPRT_ERROR_CORRUPT_PACKAGE || s == SPRT_ERROR_IO)
      << what << ": status " << sprt_status_name(s);
  EXPECT_FALSE(message.empty()) << what;
  EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": " << message;
  EXPECT_EQ(message.rfind(dir, 0), 0u) << what << ": " << message;
}

/// The manifest's closing checksum as docs/Package.md defines it.
std::string withChecksum(const json &manifest) {
  std::string text = manifest.dump(2);
  text.resize(text.size() - 2);
  text += ",\n  ";
  std::string sha = sha256Hex(text.data(), text.size());
  return text + "\"manifest_sha256\": \"" + sha + "\"\n}\n";
}

/// Edits the manifest of `dir` and writes it back with a valid checksum.
void rewriteManifest(const std::string &dir,
                     const std::function<void(json &)> &edit) {
  json j = json::parse(readWholeFile(dir + "/manifest.json"));
  j.erase("manifest_sha256");
  edit(j);
  writeBytes(dir + "/manifest.json", withChecksum(j));
}

/// Copies the package directory `from` to `to`.
void copyPackage(const std::string &from, const std::string &to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

//===----------------------------------------------------------------------===//
// SHA-256
//===----------------------------------------------------------------------===//

TEST(Sha256Test, FipsVectors) {
  EXPECT_EQ(sha256Hex("", 0),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc", 3),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string m448 =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256Hex(m448.data(), m448.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(sha256Hex(million.data(), million.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, FileMatchesMemoryAtEveryPaddingBoundary) {
  ScratchDir dir;
  std::mt19937 rng(5);
  // Lengths around the 55/56/64-byte padding cases and across read chunks.
  for (size_t n : {0u, 1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u,
                   65535u, 65536u, 65537u, 200001u}) {
    std::string bytes(n, '\0');
    for (char &c : bytes)
      c = static_cast<char>(rng());
    writeBytes(dir.path("f"), bytes);
    StatusOr<std::string> file = sha256File(dir.path("f"));
    ASSERT_TRUE(file) << file.message();
    EXPECT_EQ(*file, sha256Hex(bytes.data(), bytes.size())) << n;
  }
  StatusOr<std::string> missing = sha256File(dir.path("missing"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos);
  // Not a regular file: refused rather than read forever (an external
  // package source naming /dev/zero hung readPackage).
  for (const std::string &special : {std::string("/dev/zero"), dir.root()}) {
    StatusOr<std::string> sha = sha256File(special);
    ASSERT_FALSE(sha) << special;
    EXPECT_EQ(sha.message(), special + ": not a regular file");
  }
}

//===----------------------------------------------------------------------===//
// Writing and reading
//===----------------------------------------------------------------------===//

void expectSameCsr(const CsrMatrix &a, const CsrMatrix &b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.rowPtr, b.rowPtr);
  EXPECT_EQ(a.colIdx, b.colIdx);
  EXPECT_EQ(a.values, b.values);
}

void expectSameMatrix(const FormattedMatrix &a, const FormattedMatrix &b) {
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

const FormatKind kKinds[] = {FormatKind::Csr, FormatKind::Bell,
                             FormatKind::Hbp};
const Strategy kStrategies[] = {Strategy::Identity, Strategy::Lpt,
                                Strategy::Hybrid21, Strategy::Bsa};

TEST(PackageTest, RoundTripIsExact) {
  ScratchDir dir;
  std::vector<PackageLayer> layers;
  std::vector<CsrMatrix> matrices = testMatrices();
  for (FormatKind kind : kKinds)
    for (size_t s = 0; s < std::size(kStrategies); ++s) {
      std::string name = std::string(formatName(kind)) + "_" +
                         std::string(strategyCliName(kStrategies[s]));
      layers.push_back(makeLayer(name, matrices[s % matrices.size()],
                                 kStrategies[s], kind, s == 1 ? 8 : 0));
    }
  // A bell layer that also carries its permuted CSR (the csr.* buffers).
  PackageLayer withCsr =
      makeLayer("bell_with_csr", matrices[0], Strategy::Lpt, FormatKind::Bell);
  withCsr.matrix.csr = permuteRows(matrices[0], withCsr.matrix.order);
  layers.push_back(withCsr);
  KernelInfo kernel;
  kernel.name = "spmm_csr_0";
  kernel.family = "csr";
  kernel.variant = "vec4";
  kernel.kMin = 4;
  kernel.kAlign = 4;
  kernel.zeroOutput = true;
  kernel.args = {"order", "csr.row_ptr", "csr.col_idx", "csr.values", "B",
                 "C", "K"};
  kernel.gridX = 4;
  kernel.blockX = 128;
  kernel.sharedBytes = 4096;
  layers[0].kernels.push_back(kernel);
  // A second kernel of the variant, launched as the first's dependent.
  kernel.name = "spmm_csr_1";
  kernel.zeroOutput = false;
  kernel.dependentLaunch = true;
  layers[0].kernels.push_back(kernel);
  layers[0].sourceSha256 = std::string(64, 'a');
  layers[0].libraryCheck = true;
  layers[1].values = {ValueMode::Random, 42};
  PackageOptions options;
  options.ptx = "// ptx\n.version 8.0\n";
  options.cubin = std::string("\x7f"
                              "ELF\0\1\2",
                              7);
  ASSERT_TRUE(writePackage(dir.path("m.spp"), layers, options));
  EXPECT_TRUE(exists(dir.path("m.spp/kernels.ptx")));
  EXPECT_TRUE(exists(dir.path("m.spp/kernels.sm_90.cubin")));

  StatusOr<Package> read = readPackage(dir.path("m.spp"));
  ASSERT_TRUE(read) << read.message();
  EXPECT_EQ(read->target, "sm_90");
  EXPECT_FALSE(read->externalData);
  EXPECT_EQ(read->ptx, options.ptx);
  EXPECT_EQ(read->cubin, options.cubin);
  // The library check is kept for the layer that asks for it only.
  EXPECT_TRUE(read->layers[0].libraryCheck);
  EXPECT_FALSE(read->layers[1].libraryCheck);
  ASSERT_EQ(read->layers.size(), layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(layers[i].name);
    const PackageLayer &got = read->layers[i], &want = layers[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.k, want.k);
    EXPECT_EQ(got.permutation.strategy, want.permutation.strategy);
    EXPECT_EQ(got.permutation.warps, want.permutation.warps);
    EXPECT_EQ(got.permutation.alpha, want.permutation.alpha);
    EXPECT_EQ(got.format.kind, want.format.kind);
    EXPECT_EQ(got.sourcePath, want.sourcePath);
    EXPECT_EQ(got.sourceSha256, want.sourceSha256);
    EXPECT_TRUE(got.values == want.values);
    ASSERT_EQ(got.kernels.size(), want.kernels.size());
    for (size_t k = 0; k < got.kernels.size(); ++k) {
      EXPECT_EQ(got.kernels[k].name, want.kernels[k].name);
      EXPECT_EQ(got.kernels[k].blockX, want.kernels[k].blockX);
      EXPECT_EQ(got.kernels[k].sharedBytes, want.kernels[k].sharedBytes);
      EXPECT_EQ(got.kernels[k].variant, want.kernels[k].variant);
      EXPECT_EQ(got.kernels[k].kMin, want.kernels[k].kMin);
      EXPECT_EQ(got.kernels[k].kAlign, want.kernels[k].kAlign);
      EXPECT_EQ(got.kernels[k].zeroOutput, want.kernels[k].zeroOutput);
      EXPECT_EQ(got.kernels[k].dependentLaunch,
                want.kernels[k].dependentLaunch);
      EXPECT_EQ(got.kernels[k].args, want.kernels[k].args);
    }
    expectSameMatrix(got.matrix, want.matrix);
  }
  expectSameCsr(read->layers.back().matrix.csr, withCsr.matrix.csr);

  // The manifest is pretty JSON with the documented top-level keys and
  // 256-byte aligned buffers.
  json m = json::parse(readWholeFile(dir.path("m.spp/manifest.json")));
  std::vector<std::string> keys;
  for (auto it = m.begin(); it != m.end(); ++it)
    keys.push_back(it.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"schema", "version", "target", "data",
                                      "code", "layers", "manifest_sha256"}));
  for (const json &l : m["layers"])
    for (const json &b : l["buffers"])
      EXPECT_EQ(b["offset"].get<uint64_t>() % 256, 0u);
}

/// A checked layer with two alternatives (the selector's shortlist): each
/// has the layer's matrix in its own strategy and format, and kernels.
std::vector<PackageLayer> layersWithAlternatives(const CsrMatrix &m) {
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

TEST(PackageTest, AlternativesRoundTrip) {
  ScratchDir dir;
  CsrMatrix m = generateBlockSparse(64, 48, 4, 0.3, 3);
  std::vector<PackageLayer> layers = layersWithAlternatives(m);
  PackageOptions options;
  options.ptx = ".version 8.0\n";
  ASSERT_TRUE(writePackage(dir.path("a.spp"), layers, options));
  StatusOr<Package> read = readPackage(dir.path("a.spp"));
  ASSERT_TRUE(read) << read.message();
  ASSERT_EQ(read->layers.size(), 2u);
  EXPECT_TRUE(read->layers[1].alternatives.empty());
  const PackageLayer &got = read->layers[0];
  ASSERT_EQ(got.alternatives.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("alternative " + std::to_string(i + 1));
    const PackageLayer &alt = got.alternatives[i];
    const PackageLayer &want = layers[0].alternatives[i];
    EXPECT_EQ(alt.name, "fc");
    EXPECT_EQ(alt.sourcePath, layers[0].sourcePath);
    EXPECT_TRUE(alt.libraryCheck);
    EXPECT_EQ(alt.permutation.strategy, want.permutation.strategy);
    EXPECT_EQ(alt.format.kind, want.format.kind);
    ASSERT_EQ(alt.kernels.size(), 1u);
    EXPECT_EQ(alt.kernels[0].name, want.kernels[0].name);
    expectSameMatrix(alt.matrix, want.matrix);
  }
  expectSameMatrix(got.matrix, layers[0].matrix);
  // The manifest holds only what differs.
  json manifest = json::parse(readWholeFile(dir.path("a.spp/manifest.json")));
  std::vector<std::string> keys;
  for (auto it = manifest["layers"][0]["alternatives"][0].begin();
       it != manifest["layers"][0]["alternatives"][0].end(); ++it)
    keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"strategy", "strategy_params",
                                            "format", "format_params",
                                            "kernels", "buffers"}));

  // The CPU runs the layer's own variant; every variant is the same C.
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("a.spp").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_OK)
      << sprt_last_error();
  std::vector<float> b = randomDense(m.cols * 8, 5);
  std::vector<float> c(static_cast<size_t>(m.rows * 8));
  ASSERT_EQ(sprt_spmm(p, 0, b.data(), 8, c.data(), nullptr), SPRT_OK);
  EXPECT_LE(relativeError(c, reference(m, b, 8)), 1e-5);
  sprt_package_release(p);

  // The writer refuses alternatives that are not the layer's matrix, or
  // that nothing would time.
  auto refused = [&](std::vector<PackageLayer> bad, const char *what) {
    Status s = writePackage(dir.path("bad.spp"), bad, options);
    EXPECT_FALSE(s) << what;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
    EXPECT_FALSE(exists(dir.path("bad.spp")));
  };
  std::vector<PackageLayer> bad = layers;
  bad[0].libraryCheck = false;
  refused(bad, "alternatives need the library check");
  bad = layers;
  bad[0].alternatives[1].sourcePath = "other.mtx";
  refused(bad, "alternative 2: not the layer's matrix");
  bad = layers;
  bad[0].alternatives[0].kernels.clear();
  refused(bad, "alternative 1: needs generated kernels");
  bad = layers;
  bad[0].alternatives[0].alternatives.push_back(layers[0].alternatives[1]);
  refused(bad, "no alternatives of its own");
}

TEST(PackageTest, ReplacesAPackageButNothingElse) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(20, 20, 0.2, 7);
  std::vector<PackageLayer> one = {
      makeLayer("a", m, Strategy::Identity, FormatKind::Csr)};
  std::vector<PackageLayer> two = {
      makeLayer("b", m, Strategy::Lpt, FormatKind::Bell)};
  PackageOptions options;
  options.ptx = "old";
  ASSERT_TRUE(writePackage(dir.path("p.spp/"), one, options));
  ASSERT_TRUE(writePackage(dir.path("p.spp"), two, PackageOptions()));
  StatusOr<Package> read = readPackage(dir.path("p.spp"));
  ASSERT_TRUE(read) << read.message();
  ASSERT_EQ(read->layers.size(), 1u);
  EXPECT_EQ(read->layers[0].name, "b");
  // Nothing of the old package, and no temporary directory, is left.
  EXPECT_FALSE(exists(dir.path("p.spp/kernels.ptx")));
  size_t entries = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir.root())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);

  // A directory that is not a package, and a file, are not replaced.
  std::filesystem::create_directory(dir.path("other"));
  writeBytes(dir.path("other/keep.txt"), "x");
  Status s = writePackage(dir.path("other"), one, PackageOptions());
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is not a spperm package"), std::string::npos);
  EXPECT_TRUE(exists(dir.path("other/keep.txt")));
  writeBytes(dir.path("file"), "x");
  EXPECT_FALSE(writePackage(dir.path("file"), one, PackageOptions()));
  EXPECT_EQ(readWholeFile(dir.path("file")), "x");
}

TEST(PackageTest, WriterRefusesBadInput) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(20, 20, 0.2, 7);
  PackageLayer good = makeLayer("a", m, Strategy::Identity, FormatKind::Csr);
  auto refused = [&](std::vector<PackageLayer> layers, PackageOptions o,
                     const std::string &expect) {
    Status s = writePackage(dir.path("x.spp"), layers, o);
    ASSERT_FALSE(s) << expect;
    EXPECT_NE(s.message().find(expect), std::string::npos) << s.message();
    EXPECT_FALSE(exists(dir.path("x.spp")));
  };
  refused({}, PackageOptions(), "at least one layer");
  refused({good, good}, PackageOptions(), "two layers are named 'a'");
  PackageLayer bad = good;
  bad.name = "";
  refused({bad}, PackageOptions(), "layer name");
  bad = good;
  bad.name = "a\nb";
  refused({bad}, PackageOptions(), "layer name");
  bad = good;
  bad.matrix.order[0] = bad.matrix.order[1];
  refused({bad}, PackageOptions(), "does not verify");
  bad = good;
  bad.format.kind = FormatKind::Bell;
  refused({bad}, PackageOptions(), "format options say bell");
  bad = good;
  bad.k = -1;
  refused({bad}, PackageOptions(), "k must be");
  PackageOptions o;
  o.target = "../sm_90";
  refused({good}, o, "target");
  o = PackageOptions();
  o.externalData = true;
  refused({good}, o, "external data needs the source path and its sha256");
  // Nothing is left beside the destination either.
  EXPECT_TRUE(std::filesystem::is_empty(dir.root()));
}

//===----------------------------------------------------------------------===//
// The C API
//===----------------------------------------------------------------------===//

TEST(RuntimeTest, SpmmMatchesFloat64Reference) {
  ScratchDir dir;
  std::vector<CsrMatrix> matrices = testMatrices();
  std::vector<PackageLayer> layers;
  std::vector<const CsrMatrix *> originals;
  for (FormatKind kind : kKinds)
    for (Strategy s : kStrategies)
      for (size_t i = 0; i < matrices.size(); ++i) {
        layers.push_back(makeLayer(std::string(formatName(kind)) + "." +
                                       std::string(strategyCliName(s)) + "." +
                                       std::to_string(i),
                                   matrices[i], s, kind));
        originals.push_back(&matrices[i]);
      }
  ASSERT_TRUE(writePackage(dir.path("all.spp"), layers, PackageOptions()));

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("all.spp").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_OK)
      << sprt_last_error();
  int64_t count = 0;
  ASSERT_EQ(sprt_layer_count(p, &count), SPRT_OK);
  ASSERT_EQ(count, static_cast<int64_t>(layers.size()));
  for (int64_t i = 0; i < count; ++i) {
    SCOPED_TRACE(layers[i].name);
    int64_t found = -1;
    ASSERT_EQ(sprt_layer_find(p, layers[i].name.c_str(), &found), SPRT_OK);
    EXPECT_EQ(found, i);
    sprt_layer_desc desc;
    ASSERT_EQ(sprt_layer_info(p, i, &desc), SPRT_OK);
    EXPECT_EQ(std::string(desc.name), layers[i].name);
    EXPECT_EQ(desc.rows, originals[i]->rows);
    EXPECT_EQ(desc.cols, originals[i]->cols);
    EXPECT_EQ(desc.nnz, originals[i]->nnz());
    EXPECT_EQ(desc.k, 0);
    EXPECT_EQ(std::string(desc.format),
              std::string(formatName(layers[i].matrix.kind)));
    EXPECT_EQ(std::string(desc.strategy),
              std::string(strategyCliName(layers[i].permutation.strategy)));
    for (int64_t k : {1, 5, 32}) {
      std::vector<float> b = randomDense(desc.cols * k, 100 + k);
      std::vector<float> c(static_cast<size_t>(desc.rows * k), NAN);
      ASSERT_EQ(sprt_spmm(p, i, b.data(), k, c.data(), nullptr), SPRT_OK)
          << sprt_last_error();
      EXPECT_LE(relativeError(c, reference(*originals[i], b, k)), 1e-5)
          << "K = " << k;
    }
  }
  sprt_package_release(p);
}

TEST(RuntimeTest, ArgumentErrors) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(30, 20, 0.2, 9);
  ASSERT_TRUE(writePackage(
      dir.path("p.spp"),
      {makeLayer("fc1", m, Strategy::Lpt, FormatKind::Csr),
       makeLayer("fc2", m, Strategy::Identity, FormatKind::Bell, 4)},
      PackageOptions()));
  const std::string path = dir.path("p.spp");

  auto expectError = [](sprt_status got, sprt_status want,
                        const std::string &text) {
    EXPECT_EQ(got, want) << sprt_status_name(got);
    std::string message = sprt_last_error();
    EXPECT_NE(message.find(text), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  };

  sprt_package *p = nullptr;
  expectError(sprt_package_load(path.c_str(), SPRT_DEVICE_CPU, nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
  expectError(sprt_package_load(nullptr, SPRT_DEVICE_CPU, &p),
              SPRT_ERROR_INVALID_ARGUMENT, "path is NULL or empty");
  expectError(sprt_package_load("", SPRT_DEVICE_CPU, &p),
              SPRT_ERROR_INVALID_ARGUMENT, "path is NULL or empty");
  expectError(sprt_package_load(path.c_str(), static_cast<sprt_device>(7), &p),
              SPRT_ERROR_INVALID_ARGUMENT, "unknown device 7");
#ifdef SPPERM_HAVE_CUDA
  // With the GPU backend built: a GPU package loads where a device is, and
  // elsewhere the failure is one line from the loader or the driver.
  if (sprt_status s = sprt_package_load(path.c_str(), SPRT_DEVICE_GPU, &p);
      s == SPRT_OK) {
    sprt_package_release(p);
    p = nullptr;
  } else {
    expectError(s, SPRT_ERROR_DEVICE, "");
    EXPECT_NE(std::string(sprt_last_error()), "");
    EXPECT_EQ(p, nullptr);
  }
#else
  expectError(sprt_package_load(path.c_str(), SPRT_DEVICE_GPU, &p),
              SPRT_ERROR_UNSUPPORTED, "GPU support is not built");
  EXPECT_EQ(p, nullptr);
#endif
  expectError(
      sprt_package_load(dir.path("missing").c_str(), SPRT_DEVICE_CPU, &p),
      SPRT_ERROR_IO, dir.path("missing/manifest.json") + ": cannot open");

  ASSERT_EQ(sprt_package_load(path.c_str(), SPRT_DEVICE_CPU, &p), SPRT_OK);
  int64_t n, index;
  sprt_layer_desc desc;
  expectError(sprt_layer_count(nullptr, &n), SPRT_ERROR_INVALID_ARGUMENT,
              "sprt_layer_count");
  expectError(sprt_layer_count(p, nullptr), SPRT_ERROR_INVALID_ARGUMENT,
              "sprt_layer_count");
  expectError(sprt_layer_find(p, nullptr, &index), SPRT_ERROR_INVALID_ARGUMENT,
              "sprt_layer_find");
  expectError(sprt_layer_find(p, "fc3", &index), SPRT_ERROR_NOT_FOUND,
              "no layer named 'fc3' (the package has: fc1, fc2)");
  expectError(sprt_layer_info(p, 2, &desc), SPRT_ERROR_INVALID_ARGUMENT,
              "layer index 2 is out of range [0, 2)");
  expectError(sprt_layer_info(p, -1, &desc), SPRT_ERROR_INVALID_ARGUMENT,
              "layer index -1");
  expectError(sprt_layer_info(p, 0, nullptr), SPRT_ERROR_INVALID_ARGUMENT,
              "sprt_layer_info");

  std::vector<float> b(20 * 4, 1.0f), c(30 * 4);
  expectError(sprt_spmm(nullptr, 0, b.data(), 4, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "the package is NULL");
  expectError(sprt_spmm(p, 5, b.data(), 4, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "layer index 5");
  expectError(sprt_spmm(p, 0, b.data(), 0, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "k must be at least 1, got 0");
  expectError(sprt_spmm(p, 0, b.data(), -3, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "k must be at least 1");
  expectError(sprt_spmm(p, 1, b.data(), 3, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT,
              "layer 'fc2' was compiled for K = 4, got k = 3");
  expectError(sprt_spmm(p, 0, nullptr, 4, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "B is NULL");
  expectError(sprt_spmm(p, 0, b.data(), 4, nullptr, nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "C is NULL");
  expectError(sprt_spmm(p, 0, c.data(), 4, c.data() + 10, nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "B and C overlap");
  expectError(sprt_spmm(p, 0,
                        reinterpret_cast<const float *>(
                            reinterpret_cast<const char *>(b.data()) + 2),
                        4, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "B is not 4-byte aligned");
  expectError(sprt_spmm(p, 0, b.data(), 4,
                        reinterpret_cast<float *>(
                            reinterpret_cast<char *>(c.data()) + 1),
                        nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "C is not 4-byte aligned");
  expectError(sprt_spmm(p, 0, b.data(), INT64_MAX / 2, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "larger than the address space");
  EXPECT_EQ(sprt_spmm(p, 0, b.data(), 4, c.data(), nullptr), SPRT_OK);
  EXPECT_EQ(sprt_spmm(p, 1, b.data(), 4, c.data(), nullptr), SPRT_OK);
  sprt_package_release(p);
  sprt_package_release(nullptr);

  EXPECT_STREQ(sprt_status_name(SPRT_ERROR_CORRUPT_PACKAGE),
               "SPRT_ERROR_CORRUPT_PACKAGE");
  EXPECT_STREQ(sprt_status_name(static_cast<sprt_status>(99)),
               "SPRT_UNKNOWN_STATUS");
  EXPECT_EQ(sprt_abi_version(), SPRT_ABI_VERSION);
}

TEST(RuntimeTest, LastErrorIsPerThread) {
  sprt_package *p;
  ASSERT_EQ(sprt_package_load(nullptr, SPRT_DEVICE_CPU, &p),
            SPRT_ERROR_INVALID_ARGUMENT);
  std::string mine = sprt_last_error();
  std::string other = "unset";
  std::thread([&] { other = sprt_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(std::string(sprt_last_error()), mine);
  // A successful call leaves the message alone.
  EXPECT_STREQ(sprt_status_name(SPRT_OK), "SPRT_OK");
  EXPECT_EQ(std::string(sprt_last_error()), mine);
}

// The threading contract (docs/RuntimeABI.md, "Ownership and threading"):
// calls of one package from several threads at once, every format, each
// thread with its own C and K changing from call to call, C poisoned before
// every call; every result must be right.
TEST(RuntimeTest, ConcurrentSpmmOnOnePackage) {
  ScratchDir dir;
  const CsrMatrix m = generateSkewed(200, 100, 4);
  std::vector<PackageLayer> layers;
  for (FormatKind kind : {FormatKind::Csr, FormatKind::Bell, FormatKind::Hbp})
    layers.push_back(makeLayer(std::string(formatName(kind)), m,
                               Strategy::Lpt, kind));
  ASSERT_TRUE(writePackage(dir.path("p.spp"), layers, PackageOptions()));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("p.spp").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_OK);
  const std::vector<int64_t> ks = {1, 5, 8, 32};
  std::vector<std::vector<float>> b;
  std::vector<std::vector<double>> want;
  for (int64_t k : ks) {
    b.push_back(randomDense(100 * k, k));
    want.push_back(reference(m, b.back(), k));
  }
  constexpr int kThreads = 8, kCalls = 24;
  std::vector<int> wrong(kThreads, 0), failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int call = 0; call < kCalls; ++call) {
        const size_t ki = static_cast<size_t>(t + call) % ks.size();
        const int64_t layer = (t + call / 4) % 3;
        std::vector<float> c(static_cast<size_t>(200 * ks[ki]), NAN);
        if (sprt_spmm(p, layer, b[ki].data(), ks[ki], c.data(), nullptr) !=
            SPRT_OK)
          ++failed[t];
        else if (!(relativeError(c, want[ki]) <= 1e-5))
          ++wrong[t];
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t;
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
  sprt_package_release(p);
}

TEST(RuntimeTest, CApiFromC) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(40, 30, 0.1, 3);
  ASSERT_TRUE(
      writePackage(dir.path("p.spp"),
                   {makeLayer("x", m, Strategy::Identity, FormatKind::Csr),
                    makeLayer("y", m, Strategy::Bsa, FormatKind::Bell, 6)},
                   PackageOptions()));
  char error[512] = "";
  EXPECT_EQ(sprtSmoke(dir.path("p.spp").c_str(), "x", error, sizeof error), 0)
      << error;
  EXPECT_EQ(sprtSmoke(dir.path("p.spp").c_str(), "y", error, sizeof error), 0)
      << error;
  EXPECT_EQ(sprtSmoke(dir.path("p.spp").c_str(), "z", error, sizeof error), 1);
  EXPECT_NE(std::string(error).find("no layer named 'z'"), std::string::npos);
}

TEST(RuntimeTest, CppWrapper) {
  namespace rt = spperm::runtime;
  ScratchDir dir;
  rt::Result<rt::Package> missing = rt::Package::load(dir.path("none"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.code(), SPRT_ERROR_IO);
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos);

  CsrMatrix m = generateUniform(25, 15, 0.2, 8);
  ASSERT_TRUE(writePackage(
      dir.path("p.spp"), {makeLayer("only", m, Strategy::Lpt, FormatKind::Hbp)},
      PackageOptions()));
  rt::Result<rt::Package> loaded = rt::Package::load(dir.path("p.spp"));
  ASSERT_TRUE(loaded) << loaded.message();
  rt::Package package = std::move(loaded.value());
  EXPECT_FALSE(loaded.value());
  EXPECT_TRUE(package);
  EXPECT_EQ(package.layerCount(), 1);
  rt::Result<int64_t> layer = package.findLayer("only");
  ASSERT_TRUE(layer);
  rt::Result<sprt_layer_desc> info = package.layerInfo(*layer);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->rows, 25);
  EXPECT_STREQ(info->format, "hbp");
  rt::Result<int64_t> none = package.findLayer("other");
  EXPECT_EQ(none.code(), SPRT_ERROR_NOT_FOUND);

  const int64_t k = 3;
  std::vector<float> b = randomDense(15 * k, 2), c(25 * k);
  rt::Status s = package.spmm(*layer, b.data(), k, c.data());
  ASSERT_TRUE(s) << s.message();
  EXPECT_LE(relativeError(c, reference(m, b, k)), 1e-5);
  rt::Status bad = package.spmm(*layer, b.data(), 0, c.data());
  EXPECT_EQ(bad.code(), SPRT_ERROR_INVALID_ARGUMENT);

  rt::Package moved;
  moved = std::move(package);
  EXPECT_FALSE(package);
  EXPECT_EQ(moved.layerCount(), 1);
}

//===----------------------------------------------------------------------===//
// Corruption
//===----------------------------------------------------------------------===//

/// A small package with two layers and both kernel files.
std::string writeSmallPackage(const ScratchDir &dir) {
  CsrMatrix a = generateUniform(12, 10, 0.25, 11);
  CsrMatrix b = generateBlockSparse(16, 12, 4, 0.4, 12);
  std::vector<PackageLayer> layers = {
      makeLayer("a", a, Strategy::Lpt, FormatKind::Csr),
      makeLayer("b", b, Strategy::Identity, FormatKind::Bell, 2)};
  KernelInfo kernel;
  kernel.name = "k0";
  kernel.family = "csr";
  kernel.variant = "any";
  kernel.args = {"csr.row_ptr", "B", "C", "K"};
  kernel.blockX = 32;
  layers[0].kernels.push_back(kernel);
  PackageOptions options;
  options.ptx = ".version 8.0\n";
  options.cubin = "cubin";
  std::string path = dir.path("small.spp");
  EXPECT_TRUE(writePackage(path, layers, options));
  return path;
}

TEST(CorruptionTest, EveryManifestByteFlipped) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  copyPackage(good, bad);
  const std::string text = readWholeFile(good + "/manifest.json");
  ASSERT_GT(text.size(), 1000u);
  for (unsigned char mask : {0x01, 0x20, 0x80}) {
    for (size_t i = 0; i < text.size(); ++i) {
      patchByte(bad + "/manifest.json", i, static_cast<char>(text[i] ^ mask));
      expectRefused(bad,
                    "byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      patchByte(bad + "/manifest.json", i, text[i]);
      if (HasFailure())
        return;
    }
  }
}

TEST(CorruptionTest, EveryDataByteFlipped) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  copyPackage(good, bad);
  const std::string data = readWholeFile(good + "/data.bin");
  ASSERT_GT(data.size(), 256u);
  for (size_t i = 0; i < data.size(); ++i) {
    patchByte(bad + "/data.bin", i, static_cast<char>(data[i] ^ 0x10));
    std::string message;
    EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_CORRUPT_PACKAGE) << i;
    EXPECT_EQ(message.rfind(bad + "/data.bin: ", 0), 0u) << message;
    patchByte(bad + "/data.bin", i, data[i]);
    if (HasFailure())
      return;
  }
}

TEST(CorruptionTest, TruncatedExtendedAndDeletedFiles) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  for (const char *file :
       {"manifest.json", "data.bin", "kernels.ptx", "kernels.sm_90.cubin"}) {
    const std::string bytes = readWholeFile(good + "/" + file);
    for (size_t keep :
         {size_t(0), size_t(1), bytes.size() / 2, bytes.size() - 1}) {
      copyPackage(good, bad);
      writeBytes(bad + "/" + file, bytes.substr(0, keep));
      expectRefused(bad, std::string(file) + " cut to " + std::to_string(keep));
    }
    copyPackage(good, bad);
    writeBytes(bad + "/" + file, bytes + "x");
    expectRefused(bad, std::string(file) + " extended");
    copyPackage(good, bad);
    std::filesystem::remove(bad + "/" + file);
    expectRefused(bad, std::string(file) + " deleted");
    copyPackage(good, bad);
    std::filesystem::remove(bad + "/" + file);
    std::filesystem::create_directory(bad + "/" + file);
    expectRefused(bad, std::string(file) + " replaced by a directory");
  }
  std::string message;
  std::filesystem::remove_all(bad);
  EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_IO);
  writeBytes(bad, "not a directory");
  EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_IO);
}

/// Manifests edited consistently (their checksum recomputed), so that only
/// the structural checks can refuse them.
TEST(CorruptionTest, CraftedManifests) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  struct Case {
    const char *expect;
    std::function<void(json &)> edit;
  };
  auto buf = [](json &m, int layer, int index) -> json & {
    return m["layers"][layer]["buffers"][index];
  };
  const std::vector<Case> cases = {
      {"unsupported package version 2", [](json &m) { m["version"] = 2; }},
      {"schema 'other'", [](json &m) { m["schema"] = "other"; }},
      {"version is -1", [](json &m) { m["version"] = -1; }},
      {"unexpected key 'extra'", [](json &m) { m["extra"] = 1; }},
      // Found by spperm-fuzz-package: a key is escaped in the message, which
      // stays one line.
      {"unexpected key 'a\\x0ab'", [](json &m) { m["a\nb"] = 1; }},
      {"missing key 'layers'", [](json &m) { m.erase("layers"); }},
      {"layers is empty", [](json &m) { m["layers"] = json::array(); }},
      {"target '../x'", [](json &m) { m["target"] = "../x"; }},
      {"data.file must be 'data.bin'",
       [](json &m) { m["data"]["file"] = "../data.bin"; }},
      {"code.ptx.file must be 'kernels.ptx'",
       [](json &m) { m["code"]["ptx"]["file"] = "/etc/passwd"; }},
      {"code.cubin.size is 9223372036854775807",
       [](json &m) { m["code"]["cubin"]["size"] = INT64_MAX; }},
      {"layers[0] ('a').rows is -12",
       [](json &m) { m["layers"][0]["rows"] = -12; }},
      {"layers[0] ('a').library_check must be true or false",
       [](json &m) { m["layers"][0]["library_check"] = 3; }},
      {"rows is 4294967296",
       [](json &m) { m["layers"][0]["rows"] = int64_t(1) << 32; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = 12.5; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = "12"; }},
      {"rows must be an integer",
       [](json &m) { m["layers"][0]["rows"] = 1e300; }},
      {"nnz 1000 is larger than rows x cols",
       [](json &m) { m["layers"][0]["nnz"] = 1000; }},
      {"strategy 'fastest' is not a strategy name",
       [](json &m) { m["layers"][0]["strategy"] = "fastest"; }},
      {"strategy 'hybrid_2_1' is not a strategy name",
       [](json &m) { m["layers"][0]["strategy"] = "hybrid_2_1"; }},
      {"format 'coo'", [](json &m) { m["layers"][0]["format"] = "coo"; }},
      {"alpha must be a number in [0, 1]",
       [](json &m) { m["layers"][0]["strategy_params"]["alpha"] = 2.0; }},
      {"warps must be in [1, 1024]",
       [](json &m) { m["layers"][0]["strategy_params"]["warps"] = 4096; }},
      {"delta must be in (0, 1]",
       [](json &m) { m["layers"][1]["format_params"]["delta"] = 0.0; }},
      {"block must be 1, 2, 4, 8, 16 or 32",
       [](json &m) { m["layers"][1]["format_params"]["block"] = 3; }},
      {"source.values",
       [](json &m) { m["layers"][0]["source"]["values"] = "random:x"; }},
      {"source.sha256 must be 64 lowercase hex digits",
       [](json &m) { m["layers"][0]["source"]["sha256"] = "ABC"; }},
      {"grid must have 3 elements",
       [](json &m) {
         m["layers"][0]["kernels"][0]["grid"] = json::array({1, 1});
       }},
      {"block[0] is 2048",
       [](json &m) { m["layers"][0]["kernels"][0]["block"][0] = 2048; }},
      {"kernels[0].dependent_launch must be true or false",
       [](json &m) {
         m["layers"][0]["kernels"][0]["dependent_launch"] = "yes";
       }},
      {"offset 8 is not a multiple of 256",
       [&](json &m) { buf(m, 0, 1)["offset"] = 8; }},
      {"lie outside data.bin",
       [&](json &m) { buf(m, 0, 1)["offset"] = 1 << 20; }},
      {"lie outside data.bin",
       [&](json &m) {
         buf(m, 0, 1)["count"] = int64_t(1) << 40;
         buf(m, 0, 1)["size"] = int64_t(4) << 40;
       }},
      {"size 4 does not match count 5",
       [&](json &m) {
         buf(m, 0, 1)["count"] = 5;
         buf(m, 0, 1)["size"] = 4;
       }},
      {"size 9223372036854775804 does not match",
       [&](json &m) {
         buf(m, 0, 1)["count"] = INT64_MAX / 2;
         buf(m, 0, 1)["size"] = INT64_MAX - 3;
       }},
      {"overlap",
       [&](json &m) { buf(m, 0, 2)["offset"] = buf(m, 0, 1)["offset"]; }},
      {"overlap",
       [&](json &m) { buf(m, 1, 0)["offset"] = buf(m, 0, 0)["offset"]; }},
      {"'csr.values' must have dtype f32",
       [&](json &m) { buf(m, 0, 3)["dtype"] = "i32"; }},
      {"dtype 'f64' is not one of",
       [&](json &m) { buf(m, 0, 3)["dtype"] = "f64"; }},
      {"needs a buffer 'csr.values'",
       [&](json &m) { buf(m, 0, 3)["name"] = "csr.valuez"; }},
      {"a second buffer with this name",
       [&](json &m) { buf(m, 0, 3)["name"] = "csr.col_idx"; }},
      {"'hbp.col' is not an array of the csr format",
       [&](json &m) {
         json extra = buf(m, 0, 3);
         extra["name"] = "hbp.col";
         extra["dtype"] = "i32";
         m["layers"][0]["buffers"].push_back(extra);
       }},
      {"'order' has 11 elements, expected 12",
       [&](json &m) {
         buf(m, 0, 0)["count"] = 11;
         buf(m, 0, 0)["size"] = 44;
       }},
      {"two layers are named 'a'",
       [](json &m) { m["layers"][1]["name"] = "a"; }},
      {"name must be 1 to 1024 bytes",
       [](json &m) { m["layers"][1]["name"] = ""; }},
      {"contains control characters",
       [](json &m) { m["layers"][1]["name"] = "a\tb"; }},
      {"buffer 'csr.row_ptr'",
       [&](json &m) { buf(m, 0, 1)["sha256"] = std::string(64, '0'); }},
      {"data.bin: the file does not match its sha256",
       [](json &m) { m["data"]["sha256"] = std::string(64, 'f'); }},
      {"data.bin: the file is",
       [](json &m) {
         m["data"]["size"] = m["data"]["size"].get<int64_t>() + 256;
       }},
      {"lie outside data.bin (1 bytes)",
       [](json &m) { m["data"]["size"] = 1; }},
      {"kernels.ptx: the file does not match its sha256",
       [](json &m) { m["code"]["ptx"]["sha256"] = std::string(64, 'e'); }},
  };
  for (const Case &c : cases) {
    copyPackage(good, bad);
    rewriteManifest(bad, c.edit);
    std::string message;
    sprt_status s = tryLoad(bad, message);
    EXPECT_EQ(s, SPRT_ERROR_CORRUPT_PACKAGE) << c.expect;
    EXPECT_NE(message.find(c.expect), std::string::npos)
        << "expected '" << c.expect << "' in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }

  // The checksum line must be where the writer puts it.
  copyPackage(good, bad);
  json m = json::parse(readWholeFile(bad + "/manifest.json"));
  writeBytes(bad + "/manifest.json", m.dump(2));
  expectRefused(bad, "manifest without its checksum line");
  writeBytes(bad + "/manifest.json", "[1, 2]");
  expectRefused(bad, "not an object");
  writeBytes(bad + "/manifest.json", std::string(100000, '['));
  expectRefused(bad, "deep nesting");
}

/// data.bin edited with every checksum recomputed: the structural checks
/// (verifyFormat) must refuse it.
/// Manifests of a package with alternatives, edited (checksum recomputed):
/// each refused with a line that names the alternative.
TEST(CorruptionTest, CraftedAlternatives) {
  ScratchDir dir;
  CsrMatrix m = generateBlockSparse(64, 48, 4, 0.3, 3);
  ASSERT_TRUE(writePackage(dir.path("a.spp"), layersWithAlternatives(m),
                           PackageOptions()));
  struct Case {
    const char *expect;
    std::function<void(json &)> edit;
  };
  const std::vector<Case> cases = {
      {"layers[0] ('fc').alternatives must be a non-empty array",
       [](json &j) { j["layers"][0]["alternatives"] = json::array(); }},
      {"layers[0] ('fc').alternatives must be a non-empty array",
       [](json &j) { j["layers"][0]["alternatives"] = 3; }},
      {"has alternatives but not the library check",
       [](json &j) { j["layers"][0].erase("library_check"); }},
      {"alternatives[0].name'",
       [](json &j) { j["layers"][0]["alternatives"][0]["name"] = "x"; }},
      {"alternatives[1] lacks 'kernels'",
       [](json &j) { j["layers"][0]["alternatives"][1].erase("kernels"); }},
      {"alternatives[1] needs generated kernels",
       [](json &j) {
         j["layers"][0]["alternatives"][1]["kernels"] = json::array();
       }},
      {"alternatives[0] must be an object",
       [](json &j) { j["layers"][0]["alternatives"][0] = "bell"; }},
      {"layers[1] ('plain') has alternatives but not the library check",
       [](json &j) {
         j["layers"][1]["alternatives"] = j["layers"][0]["alternatives"];
       }},
      {"overlap",
       [](json &j) {
         j["layers"][0]["alternatives"][1]["buffers"][0]["offset"] =
             j["layers"][0]["buffers"][0]["offset"];
       }},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.expect);
    copyPackage(dir.path("a.spp"), dir.path("bad.spp"));
    rewriteManifest(dir.path("bad.spp"), c.edit);
    expectRefused(dir.path("bad.spp"), c.expect);
    std::string message;
    tryLoad(dir.path("bad.spp"), message);
    EXPECT_NE(message.find(c.expect), std::string::npos) << message;
  }
}

TEST(CorruptionTest, ConsistentlyChecksummedBadArrays) {
  ScratchDir dir;
  const std::string good = writeSmallPackage(dir);
  const std::string bad = dir.path("bad.spp");
  // (layer, buffer, element, new int32 value)
  struct Edit {
    int layer, buffer;
    size_t element;
    int32_t value;
  };
  for (const Edit &e :
       {Edit{0, 0, 0, 99}, Edit{0, 0, 1, -1}, Edit{0, 1, 3, 1000},
        Edit{0, 2, 0, 10}, Edit{0, 2, 0, -5}, Edit{1, 1, 0, 77},
        Edit{1, 3, 16, -9}}) {
    copyPackage(good, bad);
    std::string data = readWholeFile(bad + "/data.bin");
    json m = json::parse(readWholeFile(bad + "/manifest.json"));
    m.erase("manifest_sha256");
    json &b = m["layers"][e.layer]["buffers"][e.buffer];
    ASSERT_LT(e.element, b["count"].get<size_t>());
    size_t at = b["offset"].get<size_t>() + 4 * e.element;
    std::memcpy(&data[at], &e.value, 4);
    b["sha256"] = sha256Hex(data.data() + b["offset"].get<size_t>(),
                            b["size"].get<size_t>());
    m["data"]["sha256"] = sha256Hex(data.data(), data.size());
    writeBytes(bad + "/data.bin", data);
    writeBytes(bad + "/manifest.json", withChecksum(m));
    std::string message;
    EXPECT_EQ(tryLoad(bad, message), SPRT_ERROR_CORRUPT_PACKAGE)
        << b["name"] << "[" << e.element << "] = " << e.value;
    EXPECT_NE(message.find("do not form a valid"), std::string::npos)
        << message;
  }
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

TEST(ExternalDataTest, RoundTripAndModifiedSource) {
  ScratchDir dir;
  CsrMatrix m = generateSkewed(80, 50, 6);
  ASSERT_TRUE(writeMatrixMarket(dir.path("w.mtx"), m));
  StatusOr<CsrMatrix> reread = readMatrixFile(dir.path("w.mtx"));
  ASSERT_TRUE(reread);
  StatusOr<std::string> sha = sha256File(dir.path("w.mtx"));
  ASSERT_TRUE(sha);

  std::vector<PackageLayer> layers;
  for (FormatKind kind : kKinds) {
    PackageLayer l = makeLayer(std::string(formatName(kind)), *reread,
                               Strategy::Hybrid21, kind);
    l.sourcePath = "w.mtx"; // relative to the package's parent directory
    l.sourceSha256 = *sha;
    layers.push_back(std::move(l));
  }
  layers[0].sourcePath = dir.path("w.mtx"); // and an absolute path
  PackageOptions options;
  options.externalData = true;
  // A relative source path is taken from the package's parent directory:
  // one level further down, "w.mtx" does not resolve, and the writer says so.
  std::filesystem::create_directory(dir.path("sub"));
  Status misplaced = writePackage(dir.path("sub/ext.spp"), layers, options);
  ASSERT_FALSE(misplaced);
  EXPECT_NE(misplaced.message().find("resolves to " + dir.path("sub/w.mtx")),
            std::string::npos)
      << misplaced.message();
  const std::string pkg = dir.path("ext.spp");
  ASSERT_TRUE(writePackage(pkg, layers, options));
  EXPECT_FALSE(exists(pkg + "/data.bin"));
  json manifest = json::parse(readWholeFile(pkg + "/manifest.json"));
  EXPECT_EQ(manifest["data"], "external");

  StatusOr<Package> read = readPackage(pkg);
  ASSERT_TRUE(read) << read.message();
  EXPECT_TRUE(read->externalData);
  for (size_t i = 0; i < layers.size(); ++i)
    expectSameMatrix(read->layers[i].matrix, layers[i].matrix);

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(pkg.c_str(), SPRT_DEVICE_CPU, &p), SPRT_OK)
      << sprt_last_error();
  const int64_t k = 5;
  std::vector<float> b = randomDense(50 * k, 3), c(80 * k);
  for (int64_t i = 0; i < 3; ++i) {
    ASSERT_EQ(sprt_spmm(p, i, b.data(), k, c.data(), nullptr), SPRT_OK);
    EXPECT_LE(relativeError(c, reference(m, b, k)), 1e-5);
  }
  sprt_package_release(p);

  // One value changed in the source: refused, naming the source.
  std::string text = readWholeFile(dir.path("w.mtx"));
  std::string edited = text;
  edited.insert(edited.size() - 1, "1");
  writeBytes(dir.path("w.mtx"), edited);
  std::string message;
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("does not match its recorded sha256"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.rfind(pkg + "/manifest.json: layer 'csr': ", 0), 0u)
      << message;

  // Missing source.
  std::filesystem::remove(dir.path("w.mtx"));
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("cannot read the source matrix"), std::string::npos)
      << message;

  // A source whose checksum matches but whose rebuilt arrays differ (the
  // manifest's parameters edited consistently): the buffer checksums catch
  // it.
  writeBytes(dir.path("w.mtx"), text);
  rewriteManifest(pkg,
                  [](json &j) { j["layers"][0]["strategy"] = "identity"; });
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("the rebuilt buffer 'order' does not match"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// The original-order CSR the GPU backend hands to cuSPARSE
//===----------------------------------------------------------------------===//

TEST(OriginalCsrTest, EveryFormatGivesBackTheMatrix) {
  for (const CsrMatrix &m : testMatrices())
    for (FormatKind kind : kKinds)
      for (Strategy s : kStrategies) {
        PackageLayer layer = makeLayer("x", m, s, kind);
        SCOPED_TRACE(std::string(formatName(kind)) + "." +
                     std::string(strategyCliName(s)));
        CsrMatrix got = toOriginalCsr(layer.matrix);
        ASSERT_TRUE(got.verify()) << got.verify().message();
        EXPECT_EQ(got.rows, m.rows);
        EXPECT_EQ(got.cols, m.cols);
        EXPECT_EQ(got.rowPtr, m.rowPtr);
        EXPECT_EQ(got.colIdx, m.colIdx);
        EXPECT_EQ(got.values, m.values);
      }
}

//===----------------------------------------------------------------------===//
// The GPU backend (skipped, visibly, where there is no usable GPU)
//===----------------------------------------------------------------------===//

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
  float *get() const { return static_cast<float *>(ptr); }
};

TEST(GpuTest, DeviceHelpersWithoutAGpuFailInOneLine) {
  sprt_device_props props;
  sprt_status s = sprt_device_properties(&props);
  if (s == SPRT_OK)
    GTEST_SKIP() << "a GPU is present: " << props.name;
  EXPECT_TRUE(s == SPRT_ERROR_DEVICE || s == SPRT_ERROR_UNSUPPORTED)
      << sprt_status_name(s);
  void *ptr = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(sprt_device_malloc(64, &ptr), s);
  std::string message = sprt_last_error();
  EXPECT_FALSE(message.empty());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(sprt_device_free(nullptr), SPRT_OK);
  EXPECT_EQ(sprt_device_malloc(-1, &ptr), SPRT_ERROR_INVALID_ARGUMENT);
  void *stream = nullptr;
  EXPECT_EQ(sprt_stream_create(&stream), s);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(sprt_stream_synchronize(nullptr), s);
  float host = 0.0f;
  EXPECT_EQ(sprt_memcpy_htod_async(ptr, &host, 4, nullptr), s);
  EXPECT_EQ(sprt_memcpy_dtoh_async(&host, nullptr, 4, nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_stream_create(nullptr), SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_stream_destroy(nullptr), SPRT_OK);
}

TEST(GpuTest, SpmmMatchesFloat64Reference) {
  ScratchDir dir;
  std::vector<CsrMatrix> matrices = testMatrices();
  std::vector<PackageLayer> layers;
  std::vector<const CsrMatrix *> originals;
  for (FormatKind kind : kKinds)
    for (Strategy s : {Strategy::Identity, Strategy::Lpt, Strategy::Bsa})
      for (size_t i = 0; i < matrices.size(); ++i) {
        layers.push_back(makeLayer(std::string(formatName(kind)) + "." +
                                       std::string(strategyCliName(s)) + "." +
                                       std::to_string(i),
                                   matrices[i], s, kind));
        originals.push_back(&matrices[i]);
      }
  // An empty matrix: C must still be written (zeros).
  CsrMatrix empty;
  empty.rows = 40;
  empty.cols = 30;
  empty.rowPtr.assign(41, 0);
  layers.push_back(makeLayer("empty", empty, Strategy::Identity,
                             FormatKind::Csr));
  originals.push_back(&empty);
  ASSERT_TRUE(writePackage(dir.path("gpu.spp"), layers, PackageOptions()));

  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("gpu.spp"), p);
  sprt_device_props props;
  ASSERT_EQ(sprt_device_properties(&props), SPRT_OK) << sprt_last_error();
  std::printf("GPU: %s, driver %d, cuSPARSE %d\n", props.name,
              props.driver_version, props.cusparse_version);
  const char *baselines[] = {"cusparse-spmm-default", "cusparse-spmm-csr-alg2",
                             "cusparse-spmm-csr-alg3", "cusparse-spmv-default",
                             "cusparse-spmv-csr-alg1",
                             "cusparse-spmv-csr-alg2"};
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(layers[i].name);
    const CsrMatrix &m = *originals[i];
    for (int64_t k : {1, 5, 32}) {
      SCOPED_TRACE("K = " + std::to_string(k));
      std::vector<float> b = randomDense(m.cols * k, 100 + k);
      const std::vector<double> want = reference(m, b, k);
      const int64_t bBytes = m.cols * k * 4, cBytes = m.rows * k * 4;
      DeviceArray db(bBytes), dc(cBytes);
      ASSERT_EQ(sprt_memcpy_htod(db.get(), b.data(), bBytes), SPRT_OK);
      std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
      // Twice: the first call chooses and caches the plan, the second
      // reuses it.
      for (int round = 0; round < 2; ++round) {
        std::fill(c.begin(), c.end(), NAN);
        ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
        ASSERT_EQ(sprt_spmm(p, int64_t(i), db.get(), k, dc.get(), nullptr),
                  SPRT_OK)
            << sprt_last_error();
        ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
        EXPECT_LE(relativeError(c, want), 1e-5) << "round " << round;
      }
      // Every baseline that cuSPARSE accepts gives the same C.
      for (const char *variant : baselines) {
        std::fill(c.begin(), c.end(), NAN);
        ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
        float times[3];
        sprt_status s = sprt_spmm_time(p, int64_t(i), variant, db.get(), k,
                                       dc.get(), nullptr, 1, 3, times);
        // cuSPARSE refuses some algorithms for some shapes (not always with
        // NOT_SUPPORTED); only its default SpMM must run.
        if (s != SPRT_OK && std::string(variant) != "cusparse-spmm-default") {
          std::printf("note: %s, K = %lld, %s: %s\n", layers[i].name.c_str(),
                      static_cast<long long>(k), variant, sprt_last_error());
          continue;
        }
        ASSERT_EQ(s, SPRT_OK) << variant << ": " << sprt_last_error();
        ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
        EXPECT_LE(relativeError(c, want), 1e-5) << variant;
        for (float t : times)
          EXPECT_GE(t, 0.0f) << variant;
      }
    }
  }
  sprt_package_release(p);
}

// A package whose hbp kernels keep their ticket counters in the module
// (compiled before the "tickets" parameter; Inputs/legacy-hbp): the runtime
// orders its launches across streams, so that calls from several threads,
// each on its own stream, K changing, are all right. (The suite's
// concurrency set checks the kernels spperm-compile makes now.)
TEST(GpuTest, ModuleTicketsAreOrderedAcrossStreams) {
  const std::string path = std::string(SPPERM_RUNTIME_TEST_INPUTS) +
                           "/legacy-hbp/skewed512.hbp.spp";
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(path, p);
  StatusOr<Package> pkg = readPackage(path);
  ASSERT_TRUE(pkg) << pkg.message();
  const CsrMatrix a = toOriginalCsr(pkg->layers[0].matrix);
  const std::vector<int64_t> ks = {1, 8, 32};
  std::vector<std::vector<double>> want;
  std::vector<std::unique_ptr<DeviceArray>> db;
  for (int64_t k : ks) {
    std::vector<float> b = randomDense(a.cols * k, 7 + k);
    want.push_back(reference(a, b, k));
    db.push_back(std::make_unique<DeviceArray>(a.cols * k * 4));
    ASSERT_EQ(sprt_memcpy_htod(db.back()->get(), b.data(), a.cols * k * 4),
              SPRT_OK);
  }
  constexpr int kThreads = 8, kBatches = 8, kDepth = 4;
  std::vector<int> wrong(kThreads, 0), failed(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *stream = nullptr;
      if (sprt_stream_create(&stream) != SPRT_OK) {
        ++failed[t];
        return;
      }
      const int64_t most = a.rows * ks.back();
      std::vector<std::unique_ptr<DeviceArray>> dc;
      for (int i = 0; i < kDepth; ++i)
        dc.push_back(std::make_unique<DeviceArray>(most * 4));
      // Poisoned on the stream (a synchronous copy from pageable memory may
      // land after the kernels of a non-blocking stream).
      std::vector<float> poison[kDepth];
      for (int batch = 0; batch < kBatches; ++batch) {
        size_t ki[kDepth];
        for (int i = 0; i < kDepth; ++i) {
          ki[i] = static_cast<size_t>(t + batch + i) % ks.size();
          const int64_t k = ks[ki[i]];
          poison[i].assign(static_cast<size_t>(a.rows * k), NAN);
          if (sprt_memcpy_htod_async(dc[i]->get(), poison[i].data(),
                                     a.rows * k * 4, stream) != SPRT_OK ||
              sprt_spmm(p, 0, db[ki[i]]->get(), k, dc[i]->get(), stream) !=
                  SPRT_OK)
            ++failed[t];
        }
        if (sprt_stream_synchronize(stream) != SPRT_OK)
          ++failed[t];
        for (int i = 0; i < kDepth; ++i) {
          const int64_t k = ks[ki[i]];
          std::vector<float> c(static_cast<size_t>(a.rows * k));
          if (sprt_memcpy_dtoh(c.data(), dc[i]->get(), a.rows * k * 4) !=
              SPRT_OK)
            ++failed[t];
          else if (!(relativeError(c, want[ki[i]]) <= 1e-5))
            ++wrong[t];
        }
      }
      dc.clear();
      sprt_stream_destroy(stream);
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t << ": " << sprt_last_error();
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
  std::printf("%d threads x %d calls, module-level tickets: %d wrong\n",
              kThreads, kBatches * kDepth,
              std::accumulate(wrong.begin(), wrong.end(), 0));
  sprt_package_release(p);
}

} // namespace
