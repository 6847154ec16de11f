//===- CudaInPlace.cpp - In-place kernels for a column-major B ------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A layer's in-place kernels (the manifest's `in_place_b`; docs/Kernels.md,
// "In-place column-major B") compute C from a caller's column-major B where
// it is, without the transposing kernel's row-major copy. At the first
// column-major call per (layer, K) the backend times them against the
// transposing path and keeps the fastest where it pays (docs/RuntimeABI.md,
// "Column-major B"); later column-major calls for that K run what it kept,
// on any stream.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "CudaTiming.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// The key of a map's or a set's element.
template <typename Key, typename Value>
const Key &keyOf(const std::pair<const Key, Value> &element) {
  return element.first;
}
template <typename Key> const Key &keyOf(const Key &element) { return element; }

/// Moves the elements of `container` (a map or a set) whose key
/// `isCaptured` (state of a stream captured into a CUDA graph) out of it,
/// and returns them.
template <typename Container, typename IsCaptured>
Container setAsideCaptured(Container &container, IsCaptured isCaptured) {
  Container aside;
  for (auto it = container.begin(); it != container.end();)
    if (isCaptured(keyOf(*it)))
      aside.insert(container.extract(it++));
    else
      ++it;
  return aside;
}

/// Drops the captured elements `container` holds now and puts `aside` back.
template <typename Container, typename IsCaptured>
void restoreCaptured(Container &container, Container &aside,
                     IsCaptured isCaptured) {
  for (auto it = container.begin(); it != container.end();)
    it = isCaptured(keyOf(*it)) ? container.erase(it) : std::next(it);
  container.merge(aside);
}

} // namespace

sprt_status CudaBackend::inPlaceModeFromEnvironment(InPlaceMode &mode) {
  mode = InPlaceMode::Auto;
  const char *value = std::getenv("SPRT_IN_PLACE_B");
  if (!value || !*value)
    return SPRT_OK;
  const std::string_view v = value;
  if (v == "auto")
    return SPRT_OK;
  if (v == "never") {
    mode = InPlaceMode::Never;
    return SPRT_OK;
  }
  if (v == "always") {
    mode = InPlaceMode::Always;
    return SPRT_OK;
  }
  return failWith(SPRT_ERROR_INVALID_ARGUMENT,
                  "SPRT_IN_PLACE_B must be auto, never or always, got '" +
                      std::string(v) + "'");
}

std::vector<CudaBackend::InPlaceChoice>
CudaBackend::inPlaceCandidates(int64_t index, const PackageLayer &layer,
                               int64_t k) const {
  std::vector<InPlaceChoice> out;
  const DeviceLayer &family = layers[index];
  for (size_t v = 0; v <= layer.alternatives.size(); ++v) {
    const PackageLayer &variant = layer.variant(v);
    const DeviceLayer &device = family.variant(v);
    for (size_t i = 0; i < variant.inPlaceB.size(); ++i)
      if (i < device.inPlace.size() && device.inPlace[i] &&
          variant.inPlaceB[i].acceptsK(k))
        out.push_back({v, static_cast<int64_t>(i)});
  }
  return out;
}

sprt_status CudaBackend::launchInPlace(int64_t index,
                                       const PackageLayer &layer,
                                       const InPlaceChoice &choice,
                                       const void *b, int64_t k, void *c,
                                       CUstream stream) {
  SPRT_RETURN_IF_ERROR(ensureResident(index, layer, choice.variant));
  const PackageLayer &variant = layer.variant(choice.variant);
  const DeviceLayer &device = layers[index].variant(choice.variant);
  const KernelInfo &kernel =
      variant.inPlaceB[static_cast<size_t>(choice.kernel)];
  const LaunchOperands operands{
      {b, device.cols * k}, {c, device.rows * k}, k, {}, {}};
  KernelParams params;
  SPRT_RETURN_IF_ERROR(
      bindKernelParams(layer.name, kernel, device.spans, operands, params));
  return launchKernel(device.inPlace[static_cast<size_t>(choice.kernel)],
                      kernel, {kernel.gridX, kernel.gridY, kernel.gridZ},
                      params, layer, stream);
}

TuningKey CudaBackend::inPlaceTuningKey(int64_t index,
                                        const PackageLayer &layer, int64_t k) {
  LaunchChoice choice;
  const std::string savedError = sprt_last_error();
  // The layer's own launch for K (a candidate exists, so there is one).
  if (chooseLaunch(layer, k, choice) != SPRT_OK)
    failWith(SPRT_OK, savedError);
  TuningKey key = tuningKey(index, layer, choice, k);
  // The choice is made per exact K, not per bucket.
  key.k = k;
  key.columnMajorB = true;
  return key;
}

std::optional<CudaBackend::InPlaceChoice>
CudaBackend::recallInPlace(int64_t index, const PackageLayer &layer,
                           const std::vector<InPlaceChoice> &candidates,
                           int64_t k) {
  if (inPlaceMode != InPlaceMode::Auto || !tuning->enabled())
    return std::nullopt;
  const TuningKey key = inPlaceTuningKey(index, layer, k);
  const std::optional<TuningChoice> cached =
      tuning->lookup(key, tuningLayer(layer));
  if (!cached)
    return std::nullopt;
  if (cached->inPlace.empty())
    return InPlaceChoice();
  for (const InPlaceChoice &choice : candidates)
    if (choice.variant == cached->variant &&
        layer.variant(choice.variant)
                .inPlaceB[static_cast<size_t>(choice.kernel)]
                .name == cached->inPlace)
      return choice;
  // Named by the package, but not a candidate here (not for this K, or
  // more shared memory than this GPU gives).
  tuning->reject(key, "the in-place kernel '" + cached->inPlace +
                          "' cannot run k = " + std::to_string(k) + " here");
  return std::nullopt;
}

sprt_status CudaBackend::decideInPlace(
    int64_t index, const PackageLayer &layer,
    const std::vector<InPlaceChoice> &candidates, const void *b, int64_t k,
    void *c, void *workspace, CUstream stream) {
  if (std::optional<InPlaceChoice> cached =
          recallInPlace(index, layer, candidates, k)) {
    inPlaceDecisions[{index, k}] = *cached;
    if (logChoices()) {
      const std::string runs =
          cached->kernel >= 0
              ? "runs " + layer.variant(cached->variant)
                              .inPlaceB[static_cast<size_t>(cached->kernel)]
                              .name
              : std::string("runs the transposing kernel first");
      std::fprintf(stderr,
                   "spperm: layer '%s', k = %lld, column-major B: from the "
                   "tuning cache: %s\n",
                   layer.name.c_str(), static_cast<long long>(k),
                   runs.c_str());
    }
    if (cached->kernel >= 0)
      return launchInPlace(index, layer, *cached, b, k, c, stream);
    return transposingLaunch(index, layer, b, k, c, workspace, stream,
                             /*captured=*/false, knownLaunch(index, layer, k));
  }
  // The transposing path first, as a call without in-place kernels runs
  // it: it makes the row-major decision for the bucket if there is none.
  SPRT_RETURN_IF_ERROR(transposingLaunch(index, layer, b, k, c, workspace,
                                         stream, /*captured=*/false,
                                         knownLaunch(index, layer, k)));
  const KnownLaunch known = knownLaunch(index, layer, k);
  // K's later calls take the transposing path, which ran above, instead of
  // timing again; this call reports the failure.
  auto failed = [&](sprt_status s) {
    inPlaceDecisions[{index, k}] = InPlaceChoice();
    releaseUnchosen(index, layer);
    return s;
  };
  // Every candidate's arrays on the device before anything is timed (a
  // capture cannot upload them); one that does not fit (the device is
  // full) is no candidate.
  const std::string savedError = sprt_last_error();
  std::vector<InPlaceChoice> resident;
  for (const InPlaceChoice &choice : candidates) {
    if (sprt_status s = ensureResident(index, layer, choice.variant);
        s != SPRT_OK) {
      if (s != SPRT_ERROR_OUT_OF_MEMORY)
        return failed(s);
      failWith(SPRT_OK, savedError);
      continue;
    }
    resident.push_back(choice);
  }
  if (resident.empty()) {
    inPlaceDecisions[{index, k}] = InPlaceChoice();
    releaseUnchosen(index, layer);
    return SPRT_OK; // C is the transposing path's, above
  }
  // Launch 0 is the transposing path, launch i the candidate i - 1; each
  // onto the stream it is given (a capture's, when timed as a graph).
  std::vector<StreamLaunch> launches;
  launches.push_back([&, known](CUstream s) {
    return transposingLaunch(index, layer, b, k, c, workspace, s,
                             /*captured=*/s != stream, known);
  });
  for (const InPlaceChoice &choice : resident)
    launches.push_back([this, index, &layer, choice, b, k, c](CUstream s) {
      return launchInPlace(index, layer, choice, b, k, c, s);
    });
  // Timed as a graph runs them: the transposing path is two launches, the
  // in-place one, and the gaps between stream launches would otherwise
  // decide (docs/RuntimeABI.md, "Column-major B"). A decided library call
  // is captured too, with a plan of its own for the capturing stream
  // (streamLibraryPlan). The per-stream state of streams captured before
  // — library plans, hbp ticket counters, fp32 accumulators, row-major Bs
  // — is set aside meanwhile (the timing's stream may get the handle of
  // one, whose graph may still replay with it), and the timing's own goes
  // with it; so are the library calls refused there, and the last stream
  // of an older package's ordered launches (CrossStreamOrder).
  const size_t count = launches.size();
  std::vector<float> medians;
  TimingMode mode = TimingMode::Queued;
  auto capturedPlan = [](const PlanKey &key) {
    return (std::get<2>(key) & kCapturedStreamKey) != 0;
  };
  auto capturedStream = [](uint64_t key) {
    return (key & kCapturedStreamKey) != 0;
  };
  auto planAside = setAsideCaptured(libraryPlans, capturedPlan);
  auto refusedAside = setAsideCaptured(refusedPlans, capturedPlan);
  auto ticketAside = setAsideCaptured(tickets, capturedStream);
  auto accumulatorAside = setAsideCaptured(accumulators, capturedStream);
  auto rowMajorAside = setAsideCaptured(rowMajorBs, capturedStream);
  std::vector<std::pair<CrossStreamOrder *, std::optional<uint64_t>>>
      lastStreams;
  for (size_t v = 0; v <= layer.alternatives.size(); ++v)
    if (CrossStreamOrder *order =
            (v == 0 ? layers[index] : layers[index].alternatives[v - 1])
                .crossStreamOrder.get())
      lastStreams.emplace_back(order, order->lastStream);
  const sprt_status timed = medianTimes(d, stream, TimingMode::Graph,
                                        kCheckRuns, launches, medians, &mode);
  for (auto &[order, last] : lastStreams)
    order->lastStream = last;
  // A failed timing may leave replays queued on the stream that use the
  // state freed below.
  if (timed != SPRT_OK && d.api.cuStreamSynchronize)
    d.api.cuStreamSynchronize(stream);
  restoreCaptured(libraryPlans, planAside, capturedPlan);
  restoreCaptured(refusedPlans, refusedAside, capturedPlan);
  restoreCaptured(tickets, ticketAside, capturedStream);
  restoreCaptured(accumulators, accumulatorAside, capturedStream);
  restoreCaptured(rowMajorBs, rowMajorAside, capturedStream);
  if (timed != SPRT_OK)
    return failed(timed);
  const size_t fastest = static_cast<size_t>(
      std::min_element(medians.begin() + 1, medians.end()) - medians.begin());
  const bool inPlace = inPlaceMode == InPlaceMode::Always ||
                       medians[fastest] <= kCheckTieRatio * medians[0];
  InPlaceChoice decision;
  if (inPlace)
    decision = resident[fastest - 1];
  inPlaceDecisions[{index, k}] = decision;
  if (inPlaceMode == InPlaceMode::Auto) {
    TuningChoice stored;
    if (inPlace) {
      stored.variant = decision.variant;
      stored.inPlace = layer.variant(decision.variant)
                           .inPlaceB[static_cast<size_t>(decision.kernel)]
                           .name;
    }
    tuning->store(inPlaceTuningKey(index, layer, k), tuningLayer(layer),
                  stored);
  }
  // The variants neither decision runs may go now.
  releaseUnchosen(index, layer);
  if (logChoices()) {
    std::string line = "spperm: layer '" + layer.name +
                       "', k = " + std::to_string(k) +
                       ", column-major B (" +
                       (mode == TimingMode::Graph ? "graph" : "queued") +
                       "): transposing " +
                       std::to_string(medians[0]) + " ms;";
    for (size_t i = 1; i < count; ++i) {
      const InPlaceChoice &choice = resident[i - 1];
      line += " " +
              layer.variant(choice.variant)
                  .inPlaceB[static_cast<size_t>(choice.kernel)]
                  .name +
              " " + std::to_string(medians[i]) + " ms;";
    }
    line += inPlace ? " runs in place"
                    : " runs the transposing kernel first";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return launches[inPlace ? fastest : 0](stream);
}
