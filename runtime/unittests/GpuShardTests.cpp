//===- GpuShardTests.cpp - Shards and NCCL on the GPU -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// On the GPU machine (skipped, with the reason, where there is no GPU or no
// NCCL): a sharded layer run whole on one GPU (each shard into its rows of
// C) and one rank's shard alone, against float64; and a one-rank NCCL
// communicator running sprt_spmm_allgather (1.5-D) whole and in chunks of K
// against the same reference, and its barrier (docs/Distributed.md).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"
#include "spperm/Sparse/Shards.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

/// `m` cut into `n` balanced shards, each in `kind`.
std::vector<PackageLayer> shards(const std::string &name, const CsrMatrix &m,
                                 int32_t n, FormatKind kind) {
  std::vector<int32_t> bounds = *planShards(m, n, ShardCut::Balanced);
  std::vector<PackageLayer> out;
  for (int32_t i = 0; i < n; ++i) {
    PackageLayer l = makeLayer(name, sliceRows(m, bounds[i], bounds[i + 1]),
                               Strategy::Lpt, kind);
    l.shard = {i, n, bounds[i], bounds[i + 1], m.rows};
    out.push_back(std::move(l));
  }
  return out;
}

/// C (rows x k) of layer 0 of `p` for B on the device.
std::vector<float> runOnGpu(sprt_package *p, const std::vector<float> &b,
                            int64_t rows, int64_t k) {
  DeviceArray db(int64_t(b.size()) * 4), dc(rows * k * 4);
  EXPECT_EQ(sprt_memcpy_htod(db.get(), b.data(), int64_t(b.size()) * 4),
            SPRT_OK);
  std::vector<float> c(static_cast<size_t>(rows * k), NAN);
  EXPECT_EQ(sprt_memcpy_htod(dc.get(), c.data(), rows * k * 4), SPRT_OK);
  EXPECT_EQ(sprt_spmm(p, 0, db.get(), k, dc.get(), nullptr), SPRT_OK)
      << sprt_last_error();
  EXPECT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), rows * k * 4), SPRT_OK);
  return c;
}

TEST(GpuShardTest, WholeAndOneShard) {
  ScratchDir dir;
  const CsrMatrix m = generateRmat(10, 8, 5);
  const std::string pkg = dir.path("s.spp");
  ASSERT_TRUE(writePackage(pkg, shards("g", m, 3, FormatKind::Csr),
                           PackageOptions()));
  const int64_t k = 12;
  std::vector<float> b = randomDense(int64_t(m.cols) * k, 3);
  const std::vector<double> want = reference(m, b, k);

  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(pkg, p);
  EXPECT_LE(relativeError(runOnGpu(p, b, m.rows, k), want), 1e-5);
  sprt_package_release(p);

  ASSERT_EQ(sprt_package_load_shard(pkg.c_str(), SPRT_DEVICE_GPU, 1, 3, &p),
            SPRT_OK)
      << sprt_last_error();
  sprt_shard_desc sd;
  ASSERT_EQ(sprt_layer_shard(p, 0, 0, &sd), SPRT_OK);
  const int64_t rows = sd.row_end - sd.row_begin;
  std::vector<double> slice(want.begin() + sd.row_begin * k,
                            want.begin() + sd.row_end * k);
  EXPECT_LE(relativeError(runOnGpu(p, b, rows, k), slice), 1e-5);
  sprt_package_release(p);
}

TEST(GpuShardTest, OneRankAllgather) {
  ScratchDir dir;
  const CsrMatrix m = generateSkewed(300, 260, 7);
  const std::string pkg = dir.path("w.spp");
  ASSERT_TRUE(writePackage(
      pkg, {makeLayer("w", m, Strategy::Lpt, FormatKind::Csr)},
      PackageOptions()));
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(pkg, p);
  unsigned char id[SPRT_COMM_ID_BYTES];
  if (sprt_comm_unique_id(id) != SPRT_OK) {
    std::string why = sprt_last_error();
    sprt_package_release(p);
    GTEST_SKIP() << "no NCCL: " << why;
  }
  sprt_comm *comm = nullptr;
  ASSERT_EQ(sprt_comm_create(id, 0, 1, &comm), SPRT_OK) << sprt_last_error();
  EXPECT_EQ(sprt_comm_barrier(comm, nullptr), SPRT_OK) << sprt_last_error();
  int64_t begin = -1, end = -1;
  ASSERT_EQ(sprt_comm_b_rows(m.cols, 0, 1, &begin, &end), SPRT_OK);
  EXPECT_EQ(begin, 0);
  EXPECT_EQ(end, m.cols);
  const int64_t k = 10;
  std::vector<float> b = randomDense(int64_t(m.cols) * k, 8);
  const std::vector<double> want = reference(m, b, k);
  DeviceArray db(int64_t(b.size()) * 4), dc(m.rows * k * 4);
  ASSERT_EQ(sprt_memcpy_htod(db.get(), b.data(), int64_t(b.size()) * 4),
            SPRT_OK);
  // All at once, and in chunks of 3 columns (3 + 3 + 3 + 1).
  for (int64_t chunk : {0, 3, 4, 64}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    std::vector<float> c(static_cast<size_t>(m.rows * k), NAN);
    ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), m.rows * k * 4), SPRT_OK);
    ASSERT_EQ(sprt_spmm_allgather(p, 0, comm, db.get(), k, chunk, dc.get(),
                                  nullptr),
              SPRT_OK)
        << sprt_last_error();
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), m.rows * k * 4), SPRT_OK);
    EXPECT_LE(relativeError(c, want), 1e-5);
  }
  // Calls on two streams reuse the communicator's buffers one after the
  // other: the second waits for the first.
  void *side = nullptr;
  ASSERT_EQ(sprt_stream_create(&side), SPRT_OK) << sprt_last_error();
  DeviceArray dc2(m.rows * k * 4);
  ASSERT_EQ(sprt_spmm_allgather(p, 0, comm, db.get(), k, 3, dc.get(), side),
            SPRT_OK)
      << sprt_last_error();
  ASSERT_EQ(sprt_spmm_allgather(p, 0, comm, db.get(), k, 4, dc2.get(),
                                nullptr),
            SPRT_OK)
      << sprt_last_error();
  ASSERT_EQ(sprt_stream_synchronize(side), SPRT_OK);
  ASSERT_EQ(sprt_stream_synchronize(nullptr), SPRT_OK);
  for (const DeviceArray *out : {&dc, &dc2}) {
    std::vector<float> c(static_cast<size_t>(m.rows * k));
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), out->get(), m.rows * k * 4), SPRT_OK);
    EXPECT_LE(relativeError(c, want), 1e-5);
  }
  EXPECT_EQ(sprt_stream_destroy(side), SPRT_OK);
  EXPECT_EQ(sprt_spmm_allgather(p, 0, comm, db.get(), k, -1, dc.get(),
                                nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  // b_local must not overlap C.
  EXPECT_EQ(sprt_spmm_allgather(p, 0, comm, dc.get(), k, 0, dc.get(),
                                nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  sprt_comm_release(comm);
  sprt_package_release(p);
}

} // namespace
