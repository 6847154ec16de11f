//===- capture_beside.cu - A package's calls beside a capture -*- CUDA -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A package's calls while another stream of the process is being captured
// in the global mode (docs/RuntimeABI.md, "CUDA graphs"), one step at a
// time, with the capture's status after each: which step, if any, leaves
// the capture invalidated. Made to find what compute-sanitizer refuses in
// GpuCaptureTest.PackageCallsBesideAGlobalCapture, where the capture ends
// invalidated under the sanitizer only.
//
//   capture_beside PACKAGE [thread|here] STEP...
//
// The capture is begun on another thread (`thread`, the default) or on
// this one (`here`) before the first step. Steps:
//   load, release       sprt_package_load / sprt_package_release;
//   K (a number)        sprt_spmm at that K on the legacy default stream;
//   sync                sprt_stream_synchronize of a stream made before the
//                       capture (a call of the caller's: the capture
//                       refuses it);
//   preload             (first step only) the load before the capture.
// And the calls a release makes, one at a time, in the thread's relaxed
// capture mode as the runtime makes them, on what was made before the
// capture: `x-free` (cuMemFree), `x-free-many` (64 buffers of 256 B to
// 16 MiB), `x-unload` (cuModuleUnload of an empty kernel's PTX),
// `x-unload-cubin` (of the package's kernels.sm_90.cubin),
// `x-unload-resolved` (of a copy whose functions were enumerated first),
// `x-unload-named` (of one whose kernels were looked up by name, as the
// runtime does), `x-unload-params` (and their parameters asked too),
// `x-cusparse` (cusparseDestroy), `x-event` (cuEventDestroy); or made and
// released during the capture: `x-alloc-free`, `x-load-unload`,
// `x-load-unload-cubin`, `x-create-destroy`, `x-event-fresh`.
// The output is one line a step, its status and the capture's; C is only
// checked to be finite, after the capture. A runtime built with
// docs/results/workspace-2026-12-07-s73/release-probe.patch also prints
// the capture's status after each step of its release.
//
// Build and run on the GPU machine (B: a build of the runtime):
//   nvcc -O2 -std=c++17 -o /tmp/capture_beside tools/lab/capture_beside.cu \
//        -Iruntime/include -L$B/lib -lspperm_runtime -lcuda -lcusparse \
//        -Xlinker -rpath=$B/lib
//   compute-sanitizer /tmp/capture_beside cora.csr.spp thread load 1 1 5 32
//
//===----------------------------------------------------------------------===//

#include "spperm/Runtime/SpPermRuntime.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *captureName(cudaStreamCaptureStatus s) {
  switch (s) {
  case cudaStreamCaptureStatusNone:
    return "none";
  case cudaStreamCaptureStatusActive:
    return "active";
  case cudaStreamCaptureStatusInvalidated:
    return "INVALIDATED";
  }
  return "?";
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PACKAGE [thread|here] STEP...\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  int first = 2;
  bool otherThread = true;
  if (!std::strcmp(argv[2], "thread") || !std::strcmp(argv[2], "here")) {
    otherThread = !std::strcmp(argv[2], "thread");
    first = 3;
  }
  // The package's shape, and every B and C, before the capture.
  sprt_package *probe = nullptr;
  if (sprt_package_load(path, SPRT_DEVICE_GPU, &probe) != SPRT_OK) {
    std::fprintf(stderr, "load: %s\n", sprt_last_error());
    return 1;
  }
  sprt_layer_desc desc{};
  sprt_layer_info(probe, 0, &desc);
  const int64_t rows = desc.rows, cols = desc.cols;
  sprt_package_release(probe);
  std::vector<int64_t> ks;
  for (int i = first; i < argc; ++i)
    if (std::atoi(argv[i]) > 0)
      ks.push_back(std::atoi(argv[i]));
  int64_t kMax = 1;
  for (int64_t k : ks)
    kMax = std::max(kMax, k);
  float *b = nullptr, *c = nullptr;
  cudaMalloc(&b, cols * kMax * sizeof(float));
  cudaMalloc(&c, rows * kMax * sizeof(float));
  std::vector<float> ones(static_cast<size_t>(cols * kMax), 1.0f);
  cudaMemcpy(b, ones.data(), ones.size() * sizeof(float), cudaMemcpyDefault);
  void *ownStream = nullptr;
  sprt_stream_create(&ownStream);
  cudaStream_t captured;
  cudaStreamCreateWithFlags(&captured, cudaStreamNonBlocking);
  // For a runtime built with release-probe.patch (its README): the stream
  // whose capture status its release prints after each step.
  char probeStream[32];
  std::snprintf(probeStream, sizeof probeStream, "%llx",
                static_cast<unsigned long long>(
                    reinterpret_cast<uintptr_t>(captured)));
  setenv("SPRT_LAB_PROBE_STREAM", probeStream, 1);
  // What the x- steps release.
  cudaFree(nullptr);
  CUdeviceptr freed = 0;
  cuMemAlloc(&freed, 1 << 20);
  CUmodule module = nullptr;
  const char *ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry empty() { ret; }\n";
  cuModuleLoadData(&module, ptx);
  std::vector<char> cubin;
  CUmodule cubinModule = nullptr, resolvedModule = nullptr,
           namedModule = nullptr, paramsModule = nullptr;
  if (FILE *f = std::fopen((std::string(path) + "/kernels.sm_90.cubin").c_str(),
                           "rb")) {
    char chunk[65536];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;)
      cubin.insert(cubin.end(), chunk, chunk + n);
    std::fclose(f);
    cuModuleLoadData(&cubinModule, cubin.data());
    // A second copy whose functions are resolved, as a package load does.
    cuModuleLoadData(&resolvedModule, cubin.data());
    unsigned count = 0;
    cuModuleGetFunctionCount(&count, resolvedModule);
    std::vector<CUfunction> functions(count);
    cuModuleEnumerateFunctions(functions.data(), count, resolvedModule);
    std::printf("resolved %u functions of the cubin\n", count);
    // Two more copies, their kernels looked up by name as the runtime
    // does (lookUpKernel), the second also with each parameter's place
    // asked (checkParams).
    for (CUmodule *copy : {&namedModule, &paramsModule}) {
      cuModuleLoadData(copy, cubin.data());
      for (CUfunction f : functions) {
        const char *name = nullptr;
        CUfunction named = nullptr;
        if (cuFuncGetName(&name, f) != CUDA_SUCCESS ||
            cuModuleGetFunction(&named, *copy, name) != CUDA_SUCCESS)
          continue;
        if (copy == &paramsModule)
          for (size_t i = 0;; ++i) {
            size_t offset = 0, size = 0;
            if (cuFuncGetParamInfo(named, i, &offset, &size) != CUDA_SUCCESS)
              break;
          }
      }
    }
  }
  cusparseHandle_t sparse = nullptr;
  cusparseCreate(&sparse);
  std::vector<CUdeviceptr> many(64);
  for (size_t i = 0; i < many.size(); ++i)
    cuMemAlloc(&many[i], size_t{256} << (i % 17));
  CUevent event = nullptr;
  cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
  cudaDeviceSynchronize();

  sprt_package *p = nullptr;
  if (first < argc && !std::strcmp(argv[first], "preload")) {
    if (sprt_package_load(path, SPRT_DEVICE_GPU, &p) != SPRT_OK) {
      std::fprintf(stderr, "preload: %s\n", sprt_last_error());
      return 1;
    }
    ++first;
  }

  // The capture, begun here or on another thread that waits to end it.
  std::mutex m;
  std::condition_variable cv;
  bool begun = false, done = false;
  cudaError_t endStatus = cudaSuccess;
  auto endCapture = [&] {
    cudaGraph_t graph = nullptr;
    endStatus = cudaStreamEndCapture(captured, &graph);
    if (graph)
      cudaGraphDestroy(graph);
  };
  std::thread capturer;
  if (otherThread) {
    capturer = std::thread([&] {
      cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal);
      std::unique_lock<std::mutex> lock(m);
      begun = true;
      cv.notify_all();
      cv.wait(lock, [&] { return done; });
      endCapture();
    });
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return begun; });
  } else {
    cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal);
  }

  for (int i = first; i < argc; ++i) {
    const std::string step = argv[i];
    sprt_status s = SPRT_OK;
    std::string detail;
    if (step == "load") {
      s = sprt_package_load(path, SPRT_DEVICE_GPU, &p);
    } else if (step == "release") {
      sprt_package_release(p);
      p = nullptr;
    } else if (step == "sync") {
      s = sprt_stream_synchronize(ownStream);
    } else if (step.rfind("x-", 0) == 0) {
      CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
      cuThreadExchangeStreamCaptureMode(&mode);
      int r = 0;
      if (step == "x-free")
        r = cuMemFree(freed);
      else if (step == "x-unload")
        r = cuModuleUnload(module);
      else if (step == "x-free-many") {
        for (CUdeviceptr m : many)
          r = r ? r : cuMemFree(m);
      } else if (step == "x-event")
        r = cuEventDestroy(event);
      else if (step == "x-event-fresh") {
        CUevent fresh = nullptr;
        r = cuEventCreate(&fresh, CU_EVENT_DISABLE_TIMING);
        if (r == 0)
          r = cuEventDestroy(fresh);
      } else if (step == "x-unload-cubin")
        r = cubinModule ? cuModuleUnload(cubinModule) : -2;
      else if (step == "x-unload-resolved")
        r = resolvedModule ? cuModuleUnload(resolvedModule) : -2;
      else if (step == "x-unload-named")
        r = namedModule ? cuModuleUnload(namedModule) : -2;
      else if (step == "x-unload-params")
        r = paramsModule ? cuModuleUnload(paramsModule) : -2;
      else if (step == "x-load-unload-cubin") {
        CUmodule fresh = nullptr;
        r = cubin.empty() ? -2 : cuModuleLoadData(&fresh, cubin.data());
        if (r == 0)
          r = cuModuleUnload(fresh);
      } else if (step == "x-cusparse")
        r = cusparseDestroy(sparse);
      else if (step == "x-alloc-free") {
        CUdeviceptr fresh = 0;
        r = cuMemAlloc(&fresh, 1 << 20);
        if (r == 0)
          r = cuMemFree(fresh);
      } else if (step == "x-load-unload") {
        CUmodule fresh = nullptr;
        r = cuModuleLoadData(&fresh, ptx);
        if (r == 0)
          r = cuModuleUnload(fresh);
      } else if (step == "x-create-destroy") {
        cusparseHandle_t fresh = nullptr;
        r = cusparseCreate(&fresh);
        if (r == 0)
          r = cusparseDestroy(fresh);
      }
      else
        r = -1;
      cuThreadExchangeStreamCaptureMode(&mode);
      s = r == 0 ? SPRT_OK : SPRT_ERROR_DEVICE;
      if (r == -1) {
        std::fprintf(stderr, "unknown step '%s'\n", step.c_str());
        return 2;
      }
    } else if (const int k = std::atoi(step.c_str()); k > 0) {
      s = sprt_spmm(p, 0, b, k, c, nullptr);
      // Checked after the capture (a copy now would be refused).
    } else {
      std::fprintf(stderr, "unknown step '%s'\n", step.c_str());
      return 2;
    }
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t q = cudaStreamIsCapturing(captured, &status);
    std::printf("step %-8s status %d%s%s  capture %s%s\n", step.c_str(),
                static_cast<int>(s), s != SPRT_OK ? " " : "",
                s != SPRT_OK ? sprt_last_error() : "", captureName(status),
                q != cudaSuccess ? " (query failed)" : "");
    std::fflush(stdout);
  }
  if (otherThread) {
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_all();
    capturer.join();
  } else {
    endCapture();
  }
  std::printf("end capture: %s\n", cudaGetErrorString(endStatus));
  if (p)
    sprt_package_release(p);
  std::vector<float> out(static_cast<size_t>(rows * kMax));
  cudaDeviceSynchronize();
  cudaMemcpy(out.data(), c, out.size() * sizeof(float), cudaMemcpyDefault);
  int finite = 0;
  for (float v : out)
    finite += std::isfinite(v);
  std::printf("C of the last call: %d of %zu finite\n", finite, out.size());
  sprt_stream_destroy(ownStream);
  return endStatus == cudaSuccess ? 0 : 1;
}
