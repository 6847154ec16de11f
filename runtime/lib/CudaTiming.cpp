//===- CudaTiming.cpp - Timing launches on the GPU --------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// timeLaunches: the runs of a launch between pairs of events, queued while
// the stream waits on a host flag (HostFlag) so that the events time the
// GPU's work rather than the rate of the host's launches. medianTimes:
// several launches timed alike, by timeLaunches or as CUDA graphs
// (CapturedGraph) replay them.
//
//===----------------------------------------------------------------------===//

#include "CudaTiming.h"
#include "CudaStatus.h"

#include "spperm/Runtime/SpPermRuntime.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// A page of pinned host memory the device can read: the flag a timed
/// stream waits on while the host queues the runs.
class HostFlag {
public:
  explicit HostFlag(const DriverApi &api) : api(api) {
    if (!api.cuStreamWaitValue32 || !api.cuMemHostAlloc ||
        !api.cuMemHostGetDevicePointer || !api.cuMemFreeHost)
      return;
    void *p = nullptr;
    if (api.cuMemHostAlloc(&p, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP) !=
        CUDA_SUCCESS)
      return;
    CUdeviceptr d = 0;
    if (api.cuMemHostGetDevicePointer(&d, p, 0) != CUDA_SUCCESS) {
      api.cuMemFreeHost(p);
      return;
    }
    host = static_cast<uint32_t *>(p);
    device = d;
  }
  ~HostFlag() {
    if (host)
      api.cuMemFreeHost(host);
  }
  HostFlag(const HostFlag &) = delete;
  HostFlag &operator=(const HostFlag &) = delete;

  /// Whether the flag exists (the driver has stream memory operations and
  /// mapped pinned memory) and holding a stream on it has not failed.
  bool usable() const { return host != nullptr && !failed; }
  /// Makes `stream` wait until release(); false (and the flag unusable
  /// from then on) when the driver refuses the wait.
  bool hold(CUstream stream) {
    __atomic_store_n(host, 0u, __ATOMIC_RELEASE);
    if (api.cuStreamWaitValue32(stream, device, 1, CU_STREAM_WAIT_VALUE_GEQ) !=
        CUDA_SUCCESS) {
      failed = true;
      return false;
    }
    return true;
  }
  /// Lets a held stream go.
  void release() {
    if (host)
      __atomic_store_n(host, 1u, __ATOMIC_RELEASE);
  }

private:
  const DriverApi &api;
  uint32_t *host = nullptr;
  CUdeviceptr device = 0;
  bool failed = false;
};

} // namespace

sprt_status spperm::runtime_detail::timeLaunches(
    const Driver &d, CUstream stream, int32_t warmup, int32_t runs,
    float *timesMs, const std::function<sprt_status()> &launch) {
  const DriverApi &api = d.api;
  for (int32_t i = 0; i < warmup; ++i)
    SPRT_RETURN_IF_ERROR(launch());
  std::vector<CUevent> events;
  HostFlag flag(api);
  // Destroys the events however the function returns; never leaves the
  // stream held, and waits for it before the flag's memory is freed.
  struct Guard {
    const DriverApi &api;
    std::vector<CUevent> &events;
    HostFlag &flag;
    CUstream stream;
    bool held = false;
    ~Guard() {
      if (held) {
        flag.release();
        api.cuStreamSynchronize(stream);
      }
      for (CUevent e : events)
        api.cuEventDestroy(e);
    }
  } guard{api, events, flag, stream};
  // 64-bit counts: 2 * runs and a batch's end overflow an int32 for runs
  // near its largest.
  for (int64_t i = 0; i < int64_t{2} * runs; ++i) {
    CUevent e;
    SPRT_CU_RETURN_IF_ERROR(api, api.cuEventCreate(&e, CU_EVENT_DEFAULT));
    events.push_back(e);
  }
  constexpr int64_t kBatch = 16;
  for (int64_t first = 0; first < runs; first += kBatch) {
    // Should a launch wait for the stream inside (a library call that
    // synchronizes), the watchdog lets the stream go after a second.
    std::mutex m;
    std::condition_variable queued;
    bool done = false;
    std::thread watchdog;
    if (flag.usable() && flag.hold(stream)) {
      guard.held = true;
      watchdog = std::thread([&] {
        std::unique_lock<std::mutex> lock(m);
        queued.wait_for(lock, std::chrono::seconds(1), [&] { return done; });
        flag.release();
      });
    }
    auto queueBatch = [&]() -> sprt_status {
      for (int64_t i = first; i < std::min<int64_t>(runs, first + kBatch);
           ++i) {
        SPRT_CU_RETURN_IF_ERROR(api,
                                api.cuEventRecord(events[2 * i], stream));
        SPRT_RETURN_IF_ERROR(launch());
        SPRT_CU_RETURN_IF_ERROR(api,
                                api.cuEventRecord(events[2 * i + 1], stream));
      }
      return SPRT_OK;
    };
    sprt_status status = queueBatch();
    if (watchdog.joinable()) {
      {
        std::lock_guard<std::mutex> lock(m);
        done = true;
      }
      queued.notify_one();
      watchdog.join();
    }
    SPRT_RETURN_IF_ERROR(status);
    SPRT_CU_RETURN_IF_ERROR(api, api.cuStreamSynchronize(stream));
  }
  for (int64_t i = 0; i < runs; ++i)
    SPRT_CU_RETURN_IF_ERROR(api, api.cuEventElapsedTime(&timesMs[i],
                                                        events[2 * i],
                                                        events[2 * i + 1]));
  return SPRT_OK;
}

namespace {

/// A launch captured `kGraphLaunches` times into an instantiated CUDA
/// graph, on a private stream in relaxed mode (a launch may allocate, as a
/// first call's residency does). Destroys the graph with itself.
class CapturedGraph {
public:
  explicit CapturedGraph(const DriverApi &api) : api(api) {}
  ~CapturedGraph() {
    if (exec)
      api.cuGraphExecDestroy(exec);
    if (graph)
      api.cuGraphDestroy(graph);
  }
  CapturedGraph(const CapturedGraph &) = delete;
  CapturedGraph &operator=(const CapturedGraph &) = delete;

  /// Whether the driver has what capturing needs.
  static bool supported(const DriverApi &api) {
    return api.cuStreamBeginCapture && api.cuStreamEndCapture &&
           api.cuGraphInstantiateWithFlags && api.cuGraphLaunch &&
           api.cuGraphExecDestroy && api.cuGraphDestroy;
  }

  /// Captures `launch` on `capture` (a stream no one else uses) and
  /// instantiates the graph. The stream is out of capture mode on return,
  /// whatever happened.
  sprt_status capture(CUstream capture, const StreamLaunch &launch) {
    SPRT_CU_RETURN_IF_ERROR(
        api, api.cuStreamBeginCapture(capture, CU_STREAM_CAPTURE_MODE_RELAXED));
    sprt_status status = SPRT_OK;
    for (int32_t i = 0; i < kGraphLaunches && status == SPRT_OK; ++i)
      status = launch(capture);
    const CUresult ended = api.cuStreamEndCapture(capture, &graph);
    SPRT_RETURN_IF_ERROR(status);
    SPRT_CU_RETURN_IF_ERROR(api, ended);
    SPRT_CU_RETURN_IF_ERROR(api,
                            api.cuGraphInstantiateWithFlags(&exec, graph, 0));
    return SPRT_OK;
  }

  sprt_status launch(CUstream stream) const {
    SPRT_CU_RETURN_IF_ERROR(api, api.cuGraphLaunch(exec, stream));
    return SPRT_OK;
  }

private:
  const DriverApi &api;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

/// A stream of the backend's own, destroyed with this object.
struct OwnStream {
  explicit OwnStream(const DriverApi &api) : api(api) {}
  ~OwnStream() {
    if (stream)
      api.cuStreamDestroy(stream);
  }
  OwnStream(const OwnStream &) = delete;
  OwnStream &operator=(const OwnStream &) = delete;
  const DriverApi &api;
  CUstream stream = nullptr;
};

} // namespace

sprt_status spperm::runtime_detail::medianTimes(
    const Driver &d, CUstream stream, TimingMode mode, int32_t runs,
    const std::vector<StreamLaunch> &launches, std::vector<float> &medians,
    TimingMode *usedMode) {
  const DriverApi &api = d.api;
  const size_t count = launches.size();
  // What one timed run enqueues on `stream`, and what it is divided by.
  std::vector<std::function<sprt_status()>> timed(count);
  std::vector<std::unique_ptr<CapturedGraph>> graphs;
  int32_t perRun = 1, timedRuns = runs;
  if (mode == TimingMode::Graph && CapturedGraph::supported(api)) {
    const std::string savedError = sprt_last_error();
    OwnStream capture(api);
    bool captured = api.cuStreamCreate(&capture.stream,
                                       CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
    for (size_t i = 0; i < count && captured; ++i) {
      graphs.push_back(std::make_unique<CapturedGraph>(api));
      if (!launches[i])
        continue;
      // Run once on the caller's stream first: whatever a launch does the
      // first time (residency, module loading) stays out of the graph.
      SPRT_RETURN_IF_ERROR(launches[i](stream));
      captured = graphs[i]->capture(capture.stream, launches[i]) == SPRT_OK;
    }
    if (captured) {
      for (size_t i = 0; i < count; ++i)
        if (launches[i])
          timed[i] = [&graph = *graphs[i], stream] {
            return graph.launch(stream);
          };
      perRun = kGraphLaunches;
      timedRuns = kGraphReplays;
    } else {
      // Timed queued instead; the capture's failure is not the caller's.
      graphs.clear();
      failWith(SPRT_OK, savedError);
      mode = TimingMode::Queued;
    }
  } else {
    mode = TimingMode::Queued;
  }
  if (mode == TimingMode::Queued)
    for (size_t i = 0; i < count; ++i)
      if (launches[i])
        timed[i] = [&launch = launches[i], stream] { return launch(stream); };
  if (usedMode)
    *usedMode = mode;

  std::vector<std::vector<float>> times(count);
  std::vector<float> ms(static_cast<size_t>(timedRuns));
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < count; ++i) {
      const size_t at = pass == 0 ? i : count - 1 - i;
      if (!timed[at])
        continue;
      SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, pass == 0 ? 1 : 0,
                                        timedRuns, ms.data(), timed[at]));
      for (float t : ms)
        times[at].push_back(t / static_cast<float>(perRun));
    }
  medians.assign(count, -1.0f);
  for (size_t i = 0; i < count; ++i) {
    if (times[i].empty())
      continue;
    std::sort(times[i].begin(), times[i].end());
    medians[i] = 0.5f * (times[i][timedRuns - 1] + times[i][timedRuns]);
  }
  return SPRT_OK;
}
