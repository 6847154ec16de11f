//===- BenchTiming.cuh - The timing protocol of the bench programs -*- CUDA -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Shared by the standalone programs of tools/lab (floor.cu,
// panel_proto.cu, ...): a CUDA error check, the timing of spperm-verify
// --bench (docs/Testing.md) — a pair of CUDA events around each launch,
// median of the runs, the runs queued while the stream waits on a host
// flag so that the events see the GPU's work, not the host's launch rate —
// and the CUDA-graph timing of bench_sparse_linear.py's graph columns.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_BENCH_BENCHTIMING_CUH
#define SPPERM_TOOLS_BENCH_BENCHTIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// Exits with the call, its place and CUDA's message when `call` fails.
#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(err));                                   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// Holds the stream until the host sets *flag (nvbench's blocking kernel).
__global__ void hold(volatile unsigned *flag) {
  while (*flag == 0)
    __nanosleep(1000);
}

/// The median time in ms of `runs` calls of `launch` (after min(5, runs)
/// warm-ups), each between two events; `queued`: the runs wait behind a
/// host flag and run back to back, else they are launched one by one.
template <typename Launch>
static float medianMs(int runs, bool queued, Launch launch) {
  for (int i = 0; i < std::min(5, runs); ++i)
    launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> events(2 * runs);
  for (cudaEvent_t &e : events)
    CHECK(cudaEventCreate(&e));
  unsigned *flag = nullptr;
  CHECK(cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocMapped));
  *flag = 0;
  if (queued) {
    unsigned *deviceFlag = nullptr;
    CHECK(cudaHostGetDevicePointer(&deviceFlag, flag, 0));
    hold<<<1, 1>>>(deviceFlag);
  }
  for (int i = 0; i < runs; ++i) {
    CHECK(cudaEventRecord(events[2 * i]));
    launch();
    CHECK(cudaEventRecord(events[2 * i + 1]));
  }
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
  CHECK(cudaEventSynchronize(events.back()));
  CHECK(cudaFreeHost(flag));
  std::vector<float> times(runs);
  for (int i = 0; i < runs; ++i)
    CHECK(cudaEventElapsedTime(&times[i], events[2 * i], events[2 * i + 1]));
  for (cudaEvent_t e : events)
    CHECK(cudaEventDestroy(e));
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

/// The time in microseconds per call of `launch(stream)`: 20 calls
/// captured in a CUDA graph, replayed (GPU time, as
/// bench_sparse_linear.py's graph columns), median of 15 replays.
template <typename Launch> static float graphUs(Launch launch) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 20; ++i)
    launch(s);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 20; ++i)
    CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<float> t;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 15; ++i) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3f / 20);
  }
  std::nth_element(t.begin(), t.begin() + 7, t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  return t[7];
}

#endif // SPPERM_TOOLS_BENCH_BENCHTIMING_CUH
