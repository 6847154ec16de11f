//===- CudaDecisions.cpp - Choosing what runs a layer -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The choices the GPU backend makes at the first call of a layer for a K and
// a stream, each by timing the candidates on the call's own operands: the
// fastest cuSPARSE algorithm (choosePlan), the fastest of a checked layer's
// variants (decide), and whether cuSPARSE beats it (checkAgainstLibrary).
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"
#include "CudaTiming.h"

#include <algorithm>
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

sprt_status
CudaBackend::checkAgainstLibrary(const DeviceLayer &device, const float *b,
                                 int64_t k, float *c, CUstream stream,
                                 const std::function<sprt_status()> &generated,
                                 std::unique_ptr<Plan> &libraryPlan,
                                 float *generatedOut, float *libraryOut) {
  std::unique_ptr<Plan> candidate;
  const std::string savedError = sprt_last_error();
  if (choosePlan(device, b, k, c, stream, candidate) != SPRT_OK) {
    failWith(SPRT_OK, savedError);
    return SPRT_OK;
  }
  // Both timed alike (1 warm-up, kCheckRuns queued runs, the median),
  // the generated kernels first and last so that a clock ramp favours
  // neither; they are kept only when clearly faster: a near tie goes to
  // the library, so the package is not slower than cuSPARSE by the noise
  // of this measurement either.
  Plan *library = candidate.get();
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
  if (libraryOut)
    *libraryOut = libraryMs[kCheckRuns / 2];
  if (generatedMedian > kCheckTieRatio * libraryMs[kCheckRuns / 2])
    libraryPlan = std::move(candidate);
  return SPRT_OK;
}

sprt_status CudaBackend::decide(int64_t index, const PackageLayer &layer,
                                const float *b, int64_t k, float *c,
                                CUstream stream,
                                std::function<sprt_status()> &launch,
                                Decision &out) {
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
    SPRT_RETURN_IF_ERROR(generatedLaunch(device.variant(v), layer.variant(v),
                                         choice, b, k, c, stream, launches[v]));
  }
  std::vector<std::vector<float>> times(count);
  if (count > 1) {
    float ms[kCheckRuns];
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < count; ++i) {
        const size_t v = pass == 0 ? i : count - 1 - i;
        if (!launches[v])
          continue;
        SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, pass == 0 ? 1 : 0,
                                          kCheckRuns, ms, launches[v]));
        times[v].insert(times[v].end(), ms, ms + kCheckRuns);
      }
  }
  std::vector<float> medians(count, -1.0f);
  for (size_t v = 0; v < count; ++v) {
    if (times[v].empty())
      continue;
    std::sort(times[v].begin(), times[v].end());
    medians[v] = 0.5f * (times[v][kCheckRuns - 1] + times[v][kCheckRuns]);
    if (medians[v] < medians[out.variant])
      out.variant = v;
  }
  launch = launches[out.variant];
  float generatedMs = 0.0f, libraryMs = 0.0f;
  SPRT_RETURN_IF_ERROR(checkAgainstLibrary(
      device, b, k, c, stream, launch, out.library, &generatedMs, &libraryMs));
  if (logChoices()) {
    std::string line =
        "spperm: layer '" + layer.name + "', k = " + std::to_string(k) + ":";
    for (size_t v = 0; v < count; ++v) {
      const PackageLayer &variant = layer.variant(v);
      line += " " + std::string(formatName(variant.matrix.kind)) + "/" +
              std::string(strategyCliName(variant.permutation.strategy)) + " " +
              (medians[v] >= 0 ? std::to_string(medians[v]) + " ms"
               : count > 1     ? std::string("(no kernels for this k)")
                               : std::string("")) +
              ";";
    }
    line += " checked " + std::to_string(generatedMs) + " ms against " +
            "cuSPARSE " + std::to_string(libraryMs) + " ms: runs " +
            (out.library ? std::string("cuSPARSE")
                         : "variant " + std::to_string(out.variant));
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  return SPRT_OK;
}

bool CudaBackend::logChoices() {
  static const bool on = [] {
    const char *env = std::getenv("SPPERM_LOG_CHOICES");
    return env && std::string_view(env) == "1";
  }();
  return on;
}

sprt_status CudaBackend::choosePlan(const DeviceLayer &layer, const float *b,
                                    int64_t k, float *c, CUstream stream,
                                    std::unique_ptr<Plan> &out) {
  const std::string savedError = sprt_last_error();
  std::string refusals;
  float bestMs = 0.0f;
  for (const Algorithm &algorithm : kAlgorithms) {
    if (algorithm.spmv && k != 1)
      continue;
    auto plan = std::make_unique<Plan>(sp, handle, algorithm);
    sprt_status s = plan->prepare(d, layer, k, b, c, stream);
    if (s == SPRT_OK) {
      Plan *p = plan.get();
      // As many runs as the library check takes: the algorithms of a
      // small layer are often within a few percent of each other.
      float times[kCheckRuns];
      s = timeLaunches(d, stream, 1, kCheckRuns, times,
                       [p, b, c] { return p->run(b, c); });
      if (s == SPRT_OK) {
        std::sort(times, times + kCheckRuns);
        if (!out || times[kCheckRuns / 2] < bestMs) {
          bestMs = times[kCheckRuns / 2];
          out = std::move(plan);
        }
      }
    }
    if (s == SPRT_ERROR_OUT_OF_MEMORY)
      return s;
    if (s != SPRT_OK)
      refusals += std::string(refusals.empty() ? "" : "; ") +
                  algorithm.variant + ": " + sprt_last_error();
  }
  if (!out)
    return failWith(SPRT_ERROR_DEVICE,
                    "no cuSPARSE algorithm ran for this layer and k = " +
                        std::to_string(k) + ": " + refusals);
  failWith(SPRT_OK, savedError);
  return SPRT_OK;
}
