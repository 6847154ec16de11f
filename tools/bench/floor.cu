//===- floor.cu - The floors of the benchmark protocol on this GPU --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Measures, the way spperm-verify --bench times kernels (docs/Benchmark.md:
// back-to-back launches, a pair of CUDA events around each, median of the
// runs):
//  * the time of an empty kernel (1 CTA, and 132 x 8 CTAs of 256 threads):
//    no SpMM can be timed below it;
//  * device-to-device copy bandwidth (cuMemcpyDtoD of 1 GiB), the memory
//    bandwidth of the compulsory-traffic roofline (BENCHMARK.md).
// Build and run on the GPU machine: nvcc -O2 -o floor floor.cu && ./floor
// Prints one `floor` line of key=value pairs.
//
//===----------------------------------------------------------------------===//

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "floor: %s at %s:%d: %s\n", #call, __FILE__,        \
                   __LINE__, cudaGetErrorString(err));                         \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void empty() {}

template <typename Launch>
static float medianMs(int runs, Launch launch) {
  for (int i = 0; i < 5; ++i)
    launch();
  std::vector<cudaEvent_t> events(2 * runs);
  for (cudaEvent_t &e : events)
    CHECK(cudaEventCreate(&e));
  for (int i = 0; i < runs; ++i) {
    CHECK(cudaEventRecord(events[2 * i]));
    launch();
    CHECK(cudaEventRecord(events[2 * i + 1]));
  }
  CHECK(cudaEventSynchronize(events.back()));
  std::vector<float> times(runs);
  for (int i = 0; i < runs; ++i)
    CHECK(cudaEventElapsedTime(&times[i], events[2 * i], events[2 * i + 1]));
  for (cudaEvent_t e : events)
    CHECK(cudaEventDestroy(e));
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  float one = medianMs(100, [] {
    empty<<<1, 32>>>();
    CHECK(cudaGetLastError());
  });
  int sms = prop.multiProcessorCount;
  float full = medianMs(100, [sms] {
    empty<<<sms * 8, 256>>>();
    CHECK(cudaGetLastError());
  });
  const size_t bytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  float copy = medianMs(20, [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  // A copy reads and writes every byte.
  double gbs = 2.0 * double(bytes) / (copy * 1e-3) / 1e9;
  std::printf("floor device=\"%s\" sms=%d empty_kernel_ms=%.4f "
              "empty_grid_ms=%.4f copy_gbs=%.1f\n",
              prop.name, sms, one, full, gbs);
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 0;
}
