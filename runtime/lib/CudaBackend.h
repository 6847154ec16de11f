//===- CudaBackend.h - The GPU backend of the runtime -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime library. The GPU backend loads libcuda.so.1 and
// libcusparse at first use (dlopen; nothing CUDA is linked) and retains the
// primary context of one device for the life of the process. A package's
// layers run its generated kernels (the module loaded and the arrays
// uploaded once, at load), or cuSPARSE (SpMM, or SpMV for K = 1) on the
// layer's CSR in the original row order. Built only when CMake finds the
// CUDA toolkit (SPPERM_HAVE_CUDA); otherwise the C API reports
// SPRT_ERROR_UNSUPPORTED for the GPU (SpPermRuntime.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDABACKEND_H
#define SPPERM_RUNTIME_LIB_CUDABACKEND_H

#include "Backend.h"

#include <cstdint>
#include <memory>

namespace spperm::runtime_detail {

/// Creates the GPU backend of `package`: loads the libraries if needed,
/// loads the package's kernel module and uploads every layer.
/// SPRT_ERROR_DEVICE (with the loader's or driver's message) when there is
/// no usable GPU; SPRT_ERROR_CORRUPT_PACKAGE or SPRT_ERROR_UNSUPPORTED when
/// the package's kernels cannot run here (docs/RuntimeABI.md).
sprt_status createCudaBackend(const Package &package,
                              std::unique_ptr<Backend> &out);

/// The first-call decisions the GPU backends of this process have made (for
/// tests and diagnostics): by timing the candidates, and by taking the
/// tuning cache's entry.
struct DecisionCounts {
  uint64_t timed = 0;
  uint64_t cached = 0;
};

/// The counts so far.
DecisionCounts gpuDecisionCounts();

/// The bytes of layer-variant arrays the GPU backends of this process hold
/// on the device now (for tests and diagnostics: releaseUnchosen).
uint64_t gpuResidentArrayBytes();

/// The per-stream scratch buffers (accumulators, row-major Bs) the GPU
/// backends of this process have allocated so far (for tests and
/// diagnostics).
uint64_t gpuScratchAllocations();

/// The C API's device helpers (sprt_device_properties, sprt_device_malloc,
/// ...), arguments already checked.
sprt_status gpuProperties(sprt_device_props &props);
sprt_status gpuMalloc(int64_t bytes, void **ptr);
sprt_status gpuFree(void *ptr);
sprt_status gpuCopyToDevice(void *dst, const void *src, int64_t bytes);
sprt_status gpuCopyToHost(void *dst, const void *src, int64_t bytes);
sprt_status gpuCopyToDeviceAsync(void *dst, const void *src, int64_t bytes,
                                 void *stream);
sprt_status gpuCopyToHostAsync(void *dst, const void *src, int64_t bytes,
                               void *stream);
sprt_status gpuStreamCreate(void **stream);
sprt_status gpuStreamDestroy(void *stream);
sprt_status gpuStreamSynchronize(void *stream);

/// Stream capture for the tests (the C API has none): begins capturing
/// `stream` in the global mode (torch.cuda.graph's default); ends the
/// capture and instantiates what it holds as `*graph` (with, where
/// `memoryNodes` is given, the number of its memory allocation and free
/// nodes there); launches `graph` on `stream`; destroys it.
sprt_status gpuBeginGlobalCapture(void *stream);
sprt_status gpuEndCapture(void *stream, void **graph,
                          int64_t *memoryNodes = nullptr);
sprt_status gpuGraphLaunch(void *graph, void *stream);
void gpuGraphDestroy(void *graph);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDABACKEND_H
