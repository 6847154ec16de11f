//===- ShardTests.cpp - Sharded layers: package and C API -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Layers cut into shards (docs/Package.md, "Shards"): written and read back
// exactly (stored and external data), grouped as one layer by the C API and
// run whole on the CPU executor, reduced to one rank's shard by
// sprt_package_load_shard (each rank's C against the float64 reference's
// rows), on random matrices and shard counts; and the refusals: shards out
// of order, with gaps, of another count than the ranks.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Shards.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

/// The layer `name` of `m` cut into `n` shards, each permuted and stored
/// on its own (strategy `s`, format `kind`).
std::vector<PackageLayer> shardedLayer(const std::string &name,
                                       const CsrMatrix &m, int32_t n,
                                       Strategy s, FormatKind kind,
                                       ShardCut cut = ShardCut::Balanced) {
  StatusOr<std::vector<int32_t>> bounds = planShards(m, n, cut);
  EXPECT_TRUE(bounds) << bounds.message();
  std::vector<PackageLayer> out;
  for (int32_t i = 0; i < n; ++i) {
    PackageLayer l = makeLayer(
        name, sliceRows(m, (*bounds)[i], (*bounds)[i + 1]), s, kind);
    l.shard = {i, n, (*bounds)[i], (*bounds)[i + 1], m.rows};
    out.push_back(std::move(l));
  }
  return out;
}

/// Runs layer `index` of `p` on the CPU with B = `b` (k columns).
std::vector<float> run(sprt_package *p, int64_t index, int64_t rows,
                       const std::vector<float> &b, int64_t k) {
  std::vector<float> c(static_cast<size_t>(rows * k), -1.0f);
  EXPECT_EQ(sprt_spmm(p, index, b.data(), k, c.data(), nullptr), SPRT_OK)
      << sprt_last_error();
  return c;
}

TEST(ShardTest, RoundTripAndWholeRun) {
  ScratchDir dir;
  const CsrMatrix skewed = generateSkewed(300, 120, 4);
  const CsrMatrix uniform = generateUniform(150, 120, 0.05, 5);
  std::vector<PackageLayer> layers =
      shardedLayer("skewed", skewed, 3, Strategy::Lpt, FormatKind::Csr);
  layers.push_back(
      makeLayer("whole", uniform, Strategy::Bsa, FormatKind::Bell));
  for (PackageLayer &l :
       shardedLayer("mixed", uniform, 2, Strategy::Identity, FormatKind::Hbp))
    layers.push_back(std::move(l));
  // Shard 1 of "mixed" in another format: formats are chosen per shard.
  const ShardInfo second = layers.back().shard;
  layers.back() = makeLayer(
      "mixed", sliceRows(uniform, second.rowBegin, second.rowEnd),
      Strategy::Lpt, FormatKind::Bell);
  layers.back().shard = second;
  const std::string pkg = dir.path("s.spp");
  ASSERT_TRUE(writePackage(pkg, layers, PackageOptions()));

  StatusOr<Package> read = readPackage(pkg);
  ASSERT_TRUE(read) << read.message();
  ASSERT_EQ(read->layers.size(), layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    expectSameMatrix(read->layers[i].matrix, layers[i].matrix);
    EXPECT_EQ(read->layers[i].shard.index, layers[i].shard.index);
    EXPECT_EQ(read->layers[i].shard.count, layers[i].shard.count);
    EXPECT_EQ(read->layers[i].shard.rowBegin, layers[i].shard.rowBegin);
    EXPECT_EQ(read->layers[i].shard.rowEnd, layers[i].shard.rowEnd);
  }

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(pkg.c_str(), SPRT_DEVICE_CPU, &p), SPRT_OK)
      << sprt_last_error();
  int64_t count = 0;
  ASSERT_EQ(sprt_layer_count(p, &count), SPRT_OK);
  EXPECT_EQ(count, 3);
  struct Expect {
    const char *name;
    const CsrMatrix *m;
    int64_t shards;
    const char *format;
  };
  for (const Expect &e : {Expect{"skewed", &skewed, 3, "csr"},
                          Expect{"whole", &uniform, 1, "bell"},
                          Expect{"mixed", &uniform, 2, "mixed"}}) {
    int64_t index = -1;
    ASSERT_EQ(sprt_layer_find(p, e.name, &index), SPRT_OK);
    sprt_layer_desc desc;
    ASSERT_EQ(sprt_layer_info(p, index, &desc), SPRT_OK);
    EXPECT_EQ(desc.rows, e.m->rows) << e.name;
    EXPECT_EQ(desc.nnz, e.m->nnz()) << e.name;
    EXPECT_EQ(std::string(desc.format), e.format);
    int64_t shards = 0;
    ASSERT_EQ(sprt_layer_shard_count(p, index, &shards), SPRT_OK);
    EXPECT_EQ(shards, e.shards);
    int64_t next = 0;
    for (int64_t s = 0; s < shards; ++s) {
      sprt_shard_desc sd;
      ASSERT_EQ(sprt_layer_shard(p, index, s, &sd), SPRT_OK);
      EXPECT_EQ(sd.index, s);
      EXPECT_EQ(sd.count, shards);
      EXPECT_EQ(sd.row_begin, next);
      EXPECT_EQ(sd.rows, e.m->rows);
      next = sd.row_end;
    }
    EXPECT_EQ(next, e.m->rows);
    sprt_shard_desc sd;
    EXPECT_EQ(sprt_layer_shard(p, index, shards, &sd),
              SPRT_ERROR_INVALID_ARGUMENT);
    const int64_t k = 7;
    std::vector<float> b = randomDense(int64_t(e.m->cols) * k, 9);
    EXPECT_LT(relativeError(run(p, index, e.m->rows, b, k),
                            reference(*e.m, b, k)),
              1e-6)
        << e.name;
    std::vector<float> times(2);
    std::vector<float> c(size_t(e.m->rows) * k);
    EXPECT_EQ(sprt_spmm_time(p, index, "spperm", b.data(), k, c.data(),
                             nullptr, 1, 2, times.data()),
              SPRT_OK)
        << sprt_last_error();
    // A GPU variant of a sharded layer on the CPU: as for a whole one.
    EXPECT_EQ(sprt_spmm_time(p, index, "cusparse-spmm-default", b.data(), k,
                             c.data(), nullptr, 1, 2, times.data()),
              SPRT_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(sprt_last_error())
                  .find("variant 'cusparse-spmm-default' needs the GPU device"),
              std::string::npos)
        << sprt_last_error();
  }
  sprt_package_release(p);
}

TEST(ShardTest, EachRankRunsItsShard) {
  ScratchDir dir;
  const CsrMatrix m = generateRmat(9, 8, 2);
  const CsrMatrix whole = generateUniform(40, m.cols, 0.1, 3);
  const int32_t ranks = 4;
  std::vector<PackageLayer> layers =
      shardedLayer("graph", m, ranks, Strategy::Hybrid21, FormatKind::Csr);
  layers.push_back(makeLayer("small", whole, Strategy::Lpt, FormatKind::Csr));
  const std::string pkg = dir.path("r.spp");
  ASSERT_TRUE(writePackage(pkg, layers, PackageOptions()));
  const int64_t k = 5;
  std::vector<float> b = randomDense(int64_t(m.cols) * k, 4);
  std::vector<double> want = reference(m, b, k);
  std::vector<double> wantWhole = reference(whole, b, k);
  int64_t covered = 0;
  for (int32_t rank = 0; rank < ranks; ++rank) {
    sprt_package *p = nullptr;
    ASSERT_EQ(sprt_package_load_shard(pkg.c_str(), SPRT_DEVICE_CPU, rank,
                                      ranks, &p),
              SPRT_OK)
        << sprt_last_error();
    int64_t index = -1, shards = 0;
    ASSERT_EQ(sprt_layer_find(p, "graph", &index), SPRT_OK);
    ASSERT_EQ(sprt_layer_shard_count(p, index, &shards), SPRT_OK);
    EXPECT_EQ(shards, 1);
    sprt_shard_desc sd;
    ASSERT_EQ(sprt_layer_shard(p, index, 0, &sd), SPRT_OK);
    EXPECT_EQ(sd.index, rank);
    EXPECT_EQ(sd.count, ranks);
    EXPECT_EQ(sd.row_begin, covered);
    sprt_layer_desc desc;
    ASSERT_EQ(sprt_layer_info(p, index, &desc), SPRT_OK);
    EXPECT_EQ(desc.rows, sd.row_end - sd.row_begin);
    std::vector<float> c = run(p, index, desc.rows, b, k);
    std::vector<double> slice(want.begin() + sd.row_begin * k,
                              want.begin() + sd.row_end * k);
    EXPECT_LT(relativeError(c, slice), 1e-6) << "rank " << rank;
    covered = sd.row_end;
    // A whole layer is every rank's, whole.
    ASSERT_EQ(sprt_layer_find(p, "small", &index), SPRT_OK);
    EXPECT_LT(relativeError(run(p, index, whole.rows, b, k), wantWhole), 1e-6);
    sprt_package_release(p);
  }
  EXPECT_EQ(covered, m.rows);

  sprt_package *p = reinterpret_cast<sprt_package *>(0x1);
  EXPECT_EQ(sprt_package_load_shard(pkg.c_str(), SPRT_DEVICE_CPU, 0, 2, &p),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(std::string(sprt_last_error())
                .find("layer 'graph' is cut into 4 shards, one per rank: it "
                      "runs on 4 ranks, not 2"),
            std::string::npos)
      << sprt_last_error();
  for (auto [rank, n] : {std::pair{4, 4}, std::pair{-1, 4}, std::pair{0, 0}})
    EXPECT_EQ(sprt_package_load_shard(pkg.c_str(), SPRT_DEVICE_CPU, rank, n,
                                      &p),
              SPRT_ERROR_INVALID_ARGUMENT)
        << rank << " of " << n;
}

TEST(ShardTest, RandomMatricesAndCounts) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 12; ++trial) {
    ScratchDir dir;
    const int32_t rows = 20 + static_cast<int32_t>(rng() % 200);
    const int32_t cols = 10 + static_cast<int32_t>(rng() % 100);
    const CsrMatrix m = trial % 2 ? generateSkewed(rows, cols, trial)
                                  : generateUniform(rows, cols, 0.07, trial);
    const int32_t n = 1 + static_cast<int32_t>(rng() % 8);
    const ShardCut cut = trial % 3 ? ShardCut::Balanced : ShardCut::EqualRows;
    const FormatKind kind = kKinds[trial % 3];
    std::vector<PackageLayer> layers =
        n == 1 ? std::vector<PackageLayer>{makeLayer("a", m, Strategy::Lpt,
                                                     kind)}
               : shardedLayer("a", m, n, Strategy::Lpt, kind, cut);
    const std::string pkg = dir.path("p.spp");
    ASSERT_TRUE(writePackage(pkg, layers, PackageOptions()));
    sprt_package *p = nullptr;
    ASSERT_EQ(sprt_package_load(pkg.c_str(), SPRT_DEVICE_CPU, &p), SPRT_OK)
        << sprt_last_error();
    const int64_t k = 1 + static_cast<int64_t>(rng() % 9);
    std::vector<float> b = randomDense(int64_t(cols) * k, trial);
    EXPECT_LT(relativeError(run(p, 0, rows, b, k), reference(m, b, k)), 1e-6)
        << "trial " << trial << ": " << n << " shards";
    sprt_package_release(p);
  }
}

TEST(ShardTest, ExternalData) {
  ScratchDir dir;
  const CsrMatrix m = generateSkewed(120, 70, 8);
  std::optional<SourceFile> source = writeSource(dir.path("w.mtx"), m);
  ASSERT_TRUE(source);
  std::vector<PackageLayer> layers =
      shardedLayer("w", source->matrix, 3, Strategy::Lpt, FormatKind::Bell);
  for (PackageLayer &l : layers) {
    l.sourcePath = "w.mtx";
    l.sourceSha256 = source->sha256;
  }
  PackageOptions options;
  options.externalData = true;
  const std::string pkg = dir.path("ext.spp");
  ASSERT_TRUE(writePackage(pkg, layers, options));
  StatusOr<Package> read = readPackage(pkg);
  ASSERT_TRUE(read) << read.message();
  for (size_t i = 0; i < layers.size(); ++i)
    expectSameMatrix(read->layers[i].matrix, layers[i].matrix);

  // Shards of some rows of the source: each rebuilt from its rows of those.
  const CsrMatrix part = sliceRows(source->matrix, 20, 100);
  std::vector<PackageLayer> ranged =
      shardedLayer("part", part, 2, Strategy::Lpt, FormatKind::Csr);
  for (PackageLayer &l : ranged) {
    l.sourcePath = "w.mtx";
    l.sourceSha256 = source->sha256;
    l.sourceRows = std::pair(20, 100);
  }
  const std::string rangedPkg = dir.path("ranged.spp");
  ASSERT_TRUE(writePackage(rangedPkg, ranged, options));
  StatusOr<Package> rangedRead = readPackage(rangedPkg);
  ASSERT_TRUE(rangedRead) << rangedRead.message();
  for (size_t i = 0; i < ranged.size(); ++i) {
    EXPECT_EQ(rangedRead->layers[i].sourceRows, ranged[i].sourceRows);
    expectSameMatrix(rangedRead->layers[i].matrix, ranged[i].matrix);
  }
  // A range that is not the whole layer's rows (shard.rows) is refused.
  ranged[0].sourceRows = ranged[1].sourceRows = std::pair(20, 99);
  Status s = writePackage(dir.path("bad.spp"), ranged, options);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("the source's rows [20, 99) are not the "
                             "layer's 80 rows"),
            std::string::npos)
      << s.message();
}

TEST(ShardTest, InconsistentShardsAreRefused) {
  ScratchDir dir;
  const CsrMatrix m = generateUniform(90, 40, 0.1, 6);
  const std::vector<PackageLayer> good =
      shardedLayer("a", m, 3, Strategy::Lpt, FormatKind::Csr);
  auto writerRefuses = [&](std::vector<PackageLayer> layers,
                           const std::string &what) {
    Status s = writePackage(dir.path("bad.spp"), layers, PackageOptions());
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  };
  {
    std::vector<PackageLayer> swapped = good;
    std::swap(swapped[1], swapped[2]);
    writerRefuses(swapped, "the shards of a layer follow each other");
  }
  {
    std::vector<PackageLayer> missing(good.begin(), good.begin() + 2);
    writerRefuses(missing, "has 2 of its 3 shards");
  }
  {
    // The shards of a layer come from one source.
    std::vector<PackageLayer> sources = good;
    sources[1].sourcePath = "other.mtx";
    writerRefuses(sources, "shard 1: its source (path, sha256, values, "
                           "rows) differs from shard 0's");
    sources = good;
    for (PackageLayer &l : sources)
      l.sourceRows = std::pair(0, 90);
    sources[2].sourceRows = std::pair(10, 100);
    writerRefuses(sources, "shard 2: its source");
  }
  {
    std::vector<PackageLayer> apart = good;
    apart.insert(apart.begin() + 1, makeLayer("b", m, Strategy::Lpt,
                                              FormatKind::Csr));
    writerRefuses(apart, "the shards of a layer follow each other");
  }

  const std::string pkg = dir.path("good.spp");
  ASSERT_TRUE(writePackage(pkg, good, PackageOptions()));
  auto readerRefuses = [&](const std::function<void(json &)> &edit,
                           const std::string &what) {
    const std::string bad = dir.path("edited.spp");
    copyPackage(pkg, bad);
    rewriteManifest(bad, edit);
    expectRefused(bad, what);
    std::string message;
    tryLoad(bad, message);
    EXPECT_NE(message.find(what), std::string::npos) << message;
  };
  readerRefuses([](json &j) { j["layers"][1]["shard"]["row_begin"] = 0; },
                "rows [0, ");
  readerRefuses([](json &j) { j["layers"][2]["shard"]["index"] = 1; },
                "the shards of a layer follow each other");
  readerRefuses([](json &j) { j["layers"][0]["shard"]["count"] = 1; },
                "shard.count");
  readerRefuses([](json &j) { j["layers"][0]["shard"]["extra"] = 1; },
                "extra");
  readerRefuses(
      [](json &j) { j["layers"][1]["source"]["path"] = "other.mtx"; },
      "shard 1: its source (path, sha256, values, rows) differs");
  readerRefuses(
      [](json &j) {
        for (json &l : j["layers"])
          l["shard"]["rows"] = 91;
      },
      "the shards cover rows [0, 90) of 91");
}

} // namespace

namespace {

TEST(CommTest, BRowsAndArgumentChecksWithoutAGpu) {
  int64_t begin = -1, end = -1;
  // 10 columns over 4 ranks: P = 3, the last rank holds one row.
  const int64_t want[4][2] = {{0, 3}, {3, 6}, {6, 9}, {9, 10}};
  for (int32_t r = 0; r < 4; ++r) {
    ASSERT_EQ(sprt_comm_b_rows(10, r, 4, &begin, &end), SPRT_OK);
    EXPECT_EQ(begin, want[r][0]);
    EXPECT_EQ(end, want[r][1]);
  }
  // More ranks than columns: the last ones hold nothing.
  ASSERT_EQ(sprt_comm_b_rows(2, 3, 4, &begin, &end), SPRT_OK);
  EXPECT_EQ(begin, 2);
  EXPECT_EQ(end, 2);
  EXPECT_EQ(sprt_comm_b_rows(10, 4, 4, &begin, &end),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_comm_b_rows(-1, 0, 1, &begin, &end),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_comm_b_rows(10, 0, 1, nullptr, &end),
            SPRT_ERROR_INVALID_ARGUMENT);
  // Past a layer's 2^31 - 1 columns: refused, never a wrapped range.
  EXPECT_EQ(sprt_comm_b_rows(INT64_MAX, 1, 2, &begin, &end),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_comm_b_rows(int64_t{INT32_MAX} + 1, 0, 4, &begin, &end),
            SPRT_ERROR_INVALID_ARGUMENT);
  // The largest: every range within [0, cols], the ranks tiling it.
  const int64_t cols = INT32_MAX;
  int64_t next = 0;
  for (int32_t r = 0; r < 7; ++r) {
    ASSERT_EQ(sprt_comm_b_rows(cols, r, 7, &begin, &end), SPRT_OK);
    EXPECT_EQ(begin, next);
    EXPECT_LE(begin, end);
    EXPECT_LE(end, cols);
    next = end;
  }
  EXPECT_EQ(next, cols);
  ASSERT_EQ(sprt_comm_b_rows(cols, INT32_MAX - 1, INT32_MAX, &begin, &end),
            SPRT_OK);
  EXPECT_EQ(begin, cols - 1);
  EXPECT_EQ(end, cols);

  unsigned char id[SPRT_COMM_ID_BYTES] = {};
  sprt_comm *comm = reinterpret_cast<sprt_comm *>(0x1);
  EXPECT_EQ(sprt_comm_create(id, 2, 2, &comm), SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(comm, nullptr);
  EXPECT_EQ(sprt_comm_create(nullptr, 0, 1, &comm),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_comm_unique_id(nullptr), SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_comm_barrier(nullptr, nullptr), SPRT_ERROR_INVALID_ARGUMENT);
  sprt_comm_release(nullptr);

  // The 1.5-D call refuses a missing communicator before anything else.
  ScratchDir dir;
  const CsrMatrix m = generateUniform(20, 10, 0.2, 1);
  ASSERT_TRUE(writePackage(dir.path("p.spp"),
                           {makeLayer("a", m, Strategy::Lpt, FormatKind::Csr)},
                           PackageOptions()));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("p.spp").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_OK);
  std::vector<float> b(10 * 4), c(20 * 4);
  EXPECT_EQ(sprt_spmm_allgather(p, 0, nullptr, b.data(), 4, 0, c.data(),
                                nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("communicator is NULL"),
            std::string::npos);
  sprt_package_release(p);
}

} // namespace
