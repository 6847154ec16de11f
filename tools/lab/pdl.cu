//===- pdl.cu - What a layer's second launch costs, with and without PDL --===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A bell layer runs the residual's row kernel and then the bell-tile kernel,
// which adds its sums to C: two launches, the second ordered after the
// first. This measures, the way spperm-verify --bench times layers
// (BenchTiming.cuh), what that order costs and how much of it Hopper's
// programmatic dependent launch (PDL) takes back: the second kernel is
// launched with cudaLaunchAttributeProgrammaticStreamSerialization, the
// first executes griddepcontrol.launch_dependents at its start, and the
// second computes its sums before griddepcontrol.wait and only then
// touches C.
//
// Pairs timed (median of 20 queued runs each):
//  * empty + empty: the bare gap between two launches;
//  * producer alone, producer + consumer in stream order, and with PDL;
//    the producer stores C (132 x 4 CTAs, ~`work` iterations each), the
//    consumer reads the producer's C and adds to it.
// Every pair's C is checked after its runs (the consumer must see the
// producer's stores). Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o pdl pdl.cu && ./pdl
// Prints one `pdl` line per work size.
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.cuh"

#include <cstdio>

__device__ __forceinline__ void launchDependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void waitPrimary() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

__global__ void emptyPrimary() { launchDependents(); }
__global__ void emptyDependent() { waitPrimary(); }

/// Stores c[i] = base + i after `work` dependent multiply-adds per thread.
__global__ void producer(float *c, int n, int work, float base) {
  launchDependents();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 1.0f;
  for (int j = 0; j < work; ++j)
    x = x * 0.999999f + 1e-7f;
  if (i < n)
    c[i] = base + float(i) + (x > 1e30f ? 1.0f : 0.0f);
}

/// Adds 1 to c[i] after `work` multiply-adds that do not read C.
__global__ void consumer(float *c, int n, int work) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 1.0f;
  for (int j = 0; j < work; ++j)
    x = x * 0.999999f + 1e-7f;
  waitPrimary();
  if (i < n)
    c[i] += 1.0f + (x > 1e30f ? 1.0f : 0.0f);
}

template <typename... Args>
static void launchPdl(void (*kernel)(Args...), dim3 grid, dim3 block,
                      Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  float emptyPair = medianMs(20, true, [] {
    emptyPrimary<<<1, 32>>>();
    emptyDependent<<<1, 32>>>();
  });
  float emptyPdl = medianMs(20, true, [] {
    emptyPrimary<<<1, 32>>>();
    launchPdl(emptyDependent, dim3(1), dim3(32));
  });
  float emptyOne = medianMs(20, true, [] { emptyPrimary<<<1, 32>>>(); });
  std::printf("pdl empty one_ms=%.4f pair_ms=%.4f pair_pdl_ms=%.4f\n",
              emptyOne, emptyPair, emptyPdl);

  const int threads = 256, pBlocks = sms * 4, cBlocks = sms;
  const int n = pBlocks * threads;
  float *c = nullptr;
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  std::vector<float> host(n);
  int failures = 0;
  auto check = [&](float base, float add, const char *what, int work) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host.data(), c, n * sizeof(float),
                     cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      float want = base + float(i) + (i < cBlocks * threads ? add : 0.0f);
      if (host[i] != want) {
        std::printf("pdl FAIL %s work=%d c[%d]=%g want %g\n", what, work, i,
                    host[i], want);
        ++failures;
        return;
      }
    }
  };
  for (int work : {200, 1000, 3000}) {
    for (int cWork : {0, work / 4}) {
      float alone = medianMs(20, true, [&] {
        producer<<<pBlocks, threads>>>(c, n, work, 1.0f);
      });
      check(1.0f, 0.0f, "alone", work);
      float ordered = medianMs(20, true, [&] {
        producer<<<pBlocks, threads>>>(c, n, work, 2.0f);
        consumer<<<cBlocks, threads>>>(c, n, cWork);
      });
      check(2.0f, 1.0f, "ordered", work);
      float pdl = medianMs(20, true, [&] {
        producer<<<pBlocks, threads>>>(c, n, work, 3.0f);
        launchPdl(consumer, dim3(cBlocks), dim3(threads), c, n, cWork);
      });
      check(3.0f, 1.0f, "pdl", work);
      std::printf("pdl work=%d consumer_work=%d producer_ms=%.4f "
                  "ordered_ms=%.4f pdl_ms=%.4f\n",
                  work, cWork, alone, ordered, pdl);
    }
  }
  CHECK(cudaFree(c));
  std::printf("pdl device=\"%s\" failures=%d\n", prop.name, failures);
  return failures == 0 ? 0 : 1;
}
