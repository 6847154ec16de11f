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
#include <string>
#include <string_view>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

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

sprt_status CudaBackend::decideInPlace(
    int64_t index, const PackageLayer &layer,
    const std::vector<InPlaceChoice> &candidates, const void *b, int64_t k,
    void *c, void *workspace, CUstream stream) {
  // The transposing path first, as a call without in-place kernels runs
  // it: it makes the row-major decision for the bucket if there is none.
  SPRT_RETURN_IF_ERROR(transposingLaunch(index, layer, b, k, c, workspace,
                                         stream, /*captured=*/false,
                                         knownLaunch(index, layer, k)));
  const KnownLaunch known = knownLaunch(index, layer, k);
  // Launch 0 is the transposing path, launch i the candidate i - 1.
  std::vector<std::function<sprt_status()>> launches;
  launches.push_back([&] {
    return transposingLaunch(index, layer, b, k, c, workspace, stream,
                             /*captured=*/false, known);
  });
  for (const InPlaceChoice &choice : candidates)
    launches.push_back([this, index, &layer, choice, b, k, c, stream] {
      return launchInPlace(index, layer, choice, b, k, c, stream);
    });
  const size_t count = launches.size();
  std::vector<std::vector<float>> times(count);
  float ms[kCheckRuns];
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < count; ++i) {
      const size_t at = pass == 0 ? i : count - 1 - i;
      if (sprt_status s = timeLaunches(d, stream, pass == 0 ? 1 : 0,
                                       kCheckRuns, ms, launches[at]);
          s != SPRT_OK) {
        // K's later calls take the transposing path, which ran above,
        // instead of timing again; this call reports the failure.
        inPlaceDecisions[{index, k}] = InPlaceChoice();
        releaseUnchosen(index, layer);
        return s;
      }
      times[at].insert(times[at].end(), ms, ms + kCheckRuns);
    }
  std::vector<float> medians(count);
  for (size_t i = 0; i < count; ++i) {
    std::sort(times[i].begin(), times[i].end());
    medians[i] = 0.5f * (times[i][kCheckRuns - 1] + times[i][kCheckRuns]);
  }
  const size_t fastest = static_cast<size_t>(
      std::min_element(medians.begin() + 1, medians.end()) - medians.begin());
  const bool inPlace = inPlaceMode == InPlaceMode::Always ||
                       medians[fastest] <= kCheckTieRatio * medians[0];
  InPlaceChoice decision;
  if (inPlace)
    decision = candidates[fastest - 1];
  inPlaceDecisions[{index, k}] = decision;
  // The variants neither decision runs may go now.
  releaseUnchosen(index, layer);
  if (logChoices()) {
    std::string line = "spperm: layer '" + layer.name +
                       "', k = " + std::to_string(k) +
                       ", column-major B: transposing " +
                       std::to_string(medians[0]) + " ms;";
    for (size_t i = 1; i < count; ++i) {
      const InPlaceChoice &choice = candidates[i - 1];
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
  return launches[inPlace ? fastest : 0]();
}
