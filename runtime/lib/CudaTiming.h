//===- CudaTiming.h - Timing launches on the GPU ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the timed runs of sprt_spmm_time and
// of the choices the backend makes at a layer's first call (the cuSPARSE
// algorithm, the variant, the library check).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDATIMING_H
#define SPPERM_RUNTIME_LIB_CUDATIMING_H

#include "CudaLibraries.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace spperm::runtime_detail {

/// Runs `launch` `warmup` times, then `runs` times between a pair of events
/// each, on `stream`; waits for the last and reads the times.
///
/// The timed runs are queued while the stream waits on a host flag (in
/// batches of 16, well within the driver's queue), so that the GPU runs
/// them back to back and the events time its work, not the rate at which
/// the host can launch (which is ~4.6 us per launch on the H100 and would
/// be the time of every small SpMM, spperm's and cuSPARSE's alike): the
/// "blocking kernel" of NVIDIA's nvbench. Drivers without stream memory
/// operations time the runs as they are launched.
sprt_status timeLaunches(const Driver &d, CUstream stream, int32_t warmup,
                         int32_t runs, float *timesMs,
                         const std::function<sprt_status()> &launch);

/// A launch onto the stream it is given.
using StreamLaunch = std::function<sprt_status(CUstream)>;

/// How medianTimes times its launches.
enum class TimingMode {
  /// Each run between a pair of events on the caller's stream
  /// (timeLaunches): the gaps between stream launches count, once per
  /// launch.
  Queued,
  /// As a CUDA graph replays them: each launch captured kGraphLaunches times
  /// into a graph, whose replays timeLaunches times, divided by
  /// kGraphLaunches. For paths of different numbers of launches (a
  /// transposing kernel and its SpMM against one in-place kernel), whose
  /// queued runs differ by the gaps between stream launches that a graph
  /// mostly removes. Falls back to Queued where the driver cannot capture
  /// or a launch cannot be captured.
  Graph,
};

/// The launches a Graph timing captures into one graph, and the graph's
/// timed replays per pass.
inline constexpr int32_t kGraphLaunches = 20;
inline constexpr int32_t kGraphReplays = 5;

/// The median time (ms) of each of `launches`, timed alike: a warm-up and
/// `runs` runs each (Queued; kGraphReplays replays of kGraphLaunches
/// captured launches for Graph), then as many again in the reverse order,
/// so that neither a clock ramp nor the order favours one; `medians[i]`
/// is the median of launch i's pooled runs, -1 for an empty launch.
/// `usedMode` (when not null) says how they were timed (Graph falls back to
/// Queued, see TimingMode). A failing launch's status is returned.
sprt_status medianTimes(const Driver &d, CUstream stream, TimingMode mode,
                        int32_t runs, const std::vector<StreamLaunch> &launches,
                        std::vector<float> &medians,
                        TimingMode *usedMode = nullptr);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDATIMING_H
