//===- CudaDecisions.cpp - Choosing what runs a layer -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The choices the GPU backend makes at the first call of a layer for a K
// bucket, whatever the stream (makeDecision): the tuning cache's entry when
// one applies (recall), else by timing the candidates on the call's own
// operands, the outcome then stored in the cache: the library's fastest
// call (choosePlan: the cuSPARSE algorithms and, where the densified matrix
// fits the budget, dense GEMM on it), the fastest of a checked layer's
// variants (decide), and whether the library beats it (checkAgainstLibrary).
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "CudaTiming.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// gpuDecisionCounts's counts.
std::atomic<uint64_t> timedDecisions{0};
std::atomic<uint64_t> cachedDecisions{0};

/// "format/strategy" of a layer's variant (the log's and the tuning
/// cache's name for it).
std::string variantName(const PackageLayer &variant) {
  return std::string(formatName(variant.matrix.kind)) + "/" +
         std::string(strategyCliName(variant.permutation.strategy));
}

} // namespace

DecisionCounts spperm::runtime_detail::gpuDecisionCounts() {
  DecisionCounts counts;
  counts.timed = timedDecisions.load();
  counts.cached = cachedDecisions.load();
  return counts;
}

sprt_status CudaBackend::makeDecision(int64_t index, const PackageLayer &layer,
                                      const LaunchChoice &choice,
                                      const void *b, int64_t k, void *c,
                                      CUstream stream,
                                      std::function<sprt_status()> &launch,
                                      Decision &out,
                                      std::unique_ptr<LibraryPlan> &plan) {
  const std::string head =
      "spperm: layer '" + layer.name + "', k = " + std::to_string(k) + ":";
  const TuningKey key = tuningKey(index, layer, choice, k);
  const TuningLayer shape = tuningLayer(layer);
  if (std::optional<TuningChoice> cached = tuning->lookup(key, shape)) {
    bool applies = false;
    SPRT_RETURN_IF_ERROR(recall(index, layer, choice, key, *cached, b, k, c,
                                stream, out, plan, applies));
    if (applies) {
      ++cachedDecisions;
      if (logChoices()) {
        const std::string runs = out.library.empty()
                                     ? "variant " + std::to_string(out.variant)
                                     : out.library;
        std::fprintf(stderr, "%s from the tuning cache: runs %s\n",
                     head.c_str(), runs.c_str());
      }
      return SPRT_OK;
    }
  }
  if (choice.cusparse) {
    std::string times;
    SPRT_RETURN_IF_ERROR(choosePlan(layers[index], b, k, c, stream, plan,
                                    logChoices() ? &times : nullptr));
    out.library = plan->variant();
    if (logChoices())
      std::fprintf(stderr, "%s%s runs %s\n", head.c_str(), times.c_str(),
                   out.library.c_str());
  } else {
    SPRT_RETURN_IF_ERROR(
        decide(index, layer, b, k, c, stream, launch, out, plan));
  }
  ++timedDecisions;
  // A choice made without the library's timing (no device memory for it)
  // holds for this process only.
  if (out.libraryUntimed)
    return SPRT_OK;
  TuningChoice stored;
  stored.variant = out.variant;
  stored.library = out.library;
  tuning->store(key, shape, stored);
  return SPRT_OK;
}

sprt_status CudaBackend::recall(int64_t index, const PackageLayer &layer,
                                const LaunchChoice &choice,
                                const TuningKey &key,
                                const TuningChoice &cached, const void *b,
                                int64_t k, void *c, CUstream stream,
                                Decision &out,
                                std::unique_ptr<LibraryPlan> &plan,
                                bool &applies) {
  applies = false;
  if (choice.cusparse && (cached.library.empty() || cached.variant != 0)) {
    tuning->reject(key, "a layer without generated kernels for k runs a "
                        "library call, not variant " +
                            std::to_string(cached.variant));
    return SPRT_OK;
  }
  const std::string savedError = sprt_last_error();
  if (cached.library.empty()) {
    // The variant must have generated kernels for this K.
    LaunchChoice variant;
    if (chooseLaunch(layer.variant(cached.variant), k, variant) != SPRT_OK ||
        variant.cusparse) {
      failWith(SPRT_OK, savedError);
      tuning->reject(key, "variant " + std::to_string(cached.variant) +
                              " has no generated kernels for k = " +
                              std::to_string(k));
      return SPRT_OK;
    }
  } else if (sprt_status s = libraryPlan(layers[index], cached.library, b, k,
                                         c, stream, plan);
             s != SPRT_OK) {
    // Not for this K, refused by cuSPARSE, or (the dense candidate) over
    // this process's budget: timed again, among what works. Running out of
    // memory is not the entry's fault: it is kept, and a checked layer is
    // timed among what fits now, as without the cache (a library layer has
    // nothing else to run).
    if (s == SPRT_ERROR_OUT_OF_MEMORY) {
      if (choice.cusparse)
        return s;
      failWith(SPRT_OK, savedError);
      return SPRT_OK;
    }
    const std::string why = sprt_last_error();
    failWith(SPRT_OK, savedError);
    tuning->reject(key, why);
    return SPRT_OK;
  }
  out.variant = cached.variant;
  out.library = cached.library;
  applies = true;
  return SPRT_OK;
}

TuningKey CudaBackend::tuningKey(int64_t index, const PackageLayer &layer,
                                 const LaunchChoice &choice, int64_t k) {
  TuningKey key = tuningBase;
  // Each shard of a sharded layer decides on its own.
  key.layer = layer.isShard() ? layer.name + "#shard" +
                                    std::to_string(layer.shard.index) + "/" +
                                    std::to_string(layer.shard.count)
                              : layer.name;
  key.variant = choice.cusparse ? "" : choice.variant;
  key.k = kBucket(layer, k);
  key.denseCandidate = tuning->enabled() && denseCandidate(layers[index]);
  return key;
}

TuningLayer CudaBackend::tuningLayer(const PackageLayer &layer) {
  TuningLayer shape;
  shape.rows = layer.matrix.rows;
  shape.cols = layer.matrix.cols;
  shape.nnz = layer.matrix.nnz;
  for (size_t v = 0; v <= layer.alternatives.size(); ++v) {
    shape.variants.push_back(variantName(layer.variant(v)));
    std::vector<std::string> &kernels = shape.inPlaceKernels.emplace_back();
    for (const KernelInfo &kernel : layer.variant(v).inPlaceB)
      kernels.push_back(kernel.name);
  }
  if (cusparseComputes(layer.operandType, layer.valueType))
    for (const Algorithm &algorithm : kAlgorithms)
      if (cusparseRoundsOnce(algorithm.variant, layer.operandType))
        shape.libraries.emplace_back(algorithm.variant);
  if (denseComputes(layer.operandType, layer.valueType))
    shape.libraries.emplace_back(denseVariantOf(layer.operandType));
  return shape;
}

bool CudaBackend::denseCandidate(const DeviceLayer &layer) const {
  return denseComputes(layer.operandType, layer.valueType) &&
         layer.rows > 0 && layer.cols > 0 && layer.hasCsr &&
         layer.cols <= denseBudgetBytes / valueTypeBytes(layer.operandType) /
                            layer.rows &&
         cublasInstance().status == SPRT_OK;
}

sprt_status CudaBackend::checkAgainstLibrary(
    const DeviceLayer &device, const void *b, int64_t k, void *c,
    CUstream stream, const std::function<sprt_status()> &generated,
    std::unique_ptr<LibraryPlan> &libraryPlan, float *generatedOut,
    float *libraryOut, std::string *libraryNameOut, bool *libraryUntimedOut) {
  // A 16-bit layer of fp32 values: cuSPARSE and the dense GEMM are
  // baselines, not candidates (cusparseComputes, denseComputes).
  if (!cusparseComputes(device.operandType, device.valueType) &&
      !denseComputes(device.operandType, device.valueType))
    return SPRT_OK;
  std::unique_ptr<LibraryPlan> candidate;
  const std::string savedError = sprt_last_error();
  if (sprt_status s = choosePlan(device, b, k, c, stream, candidate);
      s != SPRT_OK) {
    if (s == SPRT_ERROR_OUT_OF_MEMORY && libraryUntimedOut)
      *libraryUntimedOut = true;
    failWith(SPRT_OK, savedError);
    return SPRT_OK;
  }
  // Both timed alike (1 warm-up, kCheckRuns queued runs, the median),
  // the generated kernels first and last so that a clock ramp favours
  // neither; they are kept only when clearly faster: a near tie goes to
  // the library, so the package is not slower than cuSPARSE by the noise
  // of this measurement either.
  LibraryPlan *library = candidate.get();
  float generatedMs[2 * kCheckRuns], libraryMs[kCheckRuns];
  SPRT_RETURN_IF_ERROR(
      timeLaunches(d, stream, 1, kCheckRuns, generatedMs, generated));
  SPRT_RETURN_IF_ERROR(
      timeLaunches(d, stream, 1, kCheckRuns, libraryMs,
                   [library, b, c] { return library->run(b, c); }));
  SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, 0, kCheckRuns,
                                    generatedMs + kCheckRuns, generated));
  std::sort(generatedMs, generatedMs + 2 * kCheckRuns);
  std::sort(libraryMs, libraryMs + kCheckRuns);
  const float generatedMedian =
      0.5f * (generatedMs[kCheckRuns - 1] + generatedMs[kCheckRuns]);
  if (generatedOut)
    *generatedOut = generatedMedian;
  if (libraryNameOut)
    *libraryNameOut = library->variant();
  if (libraryOut)
    *libraryOut = libraryMs[kCheckRuns / 2];
  if (generatedMedian > kCheckTieRatio * libraryMs[kCheckRuns / 2])
    libraryPlan = std::move(candidate);
  return SPRT_OK;
}

sprt_status CudaBackend::decide(int64_t index, const PackageLayer &layer,
                                const void *b, int64_t k, void *c,
                                CUstream stream,
                                std::function<sprt_status()> &launch,
                                Decision &out,
                                std::unique_ptr<LibraryPlan> &plan) {
  const DeviceLayer &device = layers[index];
  const size_t count = 1 + layer.alternatives.size();
  std::vector<std::function<sprt_status()>> launches(count);
  launches[0] = launch;
  const std::string savedError = sprt_last_error();
  for (size_t v = 1; v < count; ++v) {
    LaunchChoice choice;
    // An alternative without kernels for this K is not a candidate.
    if (chooseLaunch(layer.variant(v), k, choice) != SPRT_OK ||
        choice.cusparse) {
      failWith(SPRT_OK, savedError);
      continue;
    }
    // One that cannot be uploaded again (the device is full) is not a
    // candidate either; the call goes on with the others.
    if (sprt_status s = ensureResident(index, layer, v); s != SPRT_OK) {
      if (s != SPRT_ERROR_OUT_OF_MEMORY)
        return s;
      failWith(SPRT_OK, savedError);
      continue;
    }
    SPRT_RETURN_IF_ERROR(generatedLaunch(device.variant(v), layer.variant(v),
                                         choice, b, k, c, stream, launches[v]));
  }
  std::vector<float> medians(count, -1.0f);
  if (count > 1) {
    // The variants' launches are bound to the call's stream already.
    std::vector<StreamLaunch> timed(count);
    for (size_t v = 0; v < count; ++v)
      if (launches[v])
        timed[v] = [&launch = launches[v]](CUstream) { return launch(); };
    SPRT_RETURN_IF_ERROR(medianTimes(d, stream, TimingMode::Queued,
                                     kCheckRuns, timed, medians));
  }
  for (size_t v = 0; v < count; ++v)
    if (medians[v] >= 0 && medians[v] < medians[out.variant])
      out.variant = v;
  launch = launches[out.variant];
  float generatedMs = 0.0f, libraryMs = 0.0f;
  std::string libraryName = "the library";
  SPRT_RETURN_IF_ERROR(checkAgainstLibrary(device, b, k, c, stream, launch,
                                           plan, &generatedMs, &libraryMs,
                                           &libraryName, &out.libraryUntimed));
  if (plan)
    out.library = plan->variant();
  if (logChoices()) {
    std::string line =
        "spperm: layer '" + layer.name + "', k = " + std::to_string(k) + ":";
    for (size_t v = 0; v < count; ++v) {
      line += " " + variantName(layer.variant(v)) + " " +
              (medians[v] >= 0 ? std::to_string(medians[v]) + " ms"
               : count > 1     ? std::string("(no kernels for this k)")
                               : std::string("")) +
              ";";
    }
    line += " checked " + std::to_string(generatedMs) + " ms against " +
            libraryName + " " + std::to_string(libraryMs) + " ms: runs " +
            (plan ? libraryName : "variant " + std::to_string(out.variant));
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return SPRT_OK;
}

sprt_status CudaBackend::denseBudget(int64_t &bytes) {
  bytes = kDefaultDenseBudgetMb << 20;
  const char *env = std::getenv("SPPERM_DENSE_BUDGET_MB");
  if (!env || !*env)
    return SPRT_OK;
  char *end = nullptr;
  long long mb = std::strtoll(env, &end, 10);
  if (*end || mb < 0 || mb > (int64_t{1} << 30))
    return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                    "SPPERM_DENSE_BUDGET_MB must be a number of MiB (0 "
                    "turns the dense candidate off), got '" +
                        std::string(env) + "'");
  bytes = static_cast<int64_t>(mb) << 20;
  return SPRT_OK;
}

sprt_status CudaBackend::blasWorkspaceFor(uint64_t key, size_t bytes,
                                          std::shared_ptr<DeviceBuffer> &out) {
  // A plan for a stream being captured: its own, which only its graph
  // uses, so that graphs of different layers may replay at once.
  if (key & kCapturedStreamKey) {
    out = std::make_shared<DeviceBuffer>();
    return out->allocate(d, bytes);
  }
  std::weak_ptr<DeviceBuffer> &slot = blasWorkspaces[key];
  out = slot.lock();
  if (out)
    return SPRT_OK;
  auto buffer = std::make_shared<DeviceBuffer>();
  if (sprt_status s = buffer->allocate(d, kDenseWorkspaceBytes); s != SPRT_OK) {
    blasWorkspaces.erase(key);
    return s;
  }
  slot = buffer;
  out = std::move(buffer);
  // The entries of streams whose plans are gone.
  for (auto it = blasWorkspaces.begin(); it != blasWorkspaces.end();)
    it = it->second.expired() ? blasWorkspaces.erase(it) : std::next(it);
  return SPRT_OK;
}

sprt_status CudaBackend::densePlan(const DeviceLayer &layer, int64_t k,
                                   CUstream stream, CUstream owner,
                                   std::unique_ptr<DensePlan> &out) {
  out.reset();
  if (layer.rows <= 0 || layer.cols <= 0 || !layer.hasCsr ||
      layer.cols > denseBudgetBytes / valueTypeBytes(layer.operandType) /
                       layer.rows)
    return SPRT_OK;
  const bool narrow = layer.operandType != ValueType::F32;
  if (!blasHandle || (narrow && !ltHandle)) {
    const Cublas &library = cublasInstance();
    if (library.status != SPRT_OK)
      return SPRT_OK;
    // A 16-bit layer's dense GEMM is cuBLASLt's; a cuBLAS without it
    // leaves such layers without a dense candidate, not the fp32 ones.
    if (narrow && !library.hasLt())
      return SPRT_OK;
    blas = &library;
    SPRT_RETURN_IF_ERROR(
        sharedCublasHandles(library, narrow, blasHandle, ltHandle));
  }
  auto [it, first] = denseMatrices.try_emplace(&layer);
  if (first) {
    if (sprt_status s = densify(d, sp, handle, layer, stream, it->second);
        s != SPRT_OK) {
      denseMatrices.erase(it);
      return s;
    }
  }
  auto plan = std::make_unique<DensePlan>(*blas, blasHandle, ltHandle);
  SPRT_RETURN_IF_ERROR(plan->prepare(it->second.get(), layer.rows, layer.cols,
                                     k, stream, layer.operandType));
  if (plan->workspaceBytes() > 0) {
    std::shared_ptr<DeviceBuffer> workspace;
    SPRT_RETURN_IF_ERROR(
        blasWorkspaceFor(streamKey(owner), plan->workspaceBytes(), workspace));
    plan->setWorkspace(std::move(workspace));
  }
  out = std::move(plan);
  return SPRT_OK;
}

sprt_status CudaBackend::libraryPlan(const DeviceLayer &layer,
                                     const std::string &name, const void *b,
                                     int64_t k, void *c, CUstream stream,
                                     std::unique_ptr<LibraryPlan> &out,
                                     CUstream owner) {
  if (name == denseVariantOf(layer.operandType)) {
    std::unique_ptr<DensePlan> dense;
    SPRT_RETURN_IF_ERROR(
        densePlan(layer, k, stream, owner ? owner : stream, dense));
    if (!dense)
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      name + ": the layer's " +
                          std::to_string(layer.rows) + " x " +
                          std::to_string(layer.cols) +
                          " elements exceed SPPERM_DENSE_BUDGET_MB, or "
                          "cuBLAS (cuBLASLt for a 16-bit layer) is not "
                          "there");
    out = std::move(dense);
    return SPRT_OK;
  }
  const Algorithm *algorithm = findAlgorithm(name);
  if (!algorithm || (algorithm->spmv && k != 1))
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    name + " does not apply to k = " + std::to_string(k));
  auto plan = std::make_unique<Plan>(sp, handle, *algorithm);
  SPRT_RETURN_IF_ERROR(plan->prepare(d, layer, k, b, c, stream));
  out = std::move(plan);
  return SPRT_OK;
}

bool CudaBackend::logChoices() {
  const char *env = std::getenv("SPPERM_LOG_CHOICES");
  return env && std::string_view(env) == "1";
}

sprt_status CudaBackend::choosePlan(const DeviceLayer &layer, const void *b,
                                    int64_t k, void *c, CUstream stream,
                                    std::unique_ptr<LibraryPlan> &out,
                                    std::string *timesOut) {
  const std::string savedError = sprt_last_error();
  std::string refusals;
  float bestMs = 0.0f;
  // The cuSPARSE algorithms that apply to K, then the dense candidate;
  // each only where it computes the layer.
  const size_t candidates = std::size(kAlgorithms) + 1;
  for (size_t i = 0; i < candidates; ++i) {
    std::unique_ptr<LibraryPlan> plan;
    std::string name;
    sprt_status s = SPRT_OK;
    if (i < std::size(kAlgorithms)) {
      const Algorithm &algorithm = kAlgorithms[i];
      if ((algorithm.spmv && k != 1) ||
          !cusparseComputes(layer.operandType, layer.valueType) ||
          !cusparseRoundsOnce(algorithm.variant, layer.operandType))
        continue;
      auto sparse = std::make_unique<Plan>(sp, handle, algorithm);
      s = sparse->prepare(d, layer, k, b, c, stream);
      plan = std::move(sparse);
      name = algorithm.variant;
    } else {
      if (!denseComputes(layer.operandType, layer.valueType))
        continue;
      std::unique_ptr<DensePlan> dense;
      s = densePlan(layer, k, stream, stream, dense);
      if (s == SPRT_OK && !dense)
        continue;
      plan = std::move(dense);
      name = denseVariantOf(layer.operandType);
    }
    if (s == SPRT_OK) {
      LibraryPlan *p = plan.get();
      // As many runs as the library check takes: the algorithms of a
      // small layer are often within a few percent of each other.
      float times[kCheckRuns];
      s = timeLaunches(d, stream, 1, kCheckRuns, times,
                       [p, b, c] { return p->run(b, c); });
      if (s == SPRT_OK) {
        std::sort(times, times + kCheckRuns);
        if (timesOut)
          *timesOut += " " + name + " " +
                       std::to_string(times[kCheckRuns / 2]) + " ms;";
        if (!out || times[kCheckRuns / 2] < bestMs) {
          bestMs = times[kCheckRuns / 2];
          out = std::move(plan);
        }
      }
    }
    if (s == SPRT_ERROR_OUT_OF_MEMORY)
      return s;
    if (s != SPRT_OK)
      refusals += std::string(refusals.empty() ? "" : "; ") + name + ": " +
                  sprt_last_error();
  }
  if (!out)
    return failWith(SPRT_ERROR_DEVICE,
                    "no library call ran for this layer and k = " +
                        std::to_string(k) + ": " + refusals);
  failWith(SPRT_OK, savedError);
  return SPRT_OK;
}
