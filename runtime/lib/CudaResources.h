//===- CudaResources.h - Contexts, device memory and layers -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the RAII helpers (the primary
// context pushed for a scope, device memory freed on destruction) and what a
// layer of a loaded package holds on the device.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDARESOURCES_H
#define SPPERM_RUNTIME_LIB_CUDARESOURCES_H

#include "CudaStatus.h"
#include "KernelLaunch.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spperm::runtime_detail {

/// Makes the runtime's primary context current for a scope and restores the
/// caller's afterwards. Check `result` before relying on it.
class ScopedContext {
public:
  explicit ScopedContext(const Driver &d) : d(d) {
    result = d.api.cuCtxPushCurrent(d.context);
  }
  ~ScopedContext() {
    if (result == CUDA_SUCCESS) {
      CUcontext popped;
      d.api.cuCtxPopCurrent(&popped);
    }
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  CUresult result;

private:
  const Driver &d;
};

} // namespace spperm::runtime_detail

/// Pushes the primary context for the rest of the enclosing scope, or
/// returns the failure.
#define SPRT_SCOPED_CONTEXT(driver)                                            \
  ScopedContext scopedContext_(driver);                                        \
  if (scopedContext_.result != CUDA_SUCCESS)                                   \
  return cuFailure((driver).api, scopedContext_.result, "cuCtxPushCurrent",    \
                   __FILE__, __LINE__)

namespace spperm::runtime_detail {

/// This thread's stream-capture interaction mode set to relaxed for the
/// object's lifetime, then restored. A stream captured in the global mode
/// (torch.cuda.graph's default), by this thread or any other, makes the
/// driver refuse this thread's allocations, synchronous copies and frees,
/// and invalidates the capture: the per-stream state a call makes the
/// first time a captured stream is seen, a variant's arrays uploaded again,
/// a first call's timing and the frees after its decision. Every call of a
/// package runs in this mode (RuntimeABI.md, "CUDA graphs"); PyTorch's
/// caching allocator does the same around cudaMalloc. A driver without
/// cuThreadExchangeStreamCaptureMode leaves the mode as it is.
class RelaxedCaptureMode {
public:
  explicit RelaxedCaptureMode(const DriverApi &api) : api(api) {
    if (api.cuThreadExchangeStreamCaptureMode)
      exchanged = api.cuThreadExchangeStreamCaptureMode(&mode) ==
                  CUDA_SUCCESS;
  }
  ~RelaxedCaptureMode() {
    if (exchanged)
      api.cuThreadExchangeStreamCaptureMode(&mode);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  const DriverApi &api;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool exchanged = false;
};

/// Device memory, freed on destruction (with the primary context current,
/// which the owners ensure).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : d(other.d), ptr(std::exchange(other.ptr, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      reset();
      d = other.d;
      ptr = std::exchange(other.ptr, 0);
    }
    return *this;
  }

  /// Allocates `bytes` (none when 0).
  sprt_status allocate(const Driver &driver, size_t bytes) {
    reset();
    d = &driver;
    if (bytes == 0)
      return SPRT_OK;
    // Legal during a caller's global-mode capture (RelaxedCaptureMode).
    RelaxedCaptureMode relaxed(d->api);
    SPRT_CU_RETURN_IF_ERROR(d->api, d->api.cuMemAlloc(&ptr, bytes));
    return SPRT_OK;
  }
  /// Allocates and fills with `bytes` from `host`.
  sprt_status upload(const Driver &driver, const void *host, size_t bytes) {
    SPRT_RETURN_IF_ERROR(allocate(driver, bytes));
    if (bytes)
      SPRT_CU_RETURN_IF_ERROR(d->api, d->api.cuMemcpyHtoD(ptr, host, bytes));
    return SPRT_OK;
  }
  void reset() {
    if (ptr)
      d->api.cuMemFree(ptr);
    ptr = 0;
  }
  void *get() const { return reinterpret_cast<void *>(ptr); }

private:
  const Driver *d = nullptr;
  CUdeviceptr ptr = 0;
};

/// A layer array on the device (one of uploadedArrays), held by every
/// variant of the layer whose kernels take the same bytes (sameUpload: a
/// bell variant and its tensor-core twin, variants of one row order's
/// "order"), and freed with the last of them. Counted in
/// gpuResidentArrayBytes while it lives.
class ResidentArray {
public:
  ResidentArray() = default;
  ResidentArray(const ResidentArray &) = delete;
  ResidentArray &operator=(const ResidentArray &) = delete;
  ~ResidentArray();

  /// Allocates and fills `buffer` from `source` (narrowed to 16 bits where
  /// it is twoBytes; 16-bit values of type `valueType`) and counts it.
  sprt_status upload(const Driver &d, const UploadedArray &from,
                     ValueType valueType);

  /// What it was made from (for sameUpload). Its buffer points into the
  /// package's host storage, which outlives the backend (sprt_package).
  UploadedArray source;
  DeviceBuffer buffer;

private:
  /// The bytes counted in gpuResidentArrayBytes (0 until uploaded).
  uint64_t counted = 0;
};

/// The order a variant's launches keep across streams when its kernels use
/// module-level ticket counters (hbp kernels of packages made before the
/// counters became the kernels' "tickets" parameter): each launch waits for
/// the previous one, whatever its stream, through an event.
struct CrossStreamOrder {
  const Driver *d = nullptr;
  CUevent event = nullptr;
  /// The stream of the last launch (streamKey), once there is one.
  std::optional<uint64_t> lastStream;

  ~CrossStreamOrder() {
    if (event)
      d->api.cuEventDestroy(event);
  }
};

/// A layer on the device.
struct DeviceLayer {
  /// The shape and the number of entries of the layer's matrix.
  int64_t rows = 0, cols = 0, nnz = 0;
  /// The element types of B and C and of the values
  /// (PackageLayer::operandType, valueType).
  ValueType operandType = ValueType::F32;
  ValueType valueType = ValueType::F32;
  /// cuSPARSE's matrix: the CSR in the original row order, with csrNnz
  /// entries. Uploaded at load for a layer that may run through cuSPARSE,
  /// otherwise at its first cuSPARSE baseline (sprt_spmm_time).
  bool hasCsr = false;
  int64_t csrNnz = 0;
  DeviceBuffer rowPtr, colIdx, values;
  /// The layer arrays the generated kernels take (shared with the layer's
  /// other variants that take the same ones), and where each is, by name.
  std::vector<std::shared_ptr<const ResidentArray>> arrays;
  std::map<std::string, DeviceSpan, std::less<>> spans;
  /// Whether `arrays` are on the device: a checked layer's variants that no
  /// decided K bucket runs are released after each decision and uploaded
  /// again when a later first call times them (RuntimeABI.md, "Device
  /// memory").
  bool resident = false;
  /// Set (on the layer's own variant) once a call of a decided K bucket
  /// ran the layer's own kernels in place of the bucket's choice (an
  /// alternative without kernels for that K, a library call refused for
  /// it, or one that did not fit): those calls, and any CUDA graph that
  /// captured one, read the own variant's arrays, which then stay on the
  /// device (releaseUnchosen).
  bool fallenBackTo = false;
  /// The function of each of the layer's kernels (parallel to
  /// PackageLayer::kernels; null for the "cusparse" variant).
  std::vector<CUfunction> functions;
  /// The layer's transposing kernel (PackageLayer::transposeB; null when it
  /// has none).
  CUfunction transposeB = nullptr;
  /// The function of each of the variant's in-place kernels (parallel to
  /// PackageLayer::inPlaceB; null for one whose shared memory exceeds what
  /// this GPU allows a block, which is then no candidate).
  std::vector<CUfunction> inPlace;
  /// The layer's alternatives (parallel to PackageLayer::alternatives):
  /// their arrays and kernels.
  std::vector<DeviceLayer> alternatives;
  /// Set when the kernels keep their ticket counters in the module (older
  /// packages), so that launches on different streams must not overlap.
  std::unique_ptr<CrossStreamOrder> crossStreamOrder;

  /// Variant `which`, as PackageLayer::variant.
  const DeviceLayer &variant(size_t which) const {
    return which == 0 ? *this : alternatives[which - 1];
  }
};

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDARESOURCES_H
