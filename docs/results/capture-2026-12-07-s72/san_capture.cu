// Does compute-sanitizer invalidate a global-mode capture on one stream when
// the same thread, in the relaxed mode, launches a kernel on another
// non-blocking stream and synchronizes it? (What a package's first call
// does beside a capture: GpuCaptureTest.PackageCallsBesideAGlobalCapture.)
//   nvcc -O2 -arch=sm_90 san_capture.cu -o san_capture -lcuda
//   nvcc -arch=sm_90 -cubin san_capture.cu -o /tmp/touch.cubin
//   ./san_capture; compute-sanitizer --tool memcheck ./san_capture
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void touch(float *p) { p[threadIdx.x] += 1.0f; }

int main() {
  cudaStream_t captured, other;
  cudaStreamCreateWithFlags(&captured, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  float *p;
  cudaMalloc(&p, 1024);
  for (int variant = 0; variant < 6; ++variant) {
    cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    cudaError_t e = cudaSuccess;
    if (variant == 0) { // a launch and a synchronize of the other stream
      touch<<<1, 32, 0, other>>>(p);
      e = cudaStreamSynchronize(other);
    } else if (variant == 1) { // a free and an allocation
      float *q;
      e = cudaMalloc(&q, 4096);
      if (e == cudaSuccess)
        e = cudaFree(q);
    } else if (variant == 2) { // a launch on the legacy stream
      touch<<<1, 32>>>(p);
      e = cudaStreamSynchronize(0);
    } else if (variant == 3) { // a module loaded and unloaded
      CUmodule m;
      CUresult r = cuModuleLoad(&m, "/tmp/touch.cubin");
      if (r == CUDA_SUCCESS)
        r = cuModuleUnload(m);
      e = r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    } else if (variant == 4) { // mapped host memory
      void *h;
      e = cudaHostAlloc(&h, 4, cudaHostAllocMapped);
      if (e == cudaSuccess)
        e = cudaFreeHost(h);
    } else { // a synchronous copy to the device
      float x[4] = {1, 2, 3, 4};
      e = cudaMemcpy(p, x, sizeof(x), cudaMemcpyHostToDevice);
    }
    cudaThreadExchangeStreamCaptureMode(&mode);
    cudaGraph_t g = nullptr;
    cudaError_t ended = cudaStreamEndCapture(captured, &g);
    printf("variant %d: work %s, end capture %s\n", variant,
           cudaGetErrorString(e), cudaGetErrorString(ended));
    if (g)
      cudaGraphDestroy(g);
    cudaGetLastError();
  }
  return 0;
}
