//===- CApiTests.cpp - Tests of the runtime's C API -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Packages in every format and several strategies run through the C API on
// the CPU against a float64 reference; every argument error; the per-thread
// last error; concurrent calls of one package; the API from C; and the C++
// wrapper.
//
//===----------------------------------------------------------------------===//

#include "CApiSmoke.h"
#include "RuntimeTestUtil.h"

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Runtime/SpPermRuntime.hpp"
#include "spperm/Sparse/Generators.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

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

// sprt_spmm_ordered on the CPU: a column-major B (element (i, j) at
// i + j * cols) gives what sprt_spmm gives for the same B row-major, in
// every format and strategy, on random matrices; the CPU takes either
// order for every layer.
TEST(RuntimeTest, ColumnMajorBMatchesRowMajor) {
  ScratchDir dir;
  std::vector<PackageLayer> layers;
  std::vector<CsrMatrix> matrices;
  for (uint64_t seed = 1; seed <= 3; ++seed)
    matrices.push_back(generateUniform(20 + 17 * seed, 9 + 13 * seed,
                                       0.1 * seed, seed));
  for (FormatKind kind : kKinds)
    for (size_t i = 0; i < matrices.size(); ++i)
      layers.push_back(makeLayer(std::string(formatName(kind)) + "." +
                                     std::to_string(i),
                                 matrices[i], Strategy::Lpt, kind));
  ASSERT_TRUE(writePackage(dir.path("col.spp"), layers, PackageOptions()));
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("col.spp").c_str(), SPRT_DEVICE_CPU, &p),
            SPRT_OK)
      << sprt_last_error();
  for (size_t i = 0; i < layers.size(); ++i) {
    SCOPED_TRACE(layers[i].name);
    const CsrMatrix &m = matrices[i % matrices.size()];
    int32_t accepted = 0;
    ASSERT_EQ(sprt_layer_accepts_order(p, int64_t(i), SPRT_ORDER_COL,
                                       &accepted),
              SPRT_OK);
    EXPECT_EQ(accepted, 1);
    for (int64_t k : {1, 4, 7, 32}) {
      std::vector<float> b = randomDense(m.cols * k, 300 + k);
      std::vector<float> bCol(b.size());
      for (int64_t r = 0; r < m.cols; ++r)
        for (int64_t j = 0; j < k; ++j)
          bCol[static_cast<size_t>(r + j * m.cols)] =
              b[static_cast<size_t>(r * k + j)];
      std::vector<float> row(static_cast<size_t>(m.rows * k), NAN);
      std::vector<float> col(row.size(), NAN);
      ASSERT_EQ(sprt_spmm(p, int64_t(i), b.data(), k, row.data(), nullptr),
                SPRT_OK);
      ASSERT_EQ(sprt_spmm_ordered(p, int64_t(i), bCol.data(), SPRT_DTYPE_F32,
                                  SPRT_ORDER_COL, k, col.data(),
                                  SPRT_DTYPE_F32, nullptr, 0, nullptr),
                SPRT_OK)
          << sprt_last_error();
      EXPECT_EQ(row, col) << "K = " << k;
      EXPECT_LE(relativeError(col, reference(m, b, k)), 1e-5);
    }
  }
  // Arguments: the order is checked, then as sprt_spmm_typed.
  std::vector<float> b(static_cast<size_t>(matrices[0].cols * 4), 1.0f);
  std::vector<float> c(static_cast<size_t>(matrices[0].rows * 4));
  EXPECT_EQ(sprt_spmm_ordered(p, 0, b.data(), SPRT_DTYPE_F32,
                              static_cast<sprt_order>(2), 4, c.data(),
                              SPRT_DTYPE_F32, nullptr, 0, nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("b_order 2"),
            std::string::npos)
      << sprt_last_error();
  EXPECT_EQ(sprt_spmm_ordered(p, 0, b.data(), SPRT_DTYPE_F16, SPRT_ORDER_COL,
                              4, c.data(), SPRT_DTYPE_F16, nullptr, 0,
                              nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_spmm_ordered(p, 0, nullptr, SPRT_DTYPE_F32, SPRT_ORDER_COL,
                              4, c.data(), SPRT_DTYPE_F32, nullptr, 0,
                              nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  int32_t accepted = 0;
  EXPECT_EQ(sprt_layer_accepts_order(p, 0, SPRT_ORDER_COL, nullptr),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_layer_accepts_order(p, 99, SPRT_ORDER_COL, &accepted),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sprt_layer_accepts_order(p, 0, static_cast<sprt_order>(5),
                                     &accepted),
            SPRT_ERROR_INVALID_ARGUMENT);
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
      SPRT_ERROR_IO, dir.path("missing") + ": cannot open");

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
  expectError(sprt_spmm(p, 0, b.data(), int64_t{1} << 31, c.data(), nullptr),
              SPRT_ERROR_INVALID_ARGUMENT,
              "k must be at most 2^31 - 1, got 2147483648");
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

  // sprt_spmm_time's variants on the CPU: the GPU's names need the GPU, a
  // malformed or empty one is refused as such, and the errors name the
  // entry point called.
  float ms[2];
  for (const char *gpuOnly :
       {"cublas-sgemm", "cublaslt-gemm", "cusparse-spmm-default", "spperm:1"})
    expectError(
        sprt_spmm_time(p, 0, gpuOnly, b.data(), 4, c.data(), nullptr, 0, 1, ms),
        SPRT_ERROR_UNSUPPORTED,
        "sprt_spmm_time: variant '" + std::string(gpuOnly) +
            "' needs the GPU device (the CPU runs only 'spperm')");
  expectError(
      sprt_spmm_time(p, 0, "mkl", b.data(), 4, c.data(), nullptr, 0, 1, ms),
      SPRT_ERROR_UNSUPPORTED,
      "variant 'mkl' is unknown (spperm, spperm:N, cusparse-..., "
      "cublas-sgemm, cublaslt-gemm; the CPU runs only 'spperm')");
  for (const char *malformed : {"spperm:", "spperm:x", "spperm:12345"})
    expectError(sprt_spmm_time(p, 0, malformed, b.data(), 4, c.data(), nullptr,
                               0, 1, ms),
                SPRT_ERROR_INVALID_ARGUMENT,
                "' is not spperm:N (N the layer's variant");
  expectError(
      sprt_spmm_time(p, 0, "", b.data(), 4, c.data(), nullptr, 0, 1, ms),
      SPRT_ERROR_INVALID_ARGUMENT, "sprt_spmm_time: variant is empty");
  expectError(sprt_spmm_time_typed(p, 0, "cublas-sgemm", b.data(),
                                   SPRT_DTYPE_F32, 4, c.data(), SPRT_DTYPE_F32,
                                   nullptr, 0, 1, ms),
              SPRT_ERROR_UNSUPPORTED, "sprt_spmm_time_typed: variant");
  // An enum out of range reads as the int the caller passed.
  expectError(sprt_spmm_ordered(p, 0, b.data(), SPRT_DTYPE_F32,
                                static_cast<sprt_order>(-1), 4, c.data(),
                                SPRT_DTYPE_F32, nullptr, 0, nullptr),
              SPRT_ERROR_INVALID_ARGUMENT,
              "sprt_spmm_ordered: b_order -1 is not an sprt_order");
  expectError(sprt_spmm_typed(p, 0, b.data(), static_cast<sprt_dtype>(-2), 4,
                              c.data(), SPRT_DTYPE_F32, nullptr),
              SPRT_ERROR_INVALID_ARGUMENT, "b_dtype -2 is not an sprt_dtype");
  EXPECT_EQ(
      sprt_spmm_time(p, 0, nullptr, b.data(), 4, c.data(), nullptr, 0, 2, ms),
      SPRT_OK);
  EXPECT_EQ(
      sprt_spmm_time(p, 0, "spperm", b.data(), 4, c.data(), nullptr, 0, 2, ms),
      SPRT_OK);
  EXPECT_EQ(sprt_spmm_time(p, 0, "spperm:0", b.data(), 4, c.data(), nullptr, 0,
                           2, ms),
            SPRT_OK)
      << sprt_last_error();
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

} // namespace
