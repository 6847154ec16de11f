//===- CudaLaunch.cpp - Launching a layer on the GPU ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What a call of the GPU backend enqueues for a layer: the generated kernels
// of the variant chosen for K (C cleared first when the variant asks for it,
// then each kernel in manifest order, launched as the programmatic dependent
// of the one before where marked), the cached cuSPARSE plan, or only C's
// clearing for an empty matrix; and the per-stream state the launches keep
// (the stream's key, the ticket counters).
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// gpuScratchAllocations's count.
std::atomic<uint64_t> scratchAllocations{0};

/// Enqueues C = 0 for `count` elements of `type` at `c`.
sprt_status clearOutput(const Driver &d, void *c, size_t count,
                        ValueType type, CUstream stream) {
  if (count == 0)
    return SPRT_OK;
  auto at = reinterpret_cast<CUdeviceptr>(c);
  if (type == ValueType::F32)
    SPRT_CU_RETURN_IF_ERROR(d.api,
                            d.api.cuMemsetD32Async(at, 0, count, stream));
  else
    SPRT_CU_RETURN_IF_ERROR(d.api,
                            d.api.cuMemsetD16Async(at, 0, count, stream));
  return SPRT_OK;
}

} // namespace

uint64_t spperm::runtime_detail::gpuScratchAllocations() {
  return scratchAllocations.load();
}

uint64_t CudaBackend::streamKey(CUstream stream) const {
  // The stream's id (a handle can be reused by a later stream), except
  // while the stream is being captured into a CUDA graph: cuStreamGetId
  // invalidates the capture, so a capturing stream is keyed by its handle,
  // tagged so that it cannot collide with an id (docs/RuntimeABI.md,
  // "CUDA graphs").
  const auto handle = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream));
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d.api.cuStreamIsCapturing &&
      d.api.cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS &&
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return handle | kCapturedStreamKey;
  unsigned long long id = 0;
  if (d.api.cuStreamGetId && d.api.cuStreamGetId(stream, &id) == CUDA_SUCCESS)
    return static_cast<uint64_t>(id);
  return handle;
}

sprt_status CudaBackend::streamLibraryPlan(const DeviceLayer &device,
                                           const std::string &name,
                                           const void *b, int64_t k, void *c,
                                           CUstream stream,
                                           std::unique_ptr<LibraryPlan> &out) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!d.api.cuStreamIsCapturing ||
      d.api.cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture == CU_STREAM_CAPTURE_STATUS_NONE)
    return libraryPlan(device, name, b, k, c, stream, out);
  // During a capture: prepared (descriptors, workspace, preprocessing) on a
  // stream of the backend's, outside the graph, with this thread's capture
  // mode relaxed so that its allocations do not invalidate a global-mode
  // capture; then bound to the capturing stream, where only its calls are
  // captured.
  RelaxedCaptureMode relaxed(d.api);
  CUstream side = nullptr;
  SPRT_CU_RETURN_IF_ERROR(d.api,
                          d.api.cuStreamCreate(&side, CU_STREAM_NON_BLOCKING));
  sprt_status status = libraryPlan(device, name, b, k, c, side, out, stream);
  if (status == SPRT_OK)
    if (CUresult r = d.api.cuStreamSynchronize(side); r != CUDA_SUCCESS)
      status = cuFailure(d.api, r, "cuStreamSynchronize of a library plan",
                         __FILE__, __LINE__);
  d.api.cuStreamDestroy(side);
  if (status != SPRT_OK) {
    out.reset();
    return status;
  }
  out->bindStream(stream);
  return SPRT_OK;
}

sprt_status CudaBackend::ticketsFor(CUstream stream, uint64_t key,
                                    DeviceSpan &out) {
  auto [it, fresh] = tickets.try_emplace(key);
  if (fresh) {
    sprt_status s = it->second.allocate(d, 2 * sizeof(int32_t));
    // Zeroed on the stream; while it is being captured, on a stream of the
    // backend's and waited for (outside the graph, the thread's capture
    // mode relaxed), so that they are zero whether or not the capture
    // completes.
    const bool captured = (key & kCapturedStreamKey) != 0;
    std::optional<RelaxedCaptureMode> relaxed;
    CUstream on = stream, side = nullptr;
    if (s == SPRT_OK && captured) {
      relaxed.emplace(d.api);
      if (CUresult r = d.api.cuStreamCreate(&side, CU_STREAM_NON_BLOCKING);
          r != CUDA_SUCCESS)
        s = cuFailure(d.api, r, "cuStreamCreate", __FILE__, __LINE__);
      on = side;
    }
    if (s == SPRT_OK)
      if (CUresult r = d.api.cuMemsetD32Async(
              reinterpret_cast<CUdeviceptr>(it->second.get()), 0, 2, on);
          r != CUDA_SUCCESS)
        s = cuFailure(d.api, r, "cuMemsetD32Async of the ticket counters",
                      __FILE__, __LINE__);
    if (side) {
      if (CUresult r = d.api.cuStreamSynchronize(side);
          r != CUDA_SUCCESS && s == SPRT_OK)
        s = cuFailure(d.api, r, "cuStreamSynchronize", __FILE__, __LINE__);
      d.api.cuStreamDestroy(side);
    }
    if (s != SPRT_OK) {
      tickets.erase(it);
      return s;
    }
  }
  out = {it->second.get(), 2};
  return SPRT_OK;
}

sprt_status CudaBackend::growScratch(const Driver &d, Accumulator &scratch,
                                     size_t bytes, void *&out) {
  const size_t words = (bytes + 3) / 4;
  if (scratch.floats < words) {
    const size_t grown = std::max(words, 2 * scratch.floats);
    DeviceBuffer fresh;
    SPRT_RETURN_IF_ERROR(fresh.allocate(d, grown * 4));
    ++scratchAllocations;
    if (scratch.buffer.get())
      scratch.outgrown.push_back(std::move(scratch.buffer));
    scratch.buffer = std::move(fresh);
    scratch.floats = grown;
  }
  out = scratch.buffer.get();
  return SPRT_OK;
}

sprt_status CudaBackend::accumulatorFor(uint64_t key, size_t floats,
                                        DeviceSpan &out) {
  void *buffer = nullptr;
  SPRT_RETURN_IF_ERROR(
      growScratch(d, accumulators[key], floats * sizeof(float), buffer));
  out = {buffer, static_cast<int64_t>(floats)};
  return SPRT_OK;
}

sprt_status CudaBackend::rowMajorBFor(uint64_t key, size_t bytes,
                                      DeviceSpan &out) {
  void *buffer = nullptr;
  SPRT_RETURN_IF_ERROR(growScratch(d, rowMajorBs[key], bytes, buffer));
  out.data = buffer;
  return SPRT_OK;
}

sprt_status CudaBackend::launchTranspose(const DeviceLayer &device,
                                         const PackageLayer &layer,
                                         const void *b, int64_t k,
                                         DeviceSpan out, CUstream stream) {
  const KernelInfo &kernel = *layer.transposeB;
  const int64_t count = device.cols * k;
  KernelParams params;
  for (const std::string &arg : kernel.args) {
    if (arg == call_arg::kBColumnMajor)
      params.addMemref({b, count});
    else if (arg == call_arg::kB)
      params.addMemref({out.data, count});
    else
      params.addInt64(k);
  }
  // One CTA per tile, up to the manifest's grid (docs/Kernels.md,
  // "Column-major B").
  const int64_t tiles = ((device.cols + kTransposeTile - 1) / kTransposeTile) *
                        ((k + kTransposeTile - 1) / kTransposeTile);
  return launchKernel(device.transposeB, kernel,
                      {std::max<int64_t>(1, std::min(tiles, kernel.gridX)), 1,
                       1},
                      params, layer, stream);
}

sprt_status CudaBackend::launchKernel(CUfunction function,
                                      const KernelInfo &kernel,
                                      std::array<int64_t, 3> grid,
                                      KernelParams &params,
                                      const PackageLayer &layer,
                                      CUstream stream) {
  if (CUresult r = d.api.cuLaunchKernel(
          function, static_cast<unsigned>(grid[0]),
          static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
          static_cast<unsigned>(kernel.blockX),
          static_cast<unsigned>(kernel.blockY),
          static_cast<unsigned>(kernel.blockZ),
          static_cast<unsigned>(kernel.sharedBytes), stream, params.pointers(),
          nullptr);
      r != CUDA_SUCCESS)
    return cuFailureIn(d.api, r,
                       "cuLaunchKernel of kernel '" + kernel.name +
                           "' of layer '" + layer.name + "'",
                       __FILE__, __LINE__);
  return SPRT_OK;
}

bool CudaBackend::acceptsColumnMajor(int64_t index,
                                     const PackageLayer & /*layer*/) {
  return layers[index].transposeB != nullptr;
}

sprt_status CudaBackend::spmmColumnMajor(int64_t index,
                                         const PackageLayer &layer,
                                         const void *b, int64_t k, void *c,
                                         void *workspace, void *streamArg) {
  std::lock_guard<std::mutex> lock(mutex);
  SPRT_SCOPED_CONTEXT(d);
  RelaxedCaptureMode relaxed(d.api);
  auto stream = static_cast<CUstream>(streamArg);
  const DeviceLayer &device = layers[index];
  assert(device.transposeB && "the C API checked acceptsColumnMajor");
  // A K no variant takes fails before anything is enqueued.
  SPRT_RETURN_IF_ERROR(accepts(index, layer, k));
  std::function<sprt_status()> launch;
  // One column is the same in either order (and K = 1 reads single
  // elements: B needs no more alignment than a column-major B has).
  if (k == 1) {
    SPRT_RETURN_IF_ERROR(packageLaunch(index, layer, b, k, c, stream, launch));
    return launch();
  }
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  const bool captured =
      d.api.cuStreamIsCapturing &&
      d.api.cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS &&
      capture != CU_STREAM_CAPTURE_STATUS_NONE;
  // An in-place kernel chosen for K runs alone: it needs no row-major
  // decision (one taken from the tuning cache is made without it).
  const bool inPlaceOn = device.nnz > 0 && inPlaceMode != InPlaceMode::Never;
  if (inPlaceOn)
    if (auto found = inPlaceDecisions.find({index, k});
        found != inPlaceDecisions.end() && found->second.kernel >= 0)
      return launchInPlace(index, layer, found->second, b, k, c, stream);
  const KnownLaunch known = knownLaunch(index, layer, k);
  // A first call during a capture is refused before it touches the stream
  // (RuntimeABI.md, "CUDA graphs").
  if (captured && !known.decided) {
    const sprt_status refused =
        packageLaunch(index, layer, b, k, c, stream, launch);
    assert(refused != SPRT_OK && "a capture cannot decide");
    return refused;
  }
  // The layer's in-place kernels for K, where it has some: what the first
  // column-major call for K chose (CudaInPlace.cpp). An empty matrix's C
  // is zero whatever B is: the transposing path clears it.
  if (inPlaceOn && !inPlaceDecisions.count({index, k})) {
    if (const std::vector<InPlaceChoice> candidates =
            inPlaceCandidates(index, layer, k);
        !candidates.empty()) {
      if (captured)
        return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                        "layer '" + layer.name +
                            "': the first column-major call for K = " +
                            std::to_string(k) +
                            " is being captured into a CUDA graph; make it "
                            "before the capture, which it must time");
      return decideInPlace(index, layer, candidates, b, k, c, workspace,
                           stream);
    }
  }
  return transposingLaunch(index, layer, b, k, c, workspace, stream, captured,
                           known);
}

sprt_status CudaBackend::transposingLaunch(int64_t index,
                                           const PackageLayer &layer,
                                           const void *b, int64_t k, void *c,
                                           void *workspace, CUstream stream,
                                           bool captured,
                                           const KnownLaunch &known) {
  const DeviceLayer &device = layers[index];
  const size_t bytes = static_cast<size_t>(device.cols * k) *
                       static_cast<size_t>(valueTypeBytes(device.operandType));
  const bool transpose = bytes > 0 && device.rows > 0 && device.nnz > 0;
  std::function<sprt_status()> launch;
  // A decided library call that reads B column-major needs neither the
  // transposing kernel nor a row-major B.
  if (known.readsColumnMajor) {
    LibraryPlan *library = nullptr;
    SPRT_RETURN_IF_ERROR(
        packageLaunch(index, layer, b, k, c, stream, launch, &library));
    // No library when the call fell back to the layer's own kernels
    // (packageLaunch): they read B row-major, as below.
    assert((!library || library->readsColumnMajor()) &&
           "knownLaunch and the plan agree");
    if (library && library->readsColumnMajor())
      return library->runColumnMajor(b, c);
  }
  // Where B goes row-major: the caller's workspace; during a capture a
  // stream-ordered allocation, freed after the call, which the graph
  // holds as its own nodes (no allocation outside the graph, in any
  // capture mode); else the stream's own buffer.
  DeviceSpan rowMajor{workspace, device.cols * k};
  CUdeviceptr graphOwned = 0;
  if (!workspace && transpose) {
    if (captured && d.api.cuMemAllocAsync && d.api.cuMemFreeAsync) {
      SPRT_CU_RETURN_IF_ERROR(
          d.api, d.api.cuMemAllocAsync(&graphOwned, bytes, stream));
      rowMajor.data = reinterpret_cast<const void *>(graphOwned);
    } else {
      SPRT_RETURN_IF_ERROR(rowMajorBFor(streamKey(stream), bytes, rowMajor));
    }
  }
  auto run = [&]() -> sprt_status {
    if (known.decided) {
      // The variant's first kernel follows the transposing kernel as its
      // programmatic dependent where the manifest allows it.
      SPRT_RETURN_IF_ERROR(packageLaunch(
          index, layer, rowMajor.data, k, c, stream, launch,
          /*library=*/nullptr,
          /*afterTranspose=*/transpose && layer.transposeB->dependentLaunch));
      if (transpose)
        SPRT_RETURN_IF_ERROR(
            launchTranspose(device, layer, b, k, rowMajor, stream));
      return launch();
    }
    // A first call times the candidates on B as they will read it.
    if (transpose)
      SPRT_RETURN_IF_ERROR(
          launchTranspose(device, layer, b, k, rowMajor, stream));
    SPRT_RETURN_IF_ERROR(
        packageLaunch(index, layer, rowMajor.data, k, c, stream, launch));
    return launch();
  };
  sprt_status status = run();
  if (graphOwned)
    if (CUresult r = d.api.cuMemFreeAsync(graphOwned, stream);
        r != CUDA_SUCCESS && status == SPRT_OK)
      status = cuFailure(d.api, r, "cuMemFreeAsync of the row-major B",
                         __FILE__, __LINE__);
  return status;
}

CudaBackend::KnownLaunch CudaBackend::knownLaunch(int64_t index,
                                                  const PackageLayer &layer,
                                                  int64_t k) {
  LaunchChoice choice;
  if (chooseLaunch(layer, k, choice) != SPRT_OK)
    return {}; // packageLaunch fails the same way, deciding nothing
  const DeviceLayer &device = layers[index];
  if (device.rows == 0 || device.nnz == 0 ||
      (!choice.cusparse && !layer.libraryCheck))
    return {};
  auto found = decisions.find(DecisionKey(
      index, choice.cusparse ? "" : choice.variant, kBucket(layer, k)));
  if (found == decisions.end())
    return {/*decided=*/false};
  return {/*decided=*/true,
          /*readsColumnMajor=*/libraryReadsColumnMajor(found->second.library,
                                                      device.operandType),
          /*library=*/!found->second.library.empty()};
}

std::function<sprt_status()>
CudaBackend::trivialLaunch(const DeviceLayer &layer, int64_t k, void *c,
                           CUstream stream) {
  const Driver *driver = &d;
  const size_t count = static_cast<size_t>(layer.rows * k);
  const ValueType type = layer.operandType;
  return [driver, c, count, type, stream]() -> sprt_status {
    return clearOutput(*driver, c, count, type, stream);
  };
}

sprt_status CudaBackend::packageLaunch(int64_t index, const PackageLayer &layer,
                                       const void *b, int64_t k, void *c,
                                       CUstream stream,
                                       std::function<sprt_status()> &launch,
                                       LibraryPlan **library,
                                       bool afterTranspose) {
  // Chosen first, so that a K no kernel accepts fails for empty layers
  // too.
  LaunchChoice choice;
  SPRT_RETURN_IF_ERROR(chooseLaunch(layer, k, choice));
  const DeviceLayer &device = layers[index];
  if (device.rows == 0 || device.nnz == 0) {
    launch = trivialLaunch(device, k, c, stream);
    return SPRT_OK;
  }
  const DecisionKey bucket(index, choice.cusparse ? "" : choice.variant,
                           kBucket(layer, k));
  if (!choice.cusparse && !layer.libraryCheck)
    return generatedLaunch(device, layer, choice, b, k, c, stream, launch,
                           afterTranspose);
  // A library layer, or a checked one: decided at the first call for
  // (layer, K bucket), on whichever stream that is.
  // The stream's key only where a library call is kept for it (a driver
  // call each: not on the path of a generated variant).
  auto planKey = [&] { return std::make_tuple(index, k, streamKey(stream)); };
  auto [decision, first] = decisions.try_emplace(bucket);
  if (first) {
    // A decision times, allocates and synchronizes: not while the stream is
    // captured into a CUDA graph (RuntimeABI.md, "CUDA graphs").
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (d.api.cuStreamIsCapturing &&
        d.api.cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS &&
        capture != CU_STREAM_CAPTURE_STATUS_NONE) {
      decisions.erase(decision);
      return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                      "layer '" + layer.name + "': the first call for K = " +
                          std::to_string(k) +
                          " (K bucket " + std::to_string(kBucket(layer, k)) +
                          ") is being captured into a CUDA graph; make it "
                          "before the capture, which it must time");
    }
    // The layer's own variant is a candidate (the others are made resident
    // where they are timed).
    if (!choice.cusparse) {
      sprt_status s = ensureResident(index, layer, 0);
      if (s == SPRT_OK)
        s = generatedLaunch(device, layer, choice, b, k, c, stream, launch);
      if (s != SPRT_OK) {
        decisions.erase(decision);
        return s;
      }
    }
    std::unique_ptr<LibraryPlan> plan;
    if (sprt_status s = makeDecision(index, layer, choice, b, k, c, stream,
                                     launch, decision->second, plan);
        s != SPRT_OK) {
      decisions.erase(decision);
      return s;
    }
    if (plan)
      libraryPlans[planKey()] = std::move(plan);
    releaseUnchosen(index, layer);
  }
  const Decision &chosen = decision->second;
  // The bucket's choice was made at one K (or recalled from the tuning
  // cache). At another K of the bucket it may not run — an alternative's
  // kernels can cover fewer K than the layer's own, a library call can
  // refuse a K — or it may not fit on the device now: the layer's own
  // kernels, which accept this K, run instead (RuntimeABI.md, "Functions"),
  // with the caller's last error as it was (`savedError`).
  auto ownKernels = [&](const std::string *savedError) -> sprt_status {
    if (savedError)
      failWith(SPRT_OK, *savedError);
    // In place of the choice: kept from now on, as a graph may capture
    // this call (releaseUnchosen).
    if (chosen.variant != 0 || !chosen.library.empty())
      layers[index].fallenBackTo = true;
    SPRT_RETURN_IF_ERROR(ensureResident(index, layer, 0));
    return generatedLaunch(device, layer, choice, b, k, c, stream, launch,
                           afterTranspose);
  };
  if (chosen.library.empty()) {
    if (chosen.variant == 0)
      return ownKernels(nullptr);
    const std::string savedError = sprt_last_error();
    sprt_status s = ensureResident(index, layer, chosen.variant);
    if (s == SPRT_OK)
      s = variantLaunch(index, layer, chosen.variant, b, k, c, stream, launch,
                        afterTranspose);
    // Without kernels for this K (chooseLaunch's UNSUPPORTED), or not
    // uploaded for want of memory.
    if (s != SPRT_ERROR_UNSUPPORTED && s != SPRT_ERROR_OUT_OF_MEMORY)
      return s;
    return ownKernels(&savedError);
  }
  // The bucket's library call, prepared for this K and stream at their
  // first call (without timing).
  const auto key = planKey();
  // A checked layer's library call refused for this K and stream: its own
  // kernels run, without asking the library again at every call.
  if (!choice.cusparse && refusedPlans.count(key))
    return ownKernels(nullptr);
  std::unique_ptr<LibraryPlan> &plan = libraryPlans[key];
  if (!plan) {
    const std::string savedError = sprt_last_error();
    if (sprt_status s =
            streamLibraryPlan(device, chosen.library, b, k, c, stream, plan);
        s != SPRT_OK) {
      libraryPlans.erase(key);
      // A library layer has no kernels of its own to fall back on.
      if (choice.cusparse)
        return s;
      // Out of memory may pass: asked again at the next call.
      if (s != SPRT_ERROR_OUT_OF_MEMORY)
        refusedPlans.insert(key);
      return ownKernels(&savedError);
    }
  }
  LibraryPlan *p = plan.get();
  launch = [p, b, c] { return p->run(b, c); };
  if (library)
    *library = p;
  return SPRT_OK;
}

int64_t CudaBackend::kBucket(const PackageLayer &layer, int64_t k) {
  if (layer.k != 0)
    return k;
  int64_t bucket = 1;
  while (bucket < k)
    bucket *= 2;
  return bucket;
}

sprt_status CudaBackend::variantLaunch(int64_t index, const PackageLayer &layer,
                                       size_t which, const void *b, int64_t k,
                                       void *c, CUstream stream,
                                       std::function<sprt_status()> &launch,
                                       bool afterTranspose) {
  const PackageLayer &variant = layer.variant(which);
  const DeviceLayer &device = layers[index].variant(which);
  LaunchChoice choice;
  SPRT_RETURN_IF_ERROR(chooseLaunch(variant, k, choice));
  if (choice.cusparse)
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "layer '" + layer.name + "': variant " +
                        std::to_string(which) + " runs no generated kernels");
  if (device.rows == 0 || device.nnz == 0) {
    launch = trivialLaunch(device, k, c, stream);
    return SPRT_OK;
  }
  return generatedLaunch(device, variant, choice, b, k, c, stream, launch,
                         afterTranspose);
}

sprt_status CudaBackend::generatedLaunch(const DeviceLayer &device,
                                         const PackageLayer &layer,
                                         const LaunchChoice &choice,
                                         const void *b, int64_t k, void *c,
                                         CUstream stream,
                                         std::function<sprt_status()> &launch,
                                         bool afterTranspose) {
  // The stream's id, only where per-stream state is needed: its ticket
  // counters, or the order of module-level ones across streams.
  CrossStreamOrder *order = device.crossStreamOrder.get();
  auto anyKernel = [&](auto predicate) {
    return std::any_of(choice.kernels.begin(), choice.kernels.end(),
                       [&](size_t i) { return predicate(layer.kernels[i]); });
  };
  const bool needsTickets = anyKernel(takesTickets);
  const bool needsAccumulator = anyKernel(takesAccumulator);
  const uint64_t key =
      needsTickets || needsAccumulator || order ? streamKey(stream) : 0;
  LaunchOperands operands{{b, device.cols * k}, {c, device.rows * k}, k, {}};
  if (needsTickets)
    SPRT_RETURN_IF_ERROR(ticketsFor(stream, key, operands.tickets));
  if (needsAccumulator)
    SPRT_RETURN_IF_ERROR(accumulatorFor(
        key, static_cast<size_t>(device.rows * k), operands.accumulator));
  const bool zero = choice.zeroOutput;
  const bool zeroAccumulator = choice.zeroAccumulator;
  void *accumulator = const_cast<void *>(operands.accumulator.data);
  // The first kernel follows the transposing kernel as its programmatic
  // dependent only where nothing is enqueued between them (no clear, no
  // wait for another stream).
  const bool firstDependent = afterTranspose && d.dependentLaunch && !zero &&
                              !zeroAccumulator && !order;
  auto steps = std::make_shared<std::vector<Step>>();
  for (size_t i : choice.kernels) {
    Step step{device.functions[i], &layer.kernels[i], KernelParams(),
              steps->empty() ? firstDependent
                             : layer.kernels[i].dependentLaunch &&
                                   d.dependentLaunch,
              layer.kernels[i].gridXFor(k)};
    assert(step.function && "a generated kernel was not looked up");
    SPRT_RETURN_IF_ERROR(bindKernelParams(layer.name, layer.kernels[i],
                                          device.spans, operands, step.params));
    steps->push_back(std::move(step));
  }
  const Driver *driver = &d;
  const std::string *layerName = &layer.name;
  const size_t cCount = static_cast<size_t>(device.rows * k);
  const ValueType type = device.operandType;
  launch = [driver, steps, layerName, c, cCount, zero, zeroAccumulator,
            accumulator, type, stream, key, order]() -> sprt_status {
    const DriverApi &api = driver->api;
    // Module-level counters: wait for the variant's last launch when it
    // was on another stream (the calls are enqueued under the backend's
    // lock, so the order is total).
    if (order && order->lastStream && *order->lastStream != key)
      SPRT_CU_RETURN_IF_ERROR(api,
                              api.cuStreamWaitEvent(stream, order->event, 0));
    if (zero)
      SPRT_RETURN_IF_ERROR(clearOutput(*driver, c, cCount, type, stream));
    if (zeroAccumulator)
      SPRT_RETURN_IF_ERROR(clearOutput(*driver, accumulator, cCount,
                                       ValueType::F32, stream));
    for (Step &step : *steps) {
      const KernelInfo &kernel = *step.kernel;
      // A dependent step starts (and reads A and B) while the one before
      // finishes; the variant's first kernel follows whatever came before
      // in the stream, in plain stream order.
      CUlaunchConfig config = {};
      config.gridDimX = static_cast<unsigned>(step.gridX);
      config.gridDimY = static_cast<unsigned>(kernel.gridY);
      config.gridDimZ = static_cast<unsigned>(kernel.gridZ);
      config.blockDimX = static_cast<unsigned>(kernel.blockX);
      config.blockDimY = static_cast<unsigned>(kernel.blockY);
      config.blockDimZ = static_cast<unsigned>(kernel.blockZ);
      config.sharedMemBytes = static_cast<unsigned>(kernel.sharedBytes);
      config.hStream = stream;
      CUlaunchAttribute dependent = {};
      dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      dependent.value.programmaticStreamSerializationAllowed = 1;
      if (step.dependent) {
        config.attrs = &dependent;
        config.numAttrs = 1;
      }
      if (CUresult r =
              step.dependent
                  ? api.cuLaunchKernelEx(&config, step.function,
                                         step.params.pointers(), nullptr)
                  : api.cuLaunchKernel(step.function, config.gridDimX,
                                       config.gridDimY, config.gridDimZ,
                                       config.blockDimX, config.blockDimY,
                                       config.blockDimZ, config.sharedMemBytes,
                                       stream, step.params.pointers(), nullptr);
          r != CUDA_SUCCESS)
        return cuFailureIn(api, r,
                           "cuLaunchKernel of kernel '" + kernel.name +
                               "' of layer '" + *layerName + "'",
                           __FILE__, __LINE__);
    }
    if (order) {
      SPRT_CU_RETURN_IF_ERROR(api, api.cuEventRecord(order->event, stream));
      order->lastStream = key;
    }
    return SPRT_OK;
  };
  return SPRT_OK;
}
