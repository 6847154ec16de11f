//===- PackageTests.cpp - Writing and reading packages ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SHA-256 against the FIPS 180-2 vectors; packages written with writePackage
// in every format and several strategies and read back exactly, alternatives
// included; the manifest's checksum as the package's identity; the writer's
// refusals; and packages with external data, rebuilt from their source
// matrix at load.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Shards.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace spperm;
using namespace spperm::test;

namespace {

/// What the manifest records of a layer (or alternative) besides its arrays
/// is as `want` has it.
void expectSameMetadata(const PackageLayer &got, const PackageLayer &want) {
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
    EXPECT_EQ(got.kernels[k].kMax, want.kernels[k].kMax);
    EXPECT_EQ(got.kernels[k].kAlign, want.kernels[k].kAlign);
    EXPECT_EQ(got.kernels[k].zeroOutput, want.kernels[k].zeroOutput);
    EXPECT_EQ(got.kernels[k].dependentLaunch,
              want.kernels[k].dependentLaunch);
    EXPECT_EQ(got.kernels[k].args, want.kernels[k].args);
    EXPECT_EQ(got.kernels[k].gridBase, want.kernels[k].gridBase);
    EXPECT_EQ(got.kernels[k].gridCtas, want.kernels[k].gridCtas);
    EXPECT_EQ(got.kernels[k].gridColumns, want.kernels[k].gridColumns);
  }
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
  // A bell layer of condensed tiles (format_params.columns, bell.tile_col).
  PackageLayer condensed = makeLayer("bell_condensed", matrices[1],
                                     Strategy::Bsa, FormatKind::Bell);
  condensed.format.bellColumns = BellColumns::Condensed;
  {
    StatusOr<FormattedMatrix> f =
        buildFormat(matrices[1], condensed.matrix.order, condensed.format);
    ASSERT_TRUE(f) << f.message();
    ASSERT_TRUE(f->bell.condensed);
    ASSERT_GT(f->bell.width, 0);
    condensed.matrix = std::move(*f);
  }
  layers.insert(layers.end() - 1, condensed);
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
  // Its grid grows with K: 2 CTAs a slice of 128 columns after 2 others.
  kernel.gridBase = 2;
  kernel.gridCtas = 2;
  kernel.gridColumns = 128;
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
    expectSameMetadata(got, want);
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
  // Only condensed tiles say so in the manifest; consecutive blocks keep
  // the manifest of packages from before condensed tiles.
  for (const json &l : m["layers"]) {
    if (l["format"] != "bell")
      continue;
    const bool isCondensed = l["name"] == "bell_condensed";
    EXPECT_EQ(l["format_params"].contains("columns"), isCondensed)
        << l["name"];
    if (isCondensed) {
      EXPECT_EQ(l["format_params"]["columns"], "condensed");
    }
  }
}

// A variant names its tensor-core kernel family (spperm-inspect and
// spperm-verify tell a 3xTF32 twin from its fp32 bell variant by it).
TEST(PackageTest, TensorCoreFamilyNamesTheTwin) {
  PackageLayer v;
  EXPECT_EQ(tensorCoreFamily(v), "");
  KernelInfo row, tile, mma;
  row.family = "bell";
  tile.family = "bell-tile";
  mma.family = "bell-3xtf32";
  v.kernels = {row, tile};
  EXPECT_EQ(tensorCoreFamily(v), "");
  v.kernels = {row, mma, row, tile};
  EXPECT_EQ(tensorCoreFamily(v), "bell-3xtf32");
  mma.family = "bell-f16";
  v.kernels = {mma};
  EXPECT_EQ(tensorCoreFamily(v), "bell-f16");
  // A bf16 layer's twin, its kernel first (it writes the accumulator).
  mma.family = "bell-bf16";
  v.kernels = {mma, row};
  EXPECT_EQ(tensorCoreFamily(v), "bell-bf16");
}

// A bell variant and its tensor-core twin take the same arrays: the GPU
// runtime uploads them once (sameUpload), and spperm-inspect counts them
// once (layerUploadedBytes).
TEST(PackageTest, VariantsShareTheArraysTheyHoldAlike) {
  const CsrMatrix m = generateUniform(96, 80, 0.1, 5);
  // A kernel of `family` taking every array of `variant`.
  auto takingAll = [](PackageLayer &variant, std::string family) {
    KernelInfo kernel;
    kernel.name = "k" + family;
    kernel.family = std::move(family);
    kernel.variant = "any";
    for (const LayerBuffer &b : layerBuffers(variant))
      kernel.args.emplace_back(b.name);
    kernel.args.insert(kernel.args.end(), {"B", "C", "K"});
    kernel.blockX = 32;
    variant.kernels = {kernel};
  };
  PackageLayer layer = makeLayer("a", m, Strategy::Bsa, FormatKind::Bell);
  takingAll(layer, "bell");
  PackageLayer twin = layer;
  takingAll(twin, "bell-3xtf32");
  PackageLayer csr = makeLayer("a", m, Strategy::Lpt, FormatKind::Csr);
  takingAll(csr, "csr");
  const uint64_t own = uploadedArrayBytes(layer);
  EXPECT_EQ(layerUploadedBytes(layer), own);
  layer.alternatives = {twin};
  EXPECT_EQ(layerUploadedBytes(layer), own);
  // Another row order shares none of its arrays here.
  layer.alternatives.push_back(csr);
  EXPECT_EQ(layerUploadedBytes(layer), own + uploadedArrayBytes(csr));
  // Equal contents share whatever the name; another width, type or length
  // does not.
  const std::vector<UploadedArray> arrays = uploadedArrays(layer);
  ASSERT_FALSE(arrays.empty());
  ASSERT_EQ(arrays[0].buffer.dtype, "i32");
  UploadedArray renamed = arrays[0];
  renamed.name = "elsewhere";
  EXPECT_TRUE(sameUpload(arrays[0], renamed));
  UploadedArray narrow = arrays[0];
  narrow.twoBytes = true;
  EXPECT_FALSE(sameUpload(arrays[0], narrow));
  UploadedArray retyped = arrays[0];
  retyped.buffer.dtype = retyped.buffer.dtype == "i32" ? "f32" : "i32";
  EXPECT_FALSE(sameUpload(arrays[0], retyped));
  UploadedArray shorter = arrays[0];
  ASSERT_GT(shorter.buffer.count, 1u);
  --shorter.buffer.count;
  EXPECT_FALSE(sameUpload(arrays[0], shorter));
  std::vector<int32_t> changed(
      static_cast<const int32_t *>(arrays[0].buffer.data),
      static_cast<const int32_t *>(arrays[0].buffer.data) +
          arrays[0].buffer.count);
  changed.back() ^= 1;
  UploadedArray other = arrays[0];
  other.buffer.data = changed.data();
  EXPECT_FALSE(sameUpload(arrays[0], other));
  // The same floats as f16 and as bf16 values are other bytes on the
  // device.
  const std::vector<float> halves = {0.5f, -2.0f, 1.0f};
  UploadedArray f16{"csr.values",
                    {"csr.values", "f16", halves.data(), 3},
                    /*twoBytes=*/true};
  UploadedArray bf16 = f16;
  bf16.buffer.dtype = "bf16";
  EXPECT_TRUE(sameUpload(f16, f16));
  EXPECT_FALSE(sameUpload(f16, bf16));
  // Empty arrays are all the same, wherever (or whether) they point.
  UploadedArray empty = f16, none = f16;
  empty.buffer.count = none.buffer.count = 0;
  none.buffer.data = nullptr;
  EXPECT_TRUE(sameUpload(empty, none));
}

// The manifest's checksum identifies the package's content (the runtime's
// tuning cache keys on it): it is that of manifest.json's bytes, and another
// package has another.
TEST(PackageTest, ManifestSha256IdentifiesThePackage) {
  ScratchDir dir;
  const CsrMatrix m = testMatrices()[0];
  ASSERT_TRUE(writePackage(dir.path("a.spp"),
                           {makeLayer("x", m, Strategy::Lpt, FormatKind::Csr)},
                           PackageOptions()));
  ASSERT_TRUE(writePackage(dir.path("b.spp"),
                           {makeLayer("x", m, Strategy::Bsa, FormatKind::Csr)},
                           PackageOptions()));
  StatusOr<Package> a = readPackage(dir.path("a.spp"));
  StatusOr<Package> b = readPackage(dir.path("b.spp"));
  ASSERT_TRUE(a) << a.message();
  ASSERT_TRUE(b) << b.message();
  StatusOr<std::string> file = sha256File(dir.path("a.spp/manifest.json"));
  ASSERT_TRUE(file) << file.message();
  EXPECT_EQ(a->manifestSha256, *file);
  EXPECT_EQ(a->manifestSha256.size(), 64u);
  EXPECT_NE(a->manifestSha256, b->manifestSha256);
}

TEST(PackageTest, ManifestAloneHasTheMetadataAndNoArrays) {
  ScratchDir dir;
  CsrMatrix m = generateBlockSparse(64, 48, 4, 0.3, 3);
  std::vector<PackageLayer> layers = layersWithAlternatives(m);
  PackageOptions options;
  options.ptx = ".version 8.0\n";
  ASSERT_TRUE(writePackage(dir.path("a.spp"), layers, options));
  StatusOr<Package> full = readPackage(dir.path("a.spp"));
  ASSERT_TRUE(full) << full.message();
  // Without data.bin and the code: the manifest is all it reads.
  std::filesystem::remove(dir.path("a.spp/data.bin"));
  std::filesystem::remove(dir.path("a.spp/kernels.ptx"));
  StatusOr<Package> meta = readPackageManifest(dir.path("a.spp") + "/");
  ASSERT_TRUE(meta) << meta.message();
  EXPECT_EQ(meta->manifestSha256, full->manifestSha256);
  EXPECT_EQ(meta->target, full->target);
  EXPECT_TRUE(meta->ptx.empty());
  ASSERT_EQ(meta->layers.size(), full->layers.size());
  auto same = [](const PackageLayer &got, const PackageLayer &want) {
    expectSameMetadata(got, want);
    EXPECT_EQ(got.matrix.kind, want.matrix.kind);
    EXPECT_EQ(got.matrix.rows, want.matrix.rows);
    EXPECT_EQ(got.matrix.cols, want.matrix.cols);
    EXPECT_EQ(got.matrix.nnz, want.matrix.nnz);
    EXPECT_EQ(got.libraryCheck, want.libraryCheck);
    EXPECT_EQ(got.operandType, want.operandType);
    EXPECT_EQ(got.valueType, want.valueType);
    // No arrays.
    EXPECT_TRUE(got.matrix.csr.colIdx.empty());
    EXPECT_TRUE(got.matrix.csr.values.empty());
    EXPECT_TRUE(got.matrix.order.empty());
  };
  for (size_t l = 0; l < meta->layers.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    same(meta->layers[l], full->layers[l]);
    ASSERT_EQ(meta->layers[l].alternatives.size(),
              full->layers[l].alternatives.size());
    for (size_t a = 0; a < meta->layers[l].alternatives.size(); ++a)
      same(meta->layers[l].alternatives[a], full->layers[l].alternatives[a]);
  }
  // The manifest itself is checked as readPackage checks it.
  const std::string text = readWholeFile(dir.path("a.spp/manifest.json"));
  patchByte(dir.path("a.spp/manifest.json"), text.find("\"rows\"") + 1, 'R');
  StatusOr<Package> bad = readPackageManifest(dir.path("a.spp"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message().rfind(dir.path("a.spp/manifest.json") + ": ", 0), 0u)
      << bad.message();
  // A file of the package in the package's place names the package; a
  // FIFO is no file to compile.
  bad = readPackageManifest(dir.path("a.spp/manifest.json"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(),
            dir.path("a.spp/manifest.json") + ": is a file of the package " +
                dir.path("a.spp") + "; pass the package directory itself");
  ASSERT_EQ(::mkfifo(dir.path("fifo").c_str(), 0600), 0);
  bad = readPackageManifest(dir.path("fifo"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), dir.path("fifo") +
                               ": is not a directory, not a spperm package (a "
                               "package is the directory spperm-compile "
                               "writes)");
  std::filesystem::remove_all(dir.path("a.spp"));
  bad = readPackageManifest(dir.path("a.spp"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(),
            dir.path("a.spp") + ": cannot open: No such file or directory");
  // A directory without a manifest is named as not a package.
  std::filesystem::create_directory(dir.path("a.spp"));
  bad = readPackageManifest(dir.path("a.spp"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), dir.path("a.spp") +
                               ": is a directory, not a spperm package (no "
                               "manifest.json; spperm-compile writes "
                               "packages)");
}

TEST(PackageTest, AlternativesRoundTrip) {
  for (bool rebuild : {false, true}) {
  SCOPED_TRACE(rebuild ? "rebuilt alternatives" : "stored alternatives");
  ScratchDir dir;
  CsrMatrix m = generateBlockSparse(64, 48, 4, 0.3, 3);
  std::vector<PackageLayer> layers = layersWithAlternatives(m);
  PackageOptions options;
  options.ptx = ".version 8.0\n";
  options.rebuildAlternatives = rebuild;
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
  std::vector<std::string> wantKeys = {"strategy",      "strategy_params",
                                       "format",        "format_params",
                                       "kernels",       "buffers"};
  if (rebuild)
    wantKeys.push_back("rebuilt");
  EXPECT_EQ(keys, wantKeys);
  // Rebuilt alternatives are not in data.bin: it holds the layers' own
  // arrays only.
  const std::string data = readWholeFile(dir.path("a.spp/data.bin"));
  uint64_t own = 0;
  for (const PackageLayer &layer : layers)
    for (const LayerBuffer &b : layerBuffers(layer))
      own += b.count * 4;
  if (rebuild)
    EXPECT_LT(data.size(), own + 4096);
  else
    EXPECT_GT(data.size(), own);

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
}

/// How many entries the directory `path` holds.
size_t entriesIn(const std::string &path) {
  return static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator(path),
                    std::filesystem::directory_iterator()));
}

/// Two one-layer packages' layers over one matrix (seeded): "a" (csr) and
/// "b" (bell), to write one over the other.
std::pair<std::vector<PackageLayer>, std::vector<PackageLayer>>
twoPackages(uint64_t seed) {
  const CsrMatrix m = generateUniform(20, 20, 0.2, seed);
  return {{makeLayer("a", m, Strategy::Identity, FormatKind::Csr)},
          {makeLayer("b", m, Strategy::Lpt, FormatKind::Bell)}};
}

TEST(PackageTest, ReplacesAPackageButNothingElse) {
  ScratchDir dir;
  const auto [one, two] = twoPackages(7);
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
  EXPECT_EQ(entriesIn(dir.root()), 1u);

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

// An interrupted write (PackageOptions::interrupted, asked once the
// package is complete in its temporary directory) leaves what was at the
// destination, and no temporary directory.
TEST(PackageTest, InterruptedWriteLeavesTheOldPackage) {
  ScratchDir dir;
  const auto [one, two] = twoPackages(8);
  PackageOptions stop;
  int asked = 0;
  stop.interrupted = [&asked] {
    ++asked;
    return true;
  };
  Status s = writePackage(dir.path("new.spp"), one, stop);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), dir.path("new.spp") + ": interrupted");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(entriesIn(dir.root()), 0u);

  ASSERT_TRUE(writePackage(dir.path("p.spp"), one, PackageOptions()));
  EXPECT_FALSE(writePackage(dir.path("p.spp"), two, stop));
  StatusOr<Package> read = readPackage(dir.path("p.spp"));
  ASSERT_TRUE(read) << read.message();
  EXPECT_EQ(read->layers[0].name, "a");
  EXPECT_EQ(entriesIn(dir.root()), 1u);
}

TEST(PackageTest, CopiesAPackageAsTheWriterWritesOne) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(20, 20, 0.2, 8);
  std::vector<PackageLayer> one = {
      makeLayer("a", m, Strategy::Identity, FormatKind::Csr)};
  std::vector<PackageLayer> two = {
      makeLayer("b", m, Strategy::Lpt, FormatKind::Bell)};
  ASSERT_TRUE(writePackage(dir.path("src.spp"), one, PackageOptions()));
  ASSERT_TRUE(writePackage(dir.path("dst.spp"), two, PackageOptions()));
  // A stale temporary directory of a writer that no longer runs is swept.
  std::filesystem::create_directory(dir.path(".dst.spp.tmp-999999999-abc"));
  ASSERT_TRUE(copyPackageDirectory(dir.path("src.spp"), dir.path("dst.spp/")));
  EXPECT_EQ(readWholeFile(dir.path("dst.spp/manifest.json")),
            readWholeFile(dir.path("src.spp/manifest.json")));
  EXPECT_EQ(readWholeFile(dir.path("dst.spp/data.bin")),
            readWholeFile(dir.path("src.spp/data.bin")));
  StatusOr<Package> read = readPackage(dir.path("dst.spp"));
  ASSERT_TRUE(read) << read.message();
  EXPECT_EQ(read->layers.at(0).name, "a");
  EXPECT_EQ(entriesIn(dir.root()), 2u); // src.spp and dst.spp only

  // Not from a non-package, not over a non-package, not inside a package.
  std::filesystem::create_directory(dir.path("other"));
  writeBytes(dir.path("other/keep.txt"), "x");
  Status s = copyPackageDirectory(dir.path("other"), dir.path("new.spp"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("not a spperm package"), std::string::npos);
  s = copyPackageDirectory(dir.path("src.spp"), dir.path("other"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is not a spperm package"), std::string::npos);
  EXPECT_EQ(readWholeFile(dir.path("other/keep.txt")), "x");
  s = copyPackageDirectory(dir.path("src.spp"), dir.path("dst.spp/in.spp"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is inside the package"), std::string::npos);
  EXPECT_FALSE(exists(dir.path("dst.spp/in.spp")));
  // A compile's writer refuses the inside of a package too.
  s = writePackage(dir.path("dst.spp/in.spp"), one, PackageOptions());
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("is inside the package"), std::string::npos);
}

TEST(PackageTest, SweepLeavesALockedTemporaryAlone) {
  // A writer in another PID namespace: its PID does not run here, but it
  // holds its temporary directory's flock while it writes.
  ScratchDir dir;
  CsrMatrix m = generateUniform(20, 20, 0.2, 9);
  std::vector<PackageLayer> one = {
      makeLayer("a", m, Strategy::Identity, FormatKind::Csr)};
  const std::string live = dir.path(".p.spp.tmp-999999999-live");
  std::filesystem::create_directory(live);
  const int fd = ::open(live.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  ASSERT_TRUE(writePackage(dir.path("p.spp"), one, PackageOptions()));
  EXPECT_TRUE(exists(live));
  ::close(fd); // the writer is gone: the next write sweeps it
  ASSERT_TRUE(writePackage(dir.path("p.spp"), one, PackageOptions()));
  EXPECT_FALSE(exists(live));
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
  // A grid that grows with K whose grid is not base + a multiple of ctas.
  KernelInfo grows;
  grows.name = "k0";
  grows.family = "csr";
  grows.variant = "r512";
  grows.kMin = 260;
  grows.args = {"csr.row_ptr", "B", "C", "K"};
  grows.gridX = 5;
  grows.gridCtas = 2;
  grows.gridColumns = 128;
  bad = good;
  bad.kernels = {grows};
  refused({bad}, PackageOptions(),
          "kernel 'k0': grid_k needs a grid of base + a multiple of ctas");
  // A block CUDA cannot launch: the reader would refuse the package.
  KernelInfo wide = grows;
  wide.gridX = 1;
  wide.gridCtas = wide.gridColumns = 0;
  wide.blockX = 64;
  wide.blockY = 32;
  bad = good;
  bad.kernels = {wide};
  refused({bad}, PackageOptions(),
          "kernel 'k0': block must have at most 1024 threads in all and 64 in "
          "z, got 64 x 32 x 1");
  // Nor on a transposing or an in-place kernel, which the runtime launches
  // on their own grids.
  KernelInfo transpose;
  transpose.name = "t0";
  transpose.family = transpose.variant = "transpose";
  transpose.args = {"B_col", "B", "K"};
  transpose.blockX = kTransposeThreads;
  transpose.gridX = 4;
  transpose.gridCtas = 2;
  transpose.gridColumns = 32;
  bad = good;
  bad.transposeB = transpose;
  refused({bad}, PackageOptions(), "kernel 't0' cannot have grid_k");
  KernelInfo inPlace = grows;
  inPlace.name = "i0";
  inPlace.family = "in-place";
  inPlace.args = {"csr.row_ptr", "B_col", "C", "K"};
  inPlace.gridX = 4;
  bad = good;
  bad.inPlaceB = {inPlace};
  refused({bad}, PackageOptions(), "in-place kernel 'i0' cannot have grid_k");
  PackageOptions o;
  o.target = "../sm_90";
  refused({good}, o, "target");
  o = PackageOptions();
  o.externalData = true;
  refused({good}, o, "external data needs the source path and its sha256");
  // Nothing is left beside the destination either.
  EXPECT_TRUE(std::filesystem::is_empty(dir.root()));
}

// A launch's CTAs at K: the manifest's grid, or for a grid that grows with
// K, base + ctas per slice of columns, at least one slice and at most 2^31
// - 1 CTAs in all.
TEST(PackageTest, GridGrowsWithK) {
  KernelInfo k;
  k.gridX = 36;
  EXPECT_EQ(k.gridXFor(1), 36);
  EXPECT_EQ(k.gridXFor(100000), 36);
  k.gridBase = 4;
  k.gridCtas = 8;
  k.gridColumns = 128;
  EXPECT_EQ(k.gridXFor(1), 4 + 8);
  EXPECT_EQ(k.gridXFor(128), 4 + 8);
  EXPECT_EQ(k.gridXFor(129), 4 + 16);
  EXPECT_EQ(k.gridXFor(512), 4 + 32);
  EXPECT_EQ(k.gridXFor(600), 4 + 40);
  EXPECT_EQ(k.gridXFor(int64_t{1} << 40),
            4 + 8 * (((int64_t{1} << 31) - 1 - 4) / 8));
  EXPECT_LE(k.gridXFor(INT64_MAX), (int64_t{1} << 31) - 1);
  // acceptsK stops where the grid stops growing.
  const int64_t reach = ((int64_t{1} << 31) - 1 - 4) / 8 * 128;
  EXPECT_EQ(k.gridReachK(), reach);
  EXPECT_TRUE(k.acceptsK(reach));
  EXPECT_FALSE(k.acceptsK(reach + 1));
  EXPECT_EQ(k.gridXFor(reach), 4 + 8 * (((int64_t{1} << 31) - 1 - 4) / 8));
  // A grid of no slice within the limit (refused by gridKProblem when a
  // manifest is read) reaches no K; a grid with no grid_k, every K.
  KernelInfo none = k;
  none.gridBase = (int64_t{1} << 31) - 1;
  EXPECT_EQ(none.gridReachK(), 0);
  EXPECT_FALSE(none.acceptsK(1));
  none.gridBase = -1;
  EXPECT_EQ(none.gridReachK(), 0);
  EXPECT_EQ(KernelInfo().gridReachK(), INT64_MAX);
  EXPECT_TRUE(KernelInfo().acceptsK(INT64_MAX));
  k.args = {"B", "C", "K"};
  EXPECT_EQ(k.gridKProblem(), "");
  k.gridX = 35;
  EXPECT_NE(k.gridKProblem().find("base + a multiple of ctas"),
            std::string::npos);
  k.gridX = 36;
  k.gridY = 2;
  EXPECT_NE(k.gridKProblem().find("1 in y and z"), std::string::npos);
  k.gridY = 1;
  k.args = {"B", "C"};
  EXPECT_NE(k.gridKProblem().find("take K"), std::string::npos);
  k.args = {"K"};
  k.gridBase = (int64_t{1} << 31) - 8;
  k.gridX = k.gridBase + 8;
  EXPECT_NE(k.gridKProblem().find("below 2^31"), std::string::npos);
}

// A layer's transposing kernel ("transpose_b") is written and read back
// as it was; the writer and the reader refuse one whose arguments are not
// B_col, B and K, and a package without it reads as one that has none.
TEST(PackageTest, TransposingKernelRoundTrips) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(30, 20, 0.2, 9);
  PackageLayer layer = makeLayer("a", m, Strategy::Lpt, FormatKind::Csr);
  const KernelInfo t = testTransposeKernel("l0_transpose_b", 1056);
  layer.transposeB = t;
  PackageLayer plain = makeLayer("b", m, Strategy::Lpt, FormatKind::Csr);
  ASSERT_TRUE(writePackage(dir.path("t.spp"), {layer, plain},
                           PackageOptions()));
  StatusOr<Package> read = readPackage(dir.path("t.spp"));
  ASSERT_TRUE(read) << read.message();
  ASSERT_TRUE(read->layers[0].transposeB.has_value());
  const KernelInfo &back = *read->layers[0].transposeB;
  EXPECT_EQ(back.name, t.name);
  EXPECT_EQ(back.family, "transpose");
  EXPECT_EQ(back.args, t.args);
  EXPECT_EQ(back.gridX, 1056);
  EXPECT_EQ(back.blockX, 256);
  EXPECT_FALSE(read->layers[1].transposeB.has_value());

  for (std::vector<std::string> args :
       {std::vector<std::string>{"B", "B_col", "C"},
        std::vector<std::string>{"B_col", "K"},
        std::vector<std::string>{"B_col", "B", "B", "K"}}) {
    PackageLayer bad = layer;
    bad.transposeB->args = args;
    Status s = writePackage(dir.path("bad.spp"), {bad}, PackageOptions());
    ASSERT_FALSE(s);
    EXPECT_NE(
        s.message().find("transposing kernel must take B_col and B once each"),
        std::string::npos)
        << s.message();
  }
  // Its code assumes 256 threads a CTA.
  PackageLayer wrongBlock = layer;
  wrongBlock.transposeB->blockX = 128;
  Status block = writePackage(dir.path("bad.spp"), {wrongBlock},
                              PackageOptions());
  ASSERT_FALSE(block);
  EXPECT_NE(block.message().find("block must be 256 x 1 x 1"),
            std::string::npos)
      << block.message();
  copyPackage(dir.path("t.spp"), dir.path("edited.spp"));
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["transpose_b"]["args"] = {"B_col", "C", "K"};
  });
  StatusOr<Package> edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(
      edited.message().find("transpose_b.args must take B_col and B once each"),
      std::string::npos)
      << edited.message();
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["transpose_b"]["args"] = {"B_col", "B", "K"};
    j["layers"][0]["transpose_b"]["block"] = {128, 1, 1};
  });
  edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.message().find("transpose_b.block must be [256, 1, 1]"),
            std::string::npos)
      << edited.message();
}

// In-place kernels ("in_place_b", on the layer or on one alternative) are
// written and read back as they were; an alternative does not inherit its
// layer's; the writer and the reader refuse one that does not take B_col
// and C, or that takes B or an array the variant does not have.
TEST(PackageTest, InPlaceKernelsRoundTrip) {
  ScratchDir dir;
  CsrMatrix m = generateUniform(30, 20, 0.2, 9);
  PackageLayer layer = makeLayer("a", m, Strategy::Lpt, FormatKind::Csr);
  layer.kernels = testKernels();
  layer.inPlaceB = {testInPlaceKernel("l0_in_place_0", 32),
                    testInPlaceKernel("l0_in_place_1", 32)};
  layer.inPlaceB[1].args[2] = "csr.col_idx.u16";
  layer.inPlaceB[1].sharedBytes = 81920;
  PackageLayer plain = makeLayer("b", m, Strategy::Lpt, FormatKind::Csr);
  ASSERT_TRUE(writePackage(dir.path("t.spp"), {layer, plain},
                           PackageOptions()));
  StatusOr<Package> read = readPackage(dir.path("t.spp"));
  ASSERT_TRUE(read) << read.message();
  ASSERT_EQ(read->layers[0].inPlaceB.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const KernelInfo &back = read->layers[0].inPlaceB[i];
    EXPECT_EQ(back.name, layer.inPlaceB[i].name);
    EXPECT_EQ(back.family, "in-place");
    EXPECT_EQ(back.args, layer.inPlaceB[i].args);
    EXPECT_EQ(back.kMin, 32);
    EXPECT_EQ(back.kMax, 32);
    EXPECT_EQ(back.sharedBytes, layer.inPlaceB[i].sharedBytes);
  }
  EXPECT_TRUE(read->layers[1].inPlaceB.empty());
  // Their arrays are uploaded with the variant's (the narrowed indices
  // too).
  std::vector<std::string> uploaded;
  for (const UploadedArray &a : uploadedArrays(read->layers[0]))
    uploaded.push_back(a.name);
  EXPECT_NE(std::find(uploaded.begin(), uploaded.end(), "csr.col_idx.u16"),
            uploaded.end());

  // On a layer or on one of its alternatives: each keeps its own, an
  // alternative does not inherit the layer's.
  PackageLayer withAlt = makeLayer("c", m, Strategy::Lpt, FormatKind::Csr);
  withAlt.kernels = testKernels();
  withAlt.libraryCheck = true;
  PackageLayer alt = makeLayer("c", m, Strategy::Identity, FormatKind::Csr);
  alt.kernels = testKernels();
  alt.libraryCheck = true;
  withAlt.alternatives = {alt};
  PackageLayer onAlt = withAlt;
  withAlt.inPlaceB = {testInPlaceKernel("l0_in_place_0", 32)};
  onAlt.name = onAlt.alternatives[0].name = "d";
  onAlt.alternatives[0].inPlaceB = {testInPlaceKernel("l1a1_in_place_0", 32)};
  ASSERT_TRUE(writePackage(dir.path("alt.spp"), {withAlt, onAlt},
                           PackageOptions()));
  StatusOr<Package> alts = readPackage(dir.path("alt.spp"));
  ASSERT_TRUE(alts) << alts.message();
  ASSERT_EQ(alts->layers[0].inPlaceB.size(), 1u);
  EXPECT_TRUE(alts->layers[0].alternatives.at(0).inPlaceB.empty());
  EXPECT_TRUE(alts->layers[1].inPlaceB.empty());
  ASSERT_EQ(alts->layers[1].alternatives.at(0).inPlaceB.size(), 1u);
  EXPECT_EQ(alts->layers[1].alternatives[0].inPlaceB[0].name,
            "l1a1_in_place_0");

  for (std::vector<std::string> args :
       {std::vector<std::string>{"order", "csr.values", "B", "C", "K"},
        std::vector<std::string>{"csr.values", "B_col", "K"},
        std::vector<std::string>{"csr.values", "B_col", "B_col", "C"},
        std::vector<std::string>{"csr.values", "B_col", "C", "tickets"}}) {
    PackageLayer bad = layer;
    bad.inPlaceB[0].args = args;
    Status s = writePackage(dir.path("bad.spp"), {bad}, PackageOptions());
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("must take B_col and C once each, K at most "
                               "once, and none of B, tickets or acc"),
              std::string::npos)
        << s.message();
  }
  PackageLayer clears = layer;
  clears.inPlaceB[0].zeroOutput = true;
  Status zero = writePackage(dir.path("bad.spp"), {clears}, PackageOptions());
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.message().find("cannot have zero_output or dependent_launch"),
            std::string::npos)
      << zero.message();
  PackageLayer unknown = layer;
  unknown.inPlaceB[0].args[0] = "bell.block_col";
  Status s = writePackage(dir.path("bad.spp"), {unknown}, PackageOptions());
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("bell.block_col"), std::string::npos)
      << s.message();

  copyPackage(dir.path("t.spp"), dir.path("edited.spp"));
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["in_place_b"][0]["args"] = {"csr.values", "B", "C"};
  });
  StatusOr<Package> edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.message().find("in_place_b[0].args must take B_col and C"),
            std::string::npos)
      << edited.message();
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["in_place_b"][0]["args"] = {"csr.values", "B_col", "C"};
    j["layers"][0]["in_place_b"][0]["dependent_launch"] = true;
  });
  edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.message().find(
                "in_place_b[0] cannot have zero_output or dependent_launch"),
            std::string::npos)
      << edited.message();
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["in_place_b"][0]["args"] = {"hbp.col", "B_col", "C"};
    j["layers"][0]["in_place_b"][0]["dependent_launch"] = false;
  });
  edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.message().find("in_place_b[0].args: 'hbp.col' is not "
                                  "a buffer"),
            std::string::npos)
      << edited.message();
  rewriteManifest(dir.path("edited.spp"), [](json &j) {
    j["layers"][0]["in_place_b"] = json::object();
  });
  edited = readPackage(dir.path("edited.spp"));
  ASSERT_FALSE(edited);
  EXPECT_NE(edited.message().find("in_place_b must be an array"),
            std::string::npos)
      << edited.message();
}

TEST(PackageTest, NarrowColumnIndicesWhereTheyFit) {
  // A kernel may take a csr or residual column-index array as 16 bits
  // (`<buffer>.u16`, docs/Package.md) on a layer of at most 65,536 columns.
  ScratchDir dir;
  auto layerWith = [](int32_t cols, std::string arg) {
    CsrMatrix m = generateUniform(8, cols, 4.0 / cols, 3);
    PackageLayer layer = makeLayer("a", m, Strategy::Identity, FormatKind::Csr);
    KernelInfo kernel;
    kernel.name = "k0";
    kernel.family = "csr";
    kernel.variant = "any";
    kernel.args = {"order", "csr.row_ptr", std::move(arg), "csr.values", "B",
                   "C", "K"};
    kernel.blockX = 32;
    layer.kernels.push_back(kernel);
    return layer;
  };
  PackageOptions o;
  o.ptx = ".version 8.0\n";
  const std::string path = dir.path("n.spp");
  ASSERT_TRUE(writePackage(path, {layerWith(65536, "csr.col_idx.u16")}, o));
  StatusOr<Package> read = readPackage(path);
  ASSERT_TRUE(read) << read.message();
  EXPECT_EQ(read->layers[0].kernels[0].args[2], "csr.col_idx.u16");
  // What the GPU runtime uploads: the arrays the kernels take, the narrowed
  // one at 2 bytes an element (and the plain one too when a kernel takes it),
  // 16-bit values at 2 bytes.
  PackageLayer layer = read->layers[0];
  const uint64_t rows = layer.matrix.rows, nnz = layer.matrix.nnz;
  auto names = [](const PackageLayer &l) {
    std::vector<std::string> out;
    for (const UploadedArray &a : uploadedArrays(l))
      out.push_back(a.name);
    return out;
  };
  EXPECT_EQ(names(layer),
            (std::vector<std::string>{"order", "csr.row_ptr",
                                      "csr.col_idx.u16", "csr.values"}));
  EXPECT_EQ(uploadedArrayBytes(layer), 4 * rows + 4 * (rows + 1) + 2 * nnz +
                                           4 * nnz);
  layer.valueType = ValueType::BF16;
  EXPECT_EQ(uploadedArrayBytes(layer),
            4 * rows + 4 * (rows + 1) + 2 * nnz + 2 * nnz);
  KernelInfo plain = layer.kernels[0];
  plain.args = {"csr.col_idx", "B", "C", "K"};
  layer.kernels.push_back(plain);
  EXPECT_EQ(names(layer),
            (std::vector<std::string>{"order", "csr.row_ptr",
                                      "csr.col_idx.u16", "csr.col_idx",
                                      "csr.values"}));
  // The cuSPARSE marker takes nothing on the GPU's kernel side.
  layer.kernels.assign(1, plain);
  layer.kernels[0].variant = "cusparse";
  EXPECT_TRUE(uploadedArrays(layer).empty());
  // One column more, or a buffer that is not column indices: refused.
  Status wide =
      writePackage(dir.path("x.spp"), {layerWith(65537, "csr.col_idx.u16")}, o);
  EXPECT_FALSE(wide);
  EXPECT_NE(wide.message().find(
                "takes 'csr.col_idx.u16', which narrows column indices to 16 "
                "bits, but the layer has 65537 columns (at most 65536)"),
            std::string::npos)
      << wide.message();
  for (const char *arg :
       {"csr.values.u16", "csr.row_ptr.u16", "bell.residual.col_idx.u16",
        "csr.col_idx.u8"}) {
    Status s = writePackage(dir.path("x.spp"), {layerWith(64, arg)}, o);
    EXPECT_FALSE(s) << arg;
    EXPECT_NE(s.message().find("takes '" + std::string(arg) +
                               "', which is not a buffer of the layer"),
              std::string::npos)
        << s.message();
  }
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

TEST(ExternalDataTest, RoundTripAndModifiedSource) {
  ScratchDir dir;
  CsrMatrix m = generateSkewed(80, 50, 6);
  std::optional<SourceFile> source = writeSource(dir.path("w.mtx"), m);
  ASSERT_TRUE(source);

  std::vector<PackageLayer> layers;
  for (FormatKind kind : kKinds) {
    PackageLayer l = makeLayer(std::string(formatName(kind)), source->matrix,
                               Strategy::Hybrid21, kind);
    l.sourcePath = "w.mtx"; // relative to the package's parent directory
    l.sourceSha256 = source->sha256;
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

TEST(ExternalDataTest, LayerOfSomeRowsOfItsSource) {
  ScratchDir dir;
  CsrMatrix m = generateSkewed(60, 40, 8);
  std::optional<SourceFile> source = writeSource(dir.path("w.mtx"), m);
  ASSERT_TRUE(source);
  const CsrMatrix rows = sliceRows(source->matrix, 10, 35);
  PackageLayer l = makeLayer("part", rows, Strategy::Lpt, FormatKind::Csr);
  l.sourcePath = "w.mtx";
  l.sourceSha256 = source->sha256;
  l.sourceRows = std::pair(10, 35);
  for (bool external : {false, true}) {
    PackageOptions options;
    options.externalData = external;
    const std::string pkg = dir.path(external ? "x.spp" : "e.spp");
    ASSERT_TRUE(writePackage(pkg, {l}, options));
    json manifest = json::parse(readWholeFile(pkg + "/manifest.json"));
    EXPECT_EQ(manifest["layers"][0]["source"]["row_begin"], 10);
    EXPECT_EQ(manifest["layers"][0]["source"]["row_end"], 35);
    StatusOr<Package> read = readPackage(pkg);
    ASSERT_TRUE(read) << read.message();
    EXPECT_EQ(read->layers[0].sourceRows, l.sourceRows);
    expectSameMatrix(read->layers[0].matrix, l.matrix);
    sprt_package *p = nullptr;
    ASSERT_EQ(sprt_package_load(pkg.c_str(), SPRT_DEVICE_CPU, &p), SPRT_OK)
        << sprt_last_error();
    const int64_t k = 3;
    std::vector<float> b = randomDense(40 * k, 5), c(25 * k);
    ASSERT_EQ(sprt_spmm(p, 0, b.data(), k, c.data(), nullptr), SPRT_OK);
    EXPECT_LE(relativeError(c, reference(rows, b, k)), 1e-5);
    sprt_package_release(p);
  }
  // An alternative takes its layer's source, range included.
  std::vector<PackageLayer> checked = layersWithAlternatives(rows);
  for (PackageLayer *v : {&checked[0], &checked[0].alternatives[0]}) {
    v->sourcePath = l.sourcePath;
    v->sourceSha256 = l.sourceSha256;
    v->sourceRows = l.sourceRows;
  }
  checked[0].alternatives.resize(1);
  checked.resize(1);
  EXPECT_TRUE(writePackage(dir.path("alt.spp"), checked, {}));
  checked[0].alternatives[0].sourceRows.reset();
  Status other = writePackage(dir.path("alt2.spp"), checked, {});
  ASSERT_FALSE(other);
  EXPECT_NE(other.message().find("not the layer's matrix"), std::string::npos)
      << other.message();
  // A range that is not the layer's rows: refused by writer and reader.
  PackageLayer bad = l;
  bad.sourceRows = std::pair(10, 36);
  Status refused = writePackage(dir.path("bad.spp"), {bad}, {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("the source's rows [10, 36) are not the "
                                   "layer's 25 rows"),
            std::string::npos)
      << refused.message();
  const std::string pkg = dir.path("x.spp");
  rewriteManifest(pkg,
                  [](json &j) { j["layers"][0]["source"]["row_end"] = 30; });
  std::string message;
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("rows [10, 30) are not the layer's 25 rows"),
            std::string::npos)
      << message;
  rewriteManifest(pkg, [](json &j) {
    j["layers"][0]["source"].erase("row_end");
    j["layers"][0]["source"]["row_begin"] = 10;
  });
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("row_end"), std::string::npos) << message;
  // A source with fewer rows than the range: refused at the rebuild.
  std::optional<SourceFile> few =
      writeSource(dir.path("w.mtx"), sliceRows(source->matrix, 0, 20));
  ASSERT_TRUE(few);
  rewriteManifest(pkg, [&](json &j) {
    j["layers"][0]["source"]["row_end"] = 35;
    j["layers"][0]["source"]["sha256"] = few->sha256;
  });
  EXPECT_EQ(tryLoad(pkg, message), SPRT_ERROR_CORRUPT_PACKAGE);
  EXPECT_NE(message.find("the source matrix has 20 rows, the manifest says "
                         "the layer is its rows [10, 35)"),
            std::string::npos)
      << message;
}

} // namespace
