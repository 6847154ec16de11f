// Does a float atomic add on global memory keep subnormal operands and
// results on this GPU? Each form adds a subnormal into a cleared slot, and
// a subnormal into a slot holding one; prints what each slot holds.
//   nvcc -arch=sm_90 -o atomic_subnormal tools/lab/atomic_subnormal.cu
#include <cstdio>
#include <cuda_runtime.h>

__global__ void adds(float *out, float x) {
  // 0, 1: atomicAdd (atom.global.add.f32) into 0 and into x.
  atomicAdd(&out[0], x);
  atomicAdd(&out[1], x);
  // 2, 3: red.global.add.f32 (result unused).
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(&out[2]), "f"(x) : "memory");
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(&out[3]), "f"(x) : "memory");
  // 4..7: red.global.add.v4.f32 into 0, x, 0, x.
  asm volatile("red.global.add.v4.f32 [%0], {%1, %1, %1, %1};" ::"l"(&out[4]),
               "f"(x)
               : "memory");
  // 8: atomicAdd on shared memory, then copied out.
  __shared__ float s;
  s = 0.0f;
  __syncthreads();
  atomicAdd(&s, x);
  __syncthreads();
  out[8] = s;
  // 9: a plain add for comparison.
  out[9] = x + x;
}

int main() {
  const float x = 1e-40f; // subnormal
  float host[10] = {0, x, 0, x, 0, x, 0, x, 0, 0};
  float *d;
  cudaMalloc(&d, sizeof host);
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  adds<<<1, 1>>>(d, x);
  cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
  const char *what[10] = {"atomicAdd 0+x", "atomicAdd x+x", "red 0+x",
                          "red x+x", "red.v4 0+x", "red.v4 x+x",
                          "red.v4 0+x", "red.v4 x+x", "shared atomicAdd 0+x",
                          "plain x+x"};
  for (int i = 0; i < 10; ++i)
    printf("%-22s %g%s\n", what[i], host[i],
           host[i] == 0.0f ? "  (flushed)" : "");
  return 0;
}
