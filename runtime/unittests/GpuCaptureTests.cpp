//===- GpuCaptureTests.cpp - GPU calls and CUDA graph captures --*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Where there is a usable GPU (skipped, visibly, elsewhere): a package's
// calls beside CUDA graph captures in the global mode (torch.cuda.graph's
// default), and graphs that captured a call replayed after later decisions
// of the layer (docs/RuntimeABI.md, "CUDA graphs" and "Device memory").
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"
#ifdef SPPERM_HAVE_CUDA
#include "CudaBackend.h"
#endif

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::test;

namespace {

#ifdef SPPERM_HAVE_CUDA

using runtime_detail::gpuBeginGlobalCapture;
using runtime_detail::gpuDecisionCounts;
using runtime_detail::gpuEndCapture;
using runtime_detail::gpuGraphDestroy;
using runtime_detail::gpuGraphLaunch;
using runtime_detail::gpuResidentArrayBytes;

/// B of one K on the device, C's buffer, and C = A * B in float64.
struct Operand {
  int64_t k;
  std::vector<float> host;
  std::unique_ptr<DeviceArray> b, c;
  std::vector<double> want;

  Operand(const CsrMatrix &a, int64_t k, uint64_t seed)
      : k(k), host(randomDense(a.cols * k, seed)),
        b(std::make_unique<DeviceArray>(a.cols * k * 4)),
        c(std::make_unique<DeviceArray>(a.rows * k * 4)),
        want(reference(a, host, k)) {
    EXPECT_EQ(sprt_memcpy_htod(b->get(), host.data(), a.cols * k * 4), SPRT_OK);
    poison(a);
  }
  /// Fills C with NaN.
  void poison(const CsrMatrix &a) const {
    const std::vector<float> nan(static_cast<size_t>(a.rows * k), NAN);
    EXPECT_EQ(sprt_memcpy_htod(c->get(), nan.data(), a.rows * k * 4), SPRT_OK);
  }
  /// C's normwise error against the reference.
  double error(const CsrMatrix &a) const {
    std::vector<float> got(static_cast<size_t>(a.rows * k));
    EXPECT_EQ(sprt_memcpy_dtoh(got.data(), c->get(), a.rows * k * 4), SPRT_OK);
    return relativeError(got, want);
  }
};

/// Runs `work` while a stream of this process is being captured in the
/// global mode, by another thread or by this one, and returns how the
/// capture ended (what it holds, an empty graph, instantiated). `work` may
/// make no call of its own that such a capture refuses (a synchronous copy,
/// an allocation): only the package's.
sprt_status whileCapturing(bool otherThread,
                           const std::function<void()> &work) {
  void *stream = nullptr;
  EXPECT_EQ(sprt_stream_create(&stream), SPRT_OK) << sprt_last_error();
  auto endCapture = [&] {
    void *graph = nullptr;
    const sprt_status ended = gpuEndCapture(stream, &graph);
    gpuGraphDestroy(graph);
    return ended;
  };
  sprt_status ended = SPRT_OK;
  if (otherThread) {
    std::promise<sprt_status> begun;
    std::promise<void> finished;
    std::thread capturer([&] {
      const sprt_status s = gpuBeginGlobalCapture(stream);
      begun.set_value(s);
      finished.get_future().wait();
      ended = s == SPRT_OK ? endCapture() : s;
    });
    if (begun.get_future().get() == SPRT_OK)
      work();
    finished.set_value();
    capturer.join();
  } else {
    ended = gpuBeginGlobalCapture(stream);
    if (ended == SPRT_OK) {
      work();
      ended = endCapture();
    }
  }
  EXPECT_EQ(sprt_stream_destroy(stream), SPRT_OK);
  return ended;
}

/// A package of one checked layer: its own variant (csr/lpt) and the
/// alternatives csr/bsa and csr/identity, each with the test kernels for
/// every K (RuntimeTestUtil.h's testKernels).
void writeThreeVariants(const std::string &path, const CsrMatrix &a) {
  PackageLayer checked =
      makeLayer("checked", a, Strategy::Lpt, FormatKind::Csr);
  checked.kernels = testKernels();
  checked.libraryCheck = true;
  for (Strategy s : {Strategy::Bsa, Strategy::Identity}) {
    PackageLayer alternative = makeLayer("checked", a, s, FormatKind::Csr);
    alternative.kernels = testKernels();
    alternative.libraryCheck = true;
    checked.alternatives.push_back(std::move(alternative));
  }
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(path, {checked}, options));
}

// A package loaded, its first calls made (timing, then releasing the
// variants they did not choose) and released while a stream is being
// captured in the global mode, on another thread or on this one: every call
// succeeds and is right, the capture is not invalidated, and the device
// memory comes back (RuntimeABI.md, "CUDA graphs").
TEST(GpuCaptureTest, PackageCallsBesideAGlobalCapture) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  writeThreeVariants(dir.path("p.spp"), a);
  if (HasFatalFailure())
    return;
  ScopedEnv keep("SPRT_KEEP_VARIANTS", "0");
  {
    sprt_package *probe = nullptr;
    LOAD_GPU_OR_SKIP(dir.path("p.spp"), probe);
    sprt_package_release(probe);
  }
  for (bool otherThread : {true, false}) {
    SCOPED_TRACE(otherThread ? "capture on another thread"
                             : "capture on this thread");
    std::vector<std::unique_ptr<Operand>> operands;
    for (int64_t k : {1, 5, 32, 33})
      operands.push_back(std::make_unique<Operand>(a, k, 70 + k));
    const uint64_t before = gpuResidentArrayBytes();
    std::vector<sprt_status> calls;
    std::string loadError;
    const sprt_status ended = whileCapturing(otherThread, [&] {
      sprt_package *p = nullptr;
      if (sprt_package_load(dir.path("p.spp").c_str(), SPRT_DEVICE_GPU, &p) !=
          SPRT_OK) {
        loadError = sprt_last_error();
        return;
      }
      for (int round = 0; round < 2; ++round)
        for (const auto &op : operands)
          calls.push_back(
              sprt_spmm(p, 0, op->b->get(), op->k, op->c->get(), nullptr));
      sprt_package_release(p);
    });
    EXPECT_EQ(loadError, "");
    EXPECT_EQ(ended, SPRT_OK) << sprt_last_error();
    for (sprt_status s : calls)
      EXPECT_EQ(s, SPRT_OK);
    EXPECT_EQ(calls.size(), 2 * operands.size());
    for (const auto &op : operands)
      EXPECT_LE(op->error(a), 1e-5) << "K = " << op->k;
    EXPECT_EQ(gpuResidentArrayBytes(), before);
  }
}

// A graph that captured a call running the layer's own kernels in place of
// the bucket's choice (an alternative without kernels for that K) replays
// right after a later decision of the layer chose another variant: the own
// variant's arrays, which the graph reads, stay on the device
// (RuntimeABI.md, "Device memory").
TEST(GpuCaptureTest, CapturedFallbackSurvivesLaterDecisions) {
  ScratchDir dir;
  const CsrMatrix a = generateSkewed(300, 120, 2);
  // Variant 0 csr/lpt for every K; variant 1 csr/identity for K % 8 == 0
  // only; variant 2 csr/identity for every K (its arrays are variant 1's).
  PackageLayer checked =
      makeLayer("checked", a, Strategy::Lpt, FormatKind::Csr);
  checked.kernels = {testKernel("spmm_rows", "rows")};
  checked.libraryCheck = true;
  PackageLayer eights =
      makeLayer("checked", a, Strategy::Identity, FormatKind::Csr);
  eights.kernels = {testKernel("spmm_rows", "rows", 8)};
  eights.libraryCheck = true;
  PackageLayer any = eights;
  any.kernels = {testKernel("spmm_rows", "rows")};
  checked.alternatives = {eights, any};
  PackageOptions options;
  options.ptx = testPtx();
  ASSERT_TRUE(writePackage(dir.path("d.spp"), {checked}, options));
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  ScopedEnv keep("SPRT_KEEP_VARIANTS", "0");

  // The tuning cache's entries for the buckets of K = 8 and 16, then
  // edited: variant 1 for K = 5 to 8, variant 2 for K = 9 to 16.
  sprt_package *p = nullptr;
  LOAD_GPU_OR_SKIP(dir.path("d.spp"), p);
  Operand k8(a, 8, 81), k16(a, 16, 82);
  for (const Operand *op : {&k8, &k16})
    ASSERT_EQ(sprt_spmm(p, 0, op->b->get(), op->k, op->c->get(), nullptr),
              SPRT_OK)
        << sprt_last_error();
  sprt_package_release(p);
  nlohmann::json root =
      nlohmann::json::parse(readWholeFile(cachePath), nullptr, false);
  ASSERT_FALSE(root.is_discarded());
  ASSERT_EQ(root["entries"].size(), 2u);
  for (nlohmann::json &entry : root["entries"]) {
    entry["choice"]["variant"] = entry["key"]["k"] == 8 ? 1 : 2;
    entry["choice"]["library"] = "";
    entry["choice"]["variant_name"] = "csr/identity";
  }
  writeBytes(cachePath, root.dump());

  Operand k5(a, 5, 83);
  void *stream = nullptr;
  ASSERT_EQ(sprt_stream_create(&stream), SPRT_OK) << sprt_last_error();
  const uint64_t base = gpuResidentArrayBytes();
  p = nullptr;
  ASSERT_EQ(sprt_package_load(dir.path("d.spp").c_str(), SPRT_DEVICE_GPU, &p),
            SPRT_OK)
      << sprt_last_error();
  const uint64_t loaded = gpuResidentArrayBytes() - base;
  // One call on the legacy default stream, its C checked.
  auto runChecked = [&](const Operand &op) {
    SCOPED_TRACE("K = " + std::to_string(op.k));
    op.poison(a);
    ASSERT_EQ(sprt_spmm(p, 0, op.b->get(), op.k, op.c->get(), nullptr), SPRT_OK)
        << sprt_last_error();
    EXPECT_LE(op.error(a), 1e-5);
  };
  // K = 8 decides from the cache: variant 1 runs, the own variant goes.
  ASSERT_NO_FATAL_FAILURE(runChecked(k8));
  EXPECT_LT(gpuResidentArrayBytes() - base, loaded)
      << "the own variant was not released";
  // K = 5: variant 1 has no kernels for it, the own kernels run (uploaded
  // again); then the same call captured.
  ASSERT_NO_FATAL_FAILURE(runChecked(k5));
  ASSERT_EQ(gpuBeginGlobalCapture(stream), SPRT_OK) << sprt_last_error();
  const sprt_status captured =
      sprt_spmm(p, 0, k5.b->get(), 5, k5.c->get(), stream);
  const std::string captureError = sprt_last_error();
  void *graph = nullptr;
  const sprt_status ended = gpuEndCapture(stream, &graph);
  ASSERT_EQ(captured, SPRT_OK) << captureError;
  ASSERT_EQ(ended, SPRT_OK) << sprt_last_error();
  EXPECT_EQ(gpuResidentArrayBytes() - base, loaded)
      << "the own variant is not back";
  // K = 16 decides from the cache: variant 2 runs; the own variant stays,
  // as the graph reads it.
  ASSERT_NO_FATAL_FAILURE(runChecked(k16));
  EXPECT_EQ(gpuResidentArrayBytes() - base, loaded)
      << "the own variant, which a graph reads, was released";
  // Memory the released arrays would have been handed to, filled with NaN.
  const std::vector<float> nan(static_cast<size_t>(loaded) / 4, NAN);
  DeviceArray reuse(static_cast<int64_t>(nan.size()) * 4);
  ASSERT_EQ(sprt_memcpy_htod(reuse.get(), nan.data(),
                             static_cast<int64_t>(nan.size()) * 4),
            SPRT_OK);
  // The graph, replayed with a new B, twice.
  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    k5.host = randomDense(a.cols * 5, 90 + replay);
    k5.want = reference(a, k5.host, 5);
    ASSERT_EQ(sprt_memcpy_htod(k5.b->get(), k5.host.data(), a.cols * 5 * 4),
              SPRT_OK);
    k5.poison(a);
    ASSERT_EQ(gpuGraphLaunch(graph, stream), SPRT_OK) << sprt_last_error();
    ASSERT_EQ(sprt_stream_synchronize(stream), SPRT_OK) << sprt_last_error();
    EXPECT_LE(k5.error(a), 1e-5);
  }
  gpuGraphDestroy(graph);
  EXPECT_EQ(sprt_stream_destroy(stream), SPRT_OK);
  sprt_package_release(p);
  EXPECT_EQ(gpuResidentArrayBytes(), base);
}

/// Loads `path` for the GPU and makes each layer's first call at K on
/// `stream`, which decides from the tuning cache without timing (the dense
/// choice writeDenseChoice wrote).
sprt_package *loadDecidedFromCache(const std::string &path,
                                   const std::vector<Operand *> &operands,
                                   void *stream) {
  sprt_package *p = nullptr;
  EXPECT_EQ(sprt_package_load(path.c_str(), SPRT_DEVICE_GPU, &p), SPRT_OK)
      << sprt_last_error();
  if (!p)
    return nullptr;
  const runtime_detail::DecisionCounts before = gpuDecisionCounts();
  for (size_t i = 0; i < operands.size(); ++i)
    EXPECT_EQ(sprt_spmm(p, static_cast<int64_t>(i), operands[i]->b->get(),
                        operands[i]->k, operands[i]->c->get(), stream),
              SPRT_OK)
        << sprt_last_error();
  const runtime_detail::DecisionCounts after = gpuDecisionCounts();
  EXPECT_EQ(after.cached - before.cached, operands.size())
      << "the tuning cache's dense choice was not taken";
  EXPECT_EQ(after.timed - before.timed, 0u);
  EXPECT_EQ(sprt_stream_synchronize(stream), SPRT_OK);
  return p;
}

/// Captures `call` on `stream` in the global mode and returns the graph
/// (null on failure, recorded), with its memory nodes in `memoryNodes`.
void *captureGraph(void *stream, const std::function<sprt_status()> &call,
                   int64_t &memoryNodes) {
  EXPECT_EQ(gpuBeginGlobalCapture(stream), SPRT_OK) << sprt_last_error();
  const sprt_status captured = call();
  const std::string captureError = sprt_last_error();
  void *graph = nullptr;
  memoryNodes = -1;
  const sprt_status ended = gpuEndCapture(stream, &graph, &memoryNodes);
  EXPECT_EQ(captured, SPRT_OK) << captureError;
  EXPECT_EQ(ended, SPRT_OK) << sprt_last_error();
  return captured == SPRT_OK && ended == SPRT_OK ? graph : nullptr;
}

// A call of the dense choice (cublasSgemm) captured into a graph holds no
// memory nodes: its workspace is the runtime's, made outside the graph, not
// cuBLAS's default pool, which a capture allocates from inside the graph.
// The graph replays right (RuntimeABI.md, "CUDA graphs").
TEST(GpuCaptureTest, CapturedDenseCallHoldsNoMemoryNodes) {
  ScratchDir dir;
  const CsrMatrix a = generateUniform(512, 2048, 0.3, 7);
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  constexpr int64_t k = 32;
  writeDenseChoice(dir.path("d.spp"), cachePath, a, k);
  if (IsSkipped() || HasFatalFailure())
    return;
  void *stream = nullptr;
  ASSERT_EQ(sprt_stream_create(&stream), SPRT_OK) << sprt_last_error();
  Operand op(a, k, 91);
  sprt_package *p = loadDecidedFromCache(dir.path("d.spp"), {&op}, stream);
  ASSERT_NE(p, nullptr);
  EXPECT_LE(op.error(a), 1e-5);

  int64_t memoryNodes = -1;
  void *graph = captureGraph(
      stream,
      [&] { return sprt_spmm(p, 0, op.b->get(), k, op.c->get(), stream); },
      memoryNodes);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(memoryNodes, 0) << "the graph allocates";
  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    op.host = randomDense(a.cols * k, 92 + replay);
    op.want = reference(a, op.host, k);
    ASSERT_EQ(sprt_memcpy_htod(op.b->get(), op.host.data(), a.cols * k * 4),
              SPRT_OK);
    op.poison(a);
    ASSERT_EQ(gpuGraphLaunch(graph, stream), SPRT_OK) << sprt_last_error();
    ASSERT_EQ(sprt_stream_synchronize(stream), SPRT_OK) << sprt_last_error();
    EXPECT_LE(op.error(a), 1e-5);
  }
  gpuGraphDestroy(graph);
  EXPECT_EQ(sprt_stream_destroy(stream), SPRT_OK);
  sprt_package_release(p);
}

// Graphs of two dense-run layers, captured one after the other on one
// stream (as torch captures every graph on one stream), replayed at the
// same time on two streams: each call captured has a cuBLAS workspace of
// its own, so both are right every time (RuntimeABI.md, "CUDA graphs").
// The layer's shape makes cublasSgemm use its workspace (a long reduction).
TEST(GpuCaptureTest, DenseGraphsOfTwoLayersReplayAtOnce) {
  ScratchDir dir;
  const CsrMatrix a = generateUniform(128, 16384, 0.2, 8);
  const std::string cachePath = dir.path("tuning.json");
  ScopedEnv cache("SPRT_TUNING_CACHE", cachePath.c_str());
  constexpr int64_t k = 128;
  writeDenseChoice(dir.path("d.spp"), cachePath, a, k, std::nullopt, 2);
  if (IsSkipped() || HasFatalFailure())
    return;
  void *streams[3] = {};
  for (void *&s : streams)
    ASSERT_EQ(sprt_stream_create(&s), SPRT_OK) << sprt_last_error();
  Operand first(a, k, 101), second(a, k, 102);
  std::vector<Operand *> ops = {&first, &second};
  sprt_package *p = loadDecidedFromCache(dir.path("d.spp"), ops, streams[0]);
  ASSERT_NE(p, nullptr);
  void *graphs[2] = {};
  for (int64_t layer = 0; layer < 2; ++layer) {
    Operand &op = *ops[static_cast<size_t>(layer)];
    int64_t memoryNodes = -1;
    graphs[layer] = captureGraph(
        streams[0],
        [&] {
          return sprt_spmm(p, layer, op.b->get(), k, op.c->get(), streams[0]);
        },
        memoryNodes);
    ASSERT_NE(graphs[layer], nullptr);
  }
  int wrong = 0;
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    for (Operand *op : ops)
      op->poison(a);
    for (int g = 0; g < 2; ++g)
      ASSERT_EQ(gpuGraphLaunch(graphs[g], streams[1 + g]), SPRT_OK)
          << sprt_last_error();
    for (int g = 0; g < 2; ++g)
      ASSERT_EQ(sprt_stream_synchronize(streams[1 + g]), SPRT_OK);
    for (Operand *op : ops)
      wrong += op->error(a) > 1e-5;
  }
  EXPECT_EQ(wrong, 0) << "of " << 2 * kRounds << " replays";
  for (void *graph : graphs)
    gpuGraphDestroy(graph);
  for (void *s : streams)
    EXPECT_EQ(sprt_stream_destroy(s), SPRT_OK);
  sprt_package_release(p);
}

#else

TEST(GpuCaptureTest, PackageCallsBesideAGlobalCapture) {
  GTEST_SKIP() << "GPU support is not built";
}

TEST(GpuCaptureTest, CapturedFallbackSurvivesLaterDecisions) {
  GTEST_SKIP() << "GPU support is not built";
}

TEST(GpuCaptureTest, CapturedDenseCallHoldsNoMemoryNodes) {
  GTEST_SKIP() << "GPU support is not built";
}

TEST(GpuCaptureTest, DenseGraphsOfTwoLayersReplayAtOnce) {
  GTEST_SKIP() << "GPU support is not built";
}

#endif // SPPERM_HAVE_CUDA

} // namespace
