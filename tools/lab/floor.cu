//===- floor.cu - The floors of the benchmark protocol on this GPU --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Measures, the way spperm-verify --bench times kernels (docs/Testing.md:
// a pair of CUDA events around each launch, median of the runs, the runs
// queued while the stream waits on a host flag):
//  * the time of an empty kernel (1 CTA, and 132 x 8 CTAs of 256 threads),
//    queued and as launched one by one (then the host's launch rate is
//    what the events see): no SpMM can be timed below it;
//  * device-to-device copy bandwidth (cuMemcpyDtoD of 1 GiB), the memory
//    bandwidth of the compulsory-traffic roofline (BENCHMARK.md).
// Build and run on the GPU machine: nvcc -O2 -o floor floor.cu && ./floor
// Prints one `floor` line of key=value pairs.
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.cuh"

#include <cstdio>

__global__ void empty() {}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  float one[2], full[2];
  for (int queued = 0; queued < 2; ++queued) {
    one[queued] = medianMs(20, queued, [] {
      empty<<<1, 32>>>();
      CHECK(cudaGetLastError());
    });
    full[queued] = medianMs(20, queued, [sms] {
      empty<<<sms * 8, 256>>>();
      CHECK(cudaGetLastError());
    });
  }
  const size_t bytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  float copy = medianMs(20, true, [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  // A copy reads and writes every byte.
  double gbs = 2.0 * double(bytes) / (copy * 1e-3) / 1e9;
  std::printf("floor device=\"%s\" sms=%d empty_kernel_ms=%.4f "
              "empty_grid_ms=%.4f launched_empty_kernel_ms=%.4f "
              "launched_empty_grid_ms=%.4f copy_gbs=%.1f\n",
              prop.name, sms, one[1], full[1], one[0], full[0], gbs);
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 0;
}
