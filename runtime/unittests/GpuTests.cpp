//===- GpuTests.cpp - Tests of the GPU backend ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The CSR in the original row order that the GPU backend hands to cuSPARSE;
// and, where there is a usable GPU (skipped, visibly, elsewhere), packages
// run through the GPU backend against a float64 reference, every cuSPARSE
// baseline, the device helpers, launches from several threads and streams,
// first-call decisions shared by every stream, and the tuning cache across
// package loads (reused, and corrupt).
//
// Every test here times at each first call and leaves the user's tuning
// cache alone (SPRT_TUNING_CACHE=off for the binary), unless it names a
// cache file of its own.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"
#ifdef SPPERM_HAVE_CUDA
#include "CudaBackend.h"
#endif

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

/// Turns the tuning cache off for the whole binary (before any test), so
/// that every first call times and the user's cache is never written.
class NoUserTuningCache : public testing::Environment {
public:
  void SetUp() override { ::setenv("SPRT_TUNING_CACHE", "off", 1); }
};

testing::Environment *const noUserTuningCache =
    testing::AddGlobalTestEnvironment(new NoUserTuningCache);

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
                             "cusparse-spmv-csr-alg2", "cublas-sgemm"};
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
        // NOT_SUPPORTED); only its default SpMM and the dense candidate
        // (these layers are far below its budget) must run.
        if (s != SPRT_OK && std::string(variant) != "cusparse-spmm-default" &&
            std::string(variant) != "cublas-sgemm") {
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

// The dense candidate's budget: SPPERM_DENSE_BUDGET_MB=0 turns it off (the
// variant is refused, cuSPARSE alone is the library), a value that is not a
// number of MiB fails the package's load in one line.
TEST(GpuTest, DenseBudgetIsReadFromTheEnvironment) {
  ScratchDir dir;
  const CsrMatrix m = testMatrices()[0];
  std::vector<PackageLayer> layers = {
      makeLayer("dense", m, Strategy::Identity, FormatKind::Csr)};
  ASSERT_TRUE(writePackage(dir.path("d.spp"), layers, PackageOptions()));
  struct Restore {
    ~Restore() { unsetenv("SPPERM_DENSE_BUDGET_MB"); }
  } restore;
  setenv("SPPERM_DENSE_BUDGET_MB", "0", 1);
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  const int64_t k = 8;
  DeviceArray db(m.cols * k * 4), dc(m.rows * k * 4);
  float times[1];
  EXPECT_EQ(sprt_spmm_time(p, 0, "cublas-sgemm", db.get(), k, dc.get(),
                           nullptr, 0, 1, times),
            SPRT_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(sprt_last_error()).find("SPPERM_DENSE_BUDGET_MB"),
            std::string::npos)
      << sprt_last_error();
  sprt_package_release(p);
  setenv("SPPERM_DENSE_BUDGET_MB", "lots", 1);
  p = nullptr;
  EXPECT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sprt_last_error()).find("SPPERM_DENSE_BUDGET_MB"),
            std::string::npos)
      << sprt_last_error();
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

//===----------------------------------------------------------------------===//
// First-call decisions: shared by every stream, kept in the tuning cache
//===----------------------------------------------------------------------===//

#ifdef SPPERM_HAVE_CUDA

using runtime_detail::DecisionCounts;
using runtime_detail::gpuDecisionCounts;
using runtime_detail::gpuResidentArrayBytes;
using runtime_detail::gpuScratchAllocations;

/// The Ks of the decision tests and their distinct K buckets per layer: for
/// the checked layer (the test kernels' variant for K, the power of two at
/// least K): rows/1, rows/4, rows/8 (5 and 8), atomic/32, rows/64; the same
/// five for the library layer.
const std::vector<int64_t> kDecisionKs = {1, 3, 5, 8, 32, 33};
constexpr uint64_t kDecisionBuckets = 2 * 5;

/// A package of two layers over `m`: "checked", the test kernels with the
/// library check and two alternatives (the selector's shortlist, each the
/// same kernels over its own row order), and "library", no kernels (it runs
/// the library's fastest call).
void writeDecisionPackage(const std::string &path, const CsrMatrix &m) {
  PackageLayer checked = makeLayer("checked", m, Strategy::Lpt,
                                   FormatKind::Csr);
  checked.kernels = testKernels();
  checked.libraryCheck = true;
  for (Strategy s : {Strategy::Identity, Strategy::Bsa}) {
    PackageLayer alternative = makeLayer("checked", m, s, FormatKind::Csr);
    alternative.kernels = testKernels();
    alternative.libraryCheck = true;
    checked.alternatives.push_back(std::move(alternative));
  }
  PackageLayer library = makeLayer("library", m, Strategy::Identity,
                                   FormatKind::Csr);
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(path, {checked, library}, options));
}

/// B on the device for each K of kDecisionKs, and C = A * B in float64.
struct DecisionOperands {
  std::vector<std::unique_ptr<DeviceArray>> b;
  std::vector<std::vector<double>> want;

  explicit DecisionOperands(const CsrMatrix &a) {
    for (int64_t k : kDecisionKs) {
      const std::vector<float> host = randomDense(a.cols * k, 31 + k);
      want.push_back(reference(a, host, k));
      b.push_back(std::make_unique<DeviceArray>(a.cols * k * 4));
      EXPECT_EQ(sprt_memcpy_htod(b.back()->get(), host.data(), a.cols * k * 4),
                SPRT_OK);
    }
  }
};

/// Runs both layers of `p` for every K of kDecisionKs on the legacy
/// default stream, checks each C, and returns what SPPERM_LOG_CHOICES=1
/// printed (the runtime's log and warnings).
std::string runDecisionLayers(sprt_package *p, const CsrMatrix &a,
                              const DecisionOperands &operands) {
  testing::internal::CaptureStderr();
  for (int64_t layer : {0, 1})
    for (size_t i = 0; i < kDecisionKs.size(); ++i) {
      const int64_t k = kDecisionKs[i];
      SCOPED_TRACE("layer " + std::to_string(layer) + ", K = " +
                   std::to_string(k));
      DeviceArray dc(a.rows * k * 4);
      std::vector<float> c(static_cast<size_t>(a.rows * k), NAN);
      EXPECT_EQ(sprt_memcpy_htod(dc.get(), c.data(), a.rows * k * 4), SPRT_OK);
      EXPECT_EQ(sprt_spmm(p, layer, operands.b[i]->get(), k, dc.get(), nullptr),
                SPRT_OK)
          << sprt_last_error();
      EXPECT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), a.rows * k * 4), SPRT_OK);
      EXPECT_LE(relativeError(c, operands.want[i]), 1e-5);
    }
  return testing::internal::GetCapturedStderr();
}

/// The decisions in a SPPERM_LOG_CHOICES log: "layer 'NAME', k = K" ->
/// what runs ("variant N" or a library call), whether timed or taken from
/// the tuning cache.
std::map<std::string, std::string> decisionsIn(const std::string &log) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos)
      end = log.size();
    const std::string line = log.substr(start, end - start);
    start = end + 1;
    const size_t layer = line.find("layer '");
    const size_t colon = line.find(':', layer);
    const size_t runs = line.rfind(" runs ");
    if (line.rfind("spperm: ", 0) != 0 || layer == std::string::npos ||
        colon == std::string::npos || runs == std::string::npos)
      continue;
    out[line.substr(layer, colon - layer)] = line.substr(runs + 6);
  }
  return out;
}

// Several threads, each with its own stream, make the first calls of both
// layers at every K at once: every C is right, and the candidates are
// timed once per (layer, K bucket), not once per stream.
TEST(GpuDecisionTest, DecisionsAreSharedByEveryStream) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  writeDecisionPackage(dir.path("d.spp"), a);
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  const DecisionOperands operands(a);
  const DecisionCounts before = gpuDecisionCounts();
  constexpr int kThreads = 8, kRounds = 3;
  std::vector<int> wrong(kThreads, 0), failed(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *stream = nullptr;
      if (sprt_stream_create(&stream) != SPRT_OK) {
        ++failed[t];
        errors[t] = sprt_last_error();
        return;
      }
      const int64_t most = a.rows * kDecisionKs.back();
      DeviceArray dc(most * 4);
      std::vector<float> poison(static_cast<size_t>(most), NAN);
      for (int round = 0; round < kRounds; ++round)
        for (size_t j = 0; j < kDecisionKs.size(); ++j) {
          // Each thread starts at another K, so that first calls collide.
          const size_t i = (j + static_cast<size_t>(t)) % kDecisionKs.size();
          const int64_t k = kDecisionKs[i];
          for (int64_t layer : {int64_t(t % 2), int64_t(1 - t % 2)}) {
            std::vector<float> c(static_cast<size_t>(a.rows * k));
            if (sprt_memcpy_htod_async(dc.get(), poison.data(),
                                       a.rows * k * 4, stream) != SPRT_OK ||
                sprt_spmm(p, layer, operands.b[i]->get(), k, dc.get(),
                          stream) != SPRT_OK ||
                sprt_memcpy_dtoh_async(c.data(), dc.get(), a.rows * k * 4,
                                       stream) != SPRT_OK ||
                sprt_stream_synchronize(stream) != SPRT_OK) {
              ++failed[t];
              errors[t] = sprt_last_error();
            } else if (!(relativeError(c, operands.want[i]) <= 1e-5)) {
              ++wrong[t];
            }
          }
        }
      sprt_stream_destroy(stream);
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failed[t], 0) << "thread " << t << ": " << errors[t];
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
  }
  const DecisionCounts after = gpuDecisionCounts();
  EXPECT_EQ(after.timed - before.timed, kDecisionBuckets);
  EXPECT_EQ(after.cached - before.cached, 0u);
  std::printf("%d threads, a stream each, %zu calls each: %llu timed "
              "decisions\n",
              kThreads, kRounds * kDecisionKs.size() * 2,
              static_cast<unsigned long long>(after.timed - before.timed));
  sprt_package_release(p);
}

// A second load of the package, in the same process, with a tuning cache
// file: it times nothing and runs what the first load chose.
TEST(GpuDecisionTest, TuningCacheSkipsTimingAtTheNextLoad) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  writeDecisionPackage(dir.path("d.spp"), a);
  const std::string cachePath = dir.path("cache/tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv log("SPPERM_LOG_CHOICES", "1");
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  const DecisionOperands operands(a);

  DecisionCounts before = gpuDecisionCounts();
  const std::string first = runDecisionLayers(p, a, operands);
  DecisionCounts after = gpuDecisionCounts();
  sprt_package_release(p);
  EXPECT_EQ(after.timed - before.timed, kDecisionBuckets) << first;
  EXPECT_EQ(after.cached - before.cached, 0u) << first;
  EXPECT_EQ(first.find("warning"), std::string::npos) << first;
  const std::map<std::string, std::string> timed = decisionsIn(first);
  EXPECT_EQ(timed.size(), kDecisionBuckets) << first;
  ASSERT_TRUE(exists(cachePath));

  p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  before = gpuDecisionCounts();
  const std::string second = runDecisionLayers(p, a, operands);
  after = gpuDecisionCounts();
  sprt_package_release(p);
  EXPECT_EQ(after.timed - before.timed, 0u) << second;
  EXPECT_EQ(after.cached - before.cached, kDecisionBuckets) << second;
  EXPECT_EQ(second.find("warning"), std::string::npos) << second;
  EXPECT_NE(second.find("from the tuning cache"), std::string::npos) << second;
  // The same choice for every (layer, K bucket).
  EXPECT_EQ(decisionsIn(second), timed) << first << "---\n" << second;
  std::printf("%s---\n%s", first.c_str(), second.c_str());
}

// A column-major B where the choice for the bucket is dense SGEMM: cuBLAS
// reads B transposed as it is, so the transposing kernel does not run (the
// caller's workspace stays as it was), and C is right. The choice comes
// from the tuning cache, edited to name cublas-sgemm.
TEST(GpuDecisionTest, DenseChoiceReadsColumnMajorB) {
  ScratchDir dir;
  const CsrMatrix a = generateUniform(96, 80, 0.3, 4);
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  const int64_t k = 32, bBytes = a.cols * k * 4, cBytes = a.rows * k * 4;
  writeDenseChoice(dir.path("d.spp"), cachePath, a, k, testTransposeKernel());
  if (IsSkipped() || HasFatalFailure())
    return;
  const std::vector<float> b = randomDense(a.cols * k, 5);
  const std::vector<double> want = reference(a, b, k);
  std::vector<float> bCol(b.size());
  for (int64_t i = 0; i < a.cols; ++i)
    for (int64_t j = 0; j < k; ++j)
      bCol[static_cast<size_t>(i + j * a.cols)] =
          b[static_cast<size_t>(i * k + j)];
  DeviceArray dcol(bBytes), dc(cBytes), dw(bBytes);
  ASSERT_EQ(sprt_memcpy_htod(dcol.get(), bCol.data(), bBytes), SPRT_OK);

  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const std::vector<float> sentinel(static_cast<size_t>(a.cols * k), 7.0f);
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(sprt_memcpy_htod(dw.get(), sentinel.data(), bBytes), SPRT_OK);
    std::vector<float> c(static_cast<size_t>(a.rows * k), NAN);
    ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
    ASSERT_EQ(sprt_spmm_ordered(p, 0, dcol.get(), SPRT_DTYPE_F32,
                                SPRT_ORDER_COL, k, dc.get(), SPRT_DTYPE_F32,
                                dw.get(), static_cast<size_t>(bBytes), nullptr),
              SPRT_OK)
        << sprt_last_error();
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
    EXPECT_LE(relativeError(c, want), 1e-5) << "round " << round;
    std::vector<float> w(sentinel.size());
    ASSERT_EQ(sprt_memcpy_dtoh(w.data(), dw.get(), bBytes), SPRT_OK);
    // The first call decides (from the cache) after the transposing
    // kernel ran; later ones know the choice first.
    if (round == 1) {
      EXPECT_EQ(w, sentinel) << "the transposing kernel ran";
    }
  }
  // Decided, without a workspace: the runtime allocates no row-major B.
  const uint64_t scratch = gpuScratchAllocations();
  std::vector<float> c(static_cast<size_t>(a.rows * k), NAN);
  ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), cBytes), SPRT_OK);
  ASSERT_EQ(sprt_spmm_ordered(p, 0, dcol.get(), SPRT_DTYPE_F32, SPRT_ORDER_COL,
                              k, dc.get(), SPRT_DTYPE_F32, nullptr, 0, nullptr),
            SPRT_OK)
      << sprt_last_error();
  ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), cBytes), SPRT_OK);
  EXPECT_LE(relativeError(c, want), 1e-5);
  EXPECT_EQ(gpuScratchAllocations(), scratch)
      << "a row-major B was allocated for a call that reads B in place";
  sprt_package_release(p);
}

// The dense choice on four streams at once: eight calls on each, issued
// round robin so that the streams' GEMMs overlap, each into its own C, then
// every C checked; three times. cublasSgemm's split-K algorithms use a
// workspace at this shape (a long reduction), and streams sharing one give
// wrong results (docs/results/workspace-2026-12-07-s73); the runtime
// gives each stream its own.
TEST(GpuDecisionTest, DenseChoiceOnStreamsAtOnce) {
  ScratchDir dir;
  const CsrMatrix a = generateUniform(128, 16384, 0.2, 6);
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  constexpr int64_t k = 128;
  writeDenseChoice(dir.path("d.spp"), cachePath, a, k);
  if (IsSkipped() || HasFatalFailure())
    return;
  sprt_package *p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const DecisionCounts before = gpuDecisionCounts();
  constexpr int kStreams = 4, kCalls = 8, kRounds = 3;
  struct Stream {
    void *stream = nullptr;
    std::unique_ptr<DeviceArray> b;
    std::vector<double> want;
    std::vector<std::unique_ptr<DeviceArray>> cs;
  };
  std::vector<Stream> streams(kStreams);
  for (int s = 0; s < kStreams; ++s) {
    Stream &st = streams[s];
    ASSERT_EQ(sprt_stream_create(&st.stream), SPRT_OK) << sprt_last_error();
    const std::vector<float> host = randomDense(a.cols * k, 60 + s);
    st.want = reference(a, host, k);
    st.b = std::make_unique<DeviceArray>(a.cols * k * 4);
    ASSERT_EQ(sprt_memcpy_htod(st.b->get(), host.data(), a.cols * k * 4),
              SPRT_OK);
    for (int i = 0; i < kCalls; ++i)
      st.cs.push_back(std::make_unique<DeviceArray>(a.rows * k * 4));
  }
  int wrong = 0;
  std::vector<float> got(static_cast<size_t>(a.rows * k));
  const std::vector<float> nan(got.size(), NAN);
  for (int round = 0; round < kRounds; ++round) {
    for (Stream &st : streams)
      for (const auto &c : st.cs)
        ASSERT_EQ(sprt_memcpy_htod(c->get(), nan.data(), a.rows * k * 4),
                  SPRT_OK);
    for (int i = 0; i < kCalls; ++i)
      for (Stream &st : streams)
        ASSERT_EQ(sprt_spmm(p, 0, st.b->get(), k, st.cs[i]->get(), st.stream),
                  SPRT_OK)
            << sprt_last_error();
    for (Stream &st : streams) {
      ASSERT_EQ(sprt_stream_synchronize(st.stream), SPRT_OK);
      for (const auto &c : st.cs) {
        ASSERT_EQ(sprt_memcpy_dtoh(got.data(), c->get(), a.rows * k * 4),
                  SPRT_OK);
        wrong += relativeError(got, st.want) > 1e-5;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "of " << kRounds * kCalls * kStreams << " calls";
  const DecisionCounts after = gpuDecisionCounts();
  EXPECT_EQ(after.cached - before.cached, 1u)
      << "the tuning cache's dense choice was not taken";
  EXPECT_EQ(after.timed - before.timed, 0u);
  for (Stream &st : streams)
    EXPECT_EQ(sprt_stream_destroy(st.stream), SPRT_OK);
  sprt_package_release(p);
}

// A bucket's choice made at one K runs at another K of the bucket only
// where it can: here the tuning cache (edited) names variant 1, whose
// kernels take only K = 8, for the bucket of K = 5 to 8. The call at K = 8
// runs variant 1; the one at K = 5 falls back to the layer's own kernels
// (RuntimeABI.md, "Functions"), and both results are right.
TEST(GpuDecisionTest, BucketChoiceFallsBackWhereItHasNoKernels) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  PackageLayer checked =
      makeLayer("checked", a, Strategy::Lpt, FormatKind::Csr);
  checked.kernels = {testKernel("spmm_rows", "rows")};
  checked.libraryCheck = true;
  PackageLayer eights =
      makeLayer("checked", a, Strategy::Identity, FormatKind::Csr);
  eights.kernels = {testKernel("spmm_rows", "rows", 8)};
  eights.libraryCheck = true;
  checked.alternatives = {eights};
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("d.spp"), {checked}, options));
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv log("SPPERM_LOG_CHOICES", "1");

  struct Operand {
    int64_t k;
    std::unique_ptr<DeviceArray> b;
    std::vector<double> want;
  };
  std::vector<Operand> operands;
  auto runAt = [&](sprt_package *p, const Operand &op) {
    SCOPED_TRACE("K = " + std::to_string(op.k));
    DeviceArray dc(a.rows * op.k * 4);
    std::vector<float> c(static_cast<size_t>(a.rows * op.k), NAN);
    ASSERT_EQ(sprt_memcpy_htod(dc.get(), c.data(), a.rows * op.k * 4), SPRT_OK);
    ASSERT_EQ(sprt_spmm(p, 0, op.b->get(), op.k, dc.get(), nullptr), SPRT_OK)
        << sprt_last_error();
    ASSERT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), a.rows * op.k * 4), SPRT_OK);
    EXPECT_LE(relativeError(c, op.want), 1e-5);
  };

  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  for (int64_t k : {8, 5}) {
    const std::vector<float> host = randomDense(a.cols * k, 40 + k);
    operands.push_back({k, std::make_unique<DeviceArray>(a.cols * k * 4),
                        reference(a, host, k)});
    ASSERT_EQ(
        sprt_memcpy_htod(operands.back().b->get(), host.data(), a.cols * k * 4),
        SPRT_OK);
  }
  testing::internal::CaptureStderr();
  runAt(p, operands[0]);
  testing::internal::GetCapturedStderr();
  sprt_package_release(p);

  // The bucket's entry, edited to run variant 1 without a library call.
  nlohmann::json root =
      nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), 1u);
  root["entries"][0]["choice"]["variant"] = 1;
  root["entries"][0]["choice"]["library"] = "";
  root["entries"][0]["choice"]["variant_name"] = "csr/identity";
  writeBytes(cachePath, root.dump());

  p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  testing::internal::CaptureStderr();
  for (int round = 0; round < 2; ++round)
    for (const Operand &op : operands)
      runAt(p, op);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("from the tuning cache: runs variant 1"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  sprt_package_release(p);
}

// A corrupt cache file, and then entries that name what the package lacks,
// are ignored with a warning; the layers are timed again, their results
// are right, and the file is rewritten with valid entries.
TEST(GpuDecisionTest, CorruptTuningCacheWarnsAndIsRetimed) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  writeDecisionPackage(dir.path("d.spp"), a);
  const std::string cachePath = dir.path("tuning.json");
  writeBytes(cachePath, "{\"schema\": \"spperm-tuning-cache\", \"entr");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv log("SPPERM_LOG_CHOICES", nullptr);
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  const DecisionOperands operands(a);
  DecisionCounts before = gpuDecisionCounts();
  std::string err = runDecisionLayers(p, a, operands);
  DecisionCounts after = gpuDecisionCounts();
  sprt_package_release(p);
  EXPECT_EQ(after.timed - before.timed, kDecisionBuckets);
  // One warning, about the file.
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(err.rfind("spperm runtime: warning: tuning cache " + cachePath, 0),
            0u)
      << err;

  // Rewritten: valid, one entry per (layer, K bucket). Now make every
  // entry name what the package lacks: a variant past its alternatives,
  // a library call no runtime knows.
  nlohmann::json root =
      nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), kDecisionBuckets);
  for (nlohmann::json &entry : root["entries"]) {
    if (entry["key"]["layer"] == "checked")
      entry["choice"]["variant"] = 7;
    else
      entry["choice"]["library"] = "cusparse-spmm-alg99";
  }
  writeBytes(cachePath, root.dump());
  p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  before = gpuDecisionCounts();
  err = runDecisionLayers(p, a, operands);
  after = gpuDecisionCounts();
  sprt_package_release(p);
  EXPECT_EQ(after.timed - before.timed, kDecisionBuckets);
  EXPECT_EQ(after.cached - before.cached, 0u);
  // One warning per entry, each naming the layer.
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'),
            static_cast<long>(kDecisionBuckets))
      << err;
  EXPECT_NE(err.find("variant 7"), std::string::npos) << err;
  EXPECT_NE(err.find("cusparse-spmm-alg99"), std::string::npos) << err;
  root = nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), kDecisionBuckets);
  for (const nlohmann::json &entry : root["entries"]) {
    EXPECT_LE(entry["choice"]["variant"].get<int>(), 2) << entry;
    EXPECT_NE(entry["choice"]["library"], "cusparse-spmm-alg99") << entry;
  }
}

TEST(GpuDecisionTest, LosingVariantsAreReleased) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  writeDecisionPackage(dir.path("d.spp"), a);
  std::unique_ptr<DecisionOperands> operands;
  for (const char *keep : {"0", "1"}) {
    SCOPED_TRACE(std::string("SPRT_KEEP_VARIANTS=") + keep);
    ScopedEnv keepEnv("SPRT_KEEP_VARIANTS", keep);
    ScopedEnv log("SPPERM_LOG_CHOICES", "1");
    const uint64_t before = gpuResidentArrayBytes();
    sprt_package *p = nullptr;
    LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
    if (!operands)
      operands = std::make_unique<DecisionOperands>(a);
    // At load every variant of the checked layer is on the device.
    const uint64_t loaded = gpuResidentArrayBytes() - before;
    EXPECT_GT(loaded, 0u);
    // Every K of both layers, each result checked (runDecisionLayers):
    // released variants come back where a later first call times them.
    const std::string choices = runDecisionLayers(p, a, *operands);
    const uint64_t after = gpuResidentArrayBytes() - before;
    // What stays: the variants the decisions run (at most the three), or
    // everything with SPRT_KEEP_VARIANTS=1.
    const std::map<std::string, std::string> decided = decisionsIn(choices);
    std::set<std::string> running;
    for (const auto &[layer, what] : decided)
      if (layer.find("'checked'") != std::string::npos &&
          what.rfind("variant ", 0) == 0)
        running.insert(what);
    if (std::string(keep) == "1")
      EXPECT_EQ(after, loaded) << choices;
    else
      EXPECT_EQ(after, loaded / 3 * running.size()) << choices;
    // And the calls after the decisions run on what stayed.
    EXPECT_EQ(runDecisionLayers(p, a, *operands).find("spperm: layer"),
              std::string::npos);
    sprt_package_release(p);
    EXPECT_EQ(gpuResidentArrayBytes(), before);
  }
}

/// Writes a package whose layer "checked" has three variants: its own
/// (csr/lpt), a twin taking the same arrays (a copy of it: variant 1) and
/// csr/identity (variant 2); and a layer "library" (cuSPARSE only).
/// `own` / `other`: the bytes of the own variant's and variant 2's arrays
/// on the GPU.
void writeTwinPackage(const std::string &path, const CsrMatrix &a,
                      uint64_t &own, uint64_t &other) {
  PackageLayer checked =
      makeLayer("checked", a, Strategy::Lpt, FormatKind::Csr);
  checked.kernels = testKernels();
  checked.libraryCheck = true;
  const PackageLayer twin = checked;
  PackageLayer identity =
      makeLayer("checked", a, Strategy::Identity, FormatKind::Csr);
  identity.kernels = testKernels();
  identity.libraryCheck = true;
  checked.alternatives = {twin, identity};
  PackageLayer library =
      makeLayer("library", a, Strategy::Identity, FormatKind::Csr);
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(path, {checked, library}, options));
  own = uploadedArrayBytes(checked);
  other = uploadedArrayBytes(identity);
  ASSERT_EQ(layerUploadedBytes(checked), own + other);
}

/// Times `variant` ("spperm:N") of layer 0 at K = 32 with C checked.
void timeVariantChecked(sprt_package *p, const char *variant,
                        const CsrMatrix &a, const DecisionOperands &operands) {
  SCOPED_TRACE(variant);
  const size_t k32 = 4;
  ASSERT_EQ(kDecisionKs[k32], 32);
  DeviceArray dc(a.rows * 32 * 4);
  std::vector<float> c(static_cast<size_t>(a.rows * 32), NAN);
  EXPECT_EQ(sprt_memcpy_htod(dc.get(), c.data(), a.rows * 32 * 4), SPRT_OK);
  float ms = 0;
  EXPECT_EQ(sprt_spmm_time(p, 0, variant, operands.b[k32]->get(), 32,
                           dc.get(), nullptr, 1, 1, &ms),
            SPRT_OK)
      << sprt_last_error();
  EXPECT_EQ(sprt_memcpy_dtoh(c.data(), dc.get(), a.rows * 32 * 4), SPRT_OK);
  EXPECT_LE(relativeError(c, operands.want[k32]), 1e-5);
}

// Variants that take the same arrays (a bell variant and its tensor-core
// twin; here a copy of the layer's own variant) hold one upload of them:
// at load, after the decisions release the losers (the arrays stay while a
// chosen variant shares them) and until the package goes.
TEST(GpuDecisionTest, VariantsHoldingTheSameArraysShareThem) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  uint64_t own = 0, otherBytes = 0;
  writeTwinPackage(dir.path("t.spp"), a, own, otherBytes);
  if (HasFatalFailure())
    return;

  ScopedEnv keepEnv("SPRT_KEEP_VARIANTS", "0");
  ScopedEnv log("SPPERM_LOG_CHOICES", "1");
  const uint64_t before = gpuResidentArrayBytes();
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("t.spp"), p);
  EXPECT_EQ(gpuResidentArrayBytes() - before, own + otherBytes);
  const DecisionOperands operands(a);
  // Every K of both layers, each C checked, whichever variant each first
  // call takes (the twins take turns with their shared arrays).
  const std::string choices = runDecisionLayers(p, a, operands);
  bool ownArrays = false, otherArrays = false;
  for (const auto &[layer, what] : decisionsIn(choices))
    if (layer.find("'checked'") != std::string::npos) {
      ownArrays = ownArrays || what == "variant 0" || what == "variant 1";
      otherArrays = otherArrays || what == "variant 2";
    }
  EXPECT_EQ(gpuResidentArrayBytes() - before,
            (ownArrays ? own : 0) + (otherArrays ? otherBytes : 0))
      << choices;
  // Each twin alone on the shared arrays: the time entry points make a
  // released variant resident again, next to its resident twin.
  for (const char *variant : {"spperm:0", "spperm:1"})
    timeVariantChecked(p, variant, a, operands);
  EXPECT_LE(gpuResidentArrayBytes() - before, own + otherBytes);
  EXPECT_GE(gpuResidentArrayBytes() - before, own);
  sprt_package_release(p);
  EXPECT_EQ(gpuResidentArrayBytes(), before);
}

// The twin alone: a tuning cache that names the twin (variant 1) for every
// K makes the decisions release csr/identity (its bytes go) and the layer's
// own variant; the arrays the base shared stay while the twin holds them,
// and the base, timed again, comes back on them (no second upload).
TEST(GpuDecisionTest, ATwinAloneKeepsTheSharedArrays) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  uint64_t own = 0, otherBytes = 0;
  writeTwinPackage(dir.path("t.spp"), a, own, otherBytes);
  if (HasFatalFailure())
    return;
  const std::string cachePath = dir.path("cache.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv keepEnv("SPRT_KEEP_VARIANTS", "0");
  ScopedEnv log("SPPERM_LOG_CHOICES", "1");
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("t.spp"), p);
  const DecisionOperands operands(a);
  runDecisionLayers(p, a, operands);
  sprt_package_release(p);

  nlohmann::json root =
      nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), kDecisionBuckets);
  for (nlohmann::json &entry : root["entries"])
    if (entry["key"]["layer"] == "checked") {
      entry["choice"]["variant"] = 1;
      entry["choice"]["variant_name"] = "csr/lpt";
      entry["choice"]["library"] = "";
    }
  writeBytes(cachePath, root.dump());

  const uint64_t before = gpuResidentArrayBytes();
  p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("t.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  EXPECT_EQ(gpuResidentArrayBytes() - before, own + otherBytes);
  const DecisionCounts counted = gpuDecisionCounts();
  const std::string choices = runDecisionLayers(p, a, operands);
  EXPECT_EQ(gpuDecisionCounts().cached - counted.cached, kDecisionBuckets)
      << choices;
  size_t twins = 0;
  for (const auto &[layer, what] : decisionsIn(choices))
    if (layer.find("'checked'") != std::string::npos) {
      EXPECT_EQ(what, "variant 1") << layer;
      ++twins;
    }
  EXPECT_EQ(twins, kDecisionBuckets / 2) << choices;
  // Only the twin runs: csr/identity's arrays are gone, the shared ones
  // stay.
  EXPECT_EQ(gpuResidentArrayBytes() - before, own) << choices;
  // The base, timed, is resident again on the twin's arrays.
  timeVariantChecked(p, "spperm:0", a, operands);
  EXPECT_EQ(gpuResidentArrayBytes() - before, own);
  sprt_package_release(p);
  EXPECT_EQ(gpuResidentArrayBytes(), before);
}

#else

TEST(GpuDecisionTest, DecisionsAreSharedByEveryStream) {
  GTEST_SKIP() << "GPU support is not built";
}

#endif // SPPERM_HAVE_CUDA

} // namespace
