//===- CudaBackend.cpp - The GPU backend of the runtime ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The GPU backend, after IREE's CUDA driver (docs/STYLE.md section 4):
//
//  * Nothing CUDA is linked. libcuda.so.1 and libcusparse are opened with
//    dlopen at the first GPU use, and every entry point listed in
//    CudaSymbols.def is looked up with dlsym into a table of function
//    pointers typed from cuda.h / cusparse.h. A missing library, symbol or
//    device is an SPRT_ERROR_DEVICE with one line saying which, never a
//    crash; the outcome is kept, so later calls report the same.
//  * Every driver and cuSPARSE call is checked; a failure becomes a status
//    whose message names the error, the call and its file:line.
//  * One device (SPPERM_CUDA_DEVICE, default 0) and its primary context,
//    retained once for the life of the process and pushed around every
//    entry (ScopedContext) so that the caller's current context is left
//    alone.
//
// Two ways to run a layer, chosen per K (chooseLaunch, KernelLaunch.h):
//
//  * Generated kernels. At load, the package's module is loaded once (its
//    cubin when the package's target is the device's compute capability,
//    else kernels.ptx compiled by the driver's JIT), every kernel of every
//    layer is looked up and checked against the parameters its manifest
//    entry lists, and the layer arrays the kernels take are uploaded as
//    stored (permuted, in the layer's format). A call clears C when the
//    variant asks for it and enqueues the variant's kernels in manifest
//    order, each array passed as a 1-D memref descriptor (docs/RuntimeABI.md,
//    "Generated kernels"). The kernels write C in the original row order.
//  * cuSPARSE, for layers without kernels and the "cusparse" variant. The
//    layer is uploaded as the CSR of its matrix in the ORIGINAL row order
//    (toOriginalCsr), so cuSPARSE writes C in the original order and no
//    un-permutation step is needed. This is also the baseline the generated
//    kernels are compared with (sprt_spmm_time), for which a layer that
//    never runs through cuSPARSE gets its CSR uploaded at the first
//    baseline call. A call for a (layer, K, stream) first builds a Plan per
//    candidate cuSPARSE algorithm (descriptors, workspace, preprocessing),
//    times each briefly, and caches the fastest: later calls only rebind B
//    and C and enqueue.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "KernelLaunch.h"

#include <cuda.h>
#include <cusparse.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

// Two levels, so that the argument is macro-expanded first: cuda.h maps
// e.g. cuMemAlloc to cuMemAlloc_v2, the symbol its prototype describes.
#define SPRT_STRINGIFY_EXPANDED(x) SPRT_STRINGIFY(x)
#define SPRT_STRINGIFY(x) #x

namespace {

//===----------------------------------------------------------------------===//
// Libraries and entry points
//===----------------------------------------------------------------------===//

/// The driver entry points of CudaSymbols.def, typed from cuda.h.
struct DriverApi {
#define SPRT_CU(name) decltype(&::name) name = nullptr;
#include "CudaSymbols.def"
};

/// The cuSPARSE entry points of CudaSymbols.def, typed from cusparse.h.
struct CusparseApi {
#define SPRT_CUSPARSE(name) decltype(&::name) name = nullptr;
#include "CudaSymbols.def"
};

/// The loaded driver, the device and its retained primary context. Created
/// once per process and never destroyed (the context stays retained).
struct Driver {
  DriverApi api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int ordinal = 0;
  /// Kernels marked `dependent_launch` are launched as programmatic
  /// dependents of the kernel before them (cuLaunchKernelEx is there and
  /// SPPERM_DEPENDENT_LAUNCH is not 0).
  bool dependentLaunch = false;
  /// SPRT_OK when usable; otherwise why not.
  sprt_status status = SPRT_OK;
  std::string error;
};

/// The loaded cuSPARSE library. Created once per process.
struct Cusparse {
  CusparseApi api;
  /// 1000 * major + 100 * minor + patch.
  int version = 0;
  std::string path;
  sprt_status status = SPRT_OK;
  std::string error;
};

/// The last path component of __FILE__.
const char *baseName(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/// "CUDA_ERROR_X (text)" for a driver result.
std::string cuErrorText(const DriverApi &api, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  std::string out =
      name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

/// Records a failed driver call as this thread's error.
sprt_status cuFailure(const DriverApi &api, CUresult result, const char *expr,
                      const char *file, int line) {
  return failWith(result == CUDA_ERROR_OUT_OF_MEMORY ? SPRT_ERROR_OUT_OF_MEMORY
                                                     : SPRT_ERROR_DEVICE,
                  cuErrorText(api, result) + " in " + expr + " at " +
                      baseName(file) + ":" + std::to_string(line));
}

/// Records a failed cuSPARSE call as this thread's error. NOT_SUPPORTED
/// becomes SPRT_ERROR_UNSUPPORTED (an algorithm that does not apply).
sprt_status cusparseFailure(const CusparseApi &api, cusparseStatus_t result,
                            const char *expr, const char *file, int line) {
  sprt_status status = SPRT_ERROR_DEVICE;
  if (result == CUSPARSE_STATUS_ALLOC_FAILED)
    status = SPRT_ERROR_OUT_OF_MEMORY;
  else if (result == CUSPARSE_STATUS_NOT_SUPPORTED)
    status = SPRT_ERROR_UNSUPPORTED;
  const char *name = api.cusparseGetErrorName(result);
  const char *text = api.cusparseGetErrorString(result);
  std::string message =
      name ? name : "cuSPARSE error " + std::to_string(int(result));
  if (text)
    message += std::string(" (") + text + ")";
  return failWith(status, message + " in " + expr + " at " + baseName(file) +
                              ":" + std::to_string(line));
}

} // namespace

/// Returns from the enclosing function when the driver call `expr` fails.
#define SPRT_CU_RETURN_IF_ERROR(api, expr)                                     \
  do {                                                                         \
    if (CUresult result_ = (expr); result_ != CUDA_SUCCESS)                    \
      return cuFailure(api, result_, #expr, __FILE__, __LINE__);               \
  } while (0)

/// Returns from the enclosing function when the cuSPARSE call `expr` fails.
#define SPRT_CUSPARSE_RETURN_IF_ERROR(api, expr)                               \
  do {                                                                         \
    if (cusparseStatus_t result_ = (expr);                                     \
        result_ != CUSPARSE_STATUS_SUCCESS)                                    \
      return cusparseFailure(api, result_, #expr, __FILE__, __LINE__);         \
  } while (0)

/// Returns from the enclosing function when `expr` (an sprt_status) fails.
#define SPRT_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    if (sprt_status status_ = (expr); status_ != SPRT_OK)                      \
      return status_;                                                          \
  } while (0)

namespace {

/// dlerror() as a string ("" when none).
std::string dlError() {
  const char *e = ::dlerror();
  return e ? e : "";
}

/// Opens libcuda.so.1, resolves the table, initializes the driver and
/// retains the device's primary context.
void initDriver(Driver &d) {
  auto fail = [&d](std::string message) {
    d.status = SPRT_ERROR_DEVICE;
    d.error = std::move(message);
  };
  // Checked first, so that a bad value fails alike with and without a GPU.
  const char *dependentEnv = std::getenv("SPPERM_DEPENDENT_LAUNCH");
  if (dependentEnv && *dependentEnv && std::strcmp(dependentEnv, "0") != 0 &&
      std::strcmp(dependentEnv, "1") != 0)
    return fail("SPPERM_DEPENDENT_LAUNCH must be 0 or 1, got '" +
                std::string(dependentEnv) + "'");
  ::dlerror();
  void *library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return fail("cannot load the CUDA driver: " + dlError());
#define SPRT_CU(name)                                                          \
  d.api.name = reinterpret_cast<decltype(d.api.name)>(                        \
      ::dlsym(library, SPRT_STRINGIFY_EXPANDED(name)));                        \
  if (!d.api.name)                                                             \
    return fail("the CUDA driver libcuda.so.1 lacks " #name " (" +             \
                std::string(SPRT_STRINGIFY_EXPANDED(name)) +                   \
                "): it is older than this runtime needs");
#define SPRT_CU_OPTIONAL(name)                                                 \
  d.api.name = reinterpret_cast<decltype(d.api.name)>(                         \
      ::dlsym(library, SPRT_STRINGIFY_EXPANDED(name)));
#include "CudaSymbols.def"

  auto check = [&](CUresult result, const char *what) {
    if (result == CUDA_SUCCESS)
      return true;
    fail(cuErrorText(d.api, result) + " in " + what);
    return false;
  };
  if (!check(d.api.cuInit(0), "cuInit"))
    return;
  int count = 0;
  if (!check(d.api.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return;
  if (const char *env = std::getenv("SPPERM_CUDA_DEVICE"); env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end || value < 0 || value > 1024)
      return fail("SPPERM_CUDA_DEVICE must be a device ordinal, got '" +
                  std::string(env) + "'");
    d.ordinal = static_cast<int>(value);
  }
  d.dependentLaunch = d.api.cuLaunchKernelEx &&
                      !(dependentEnv && std::strcmp(dependentEnv, "0") == 0);
  if (count == 0)
    return fail("the CUDA driver reports no device");
  if (d.ordinal >= count)
    return fail("SPPERM_CUDA_DEVICE is " + std::to_string(d.ordinal) +
                ", but the driver reports " + std::to_string(count) +
                " device(s)");
  if (!check(d.api.cuDeviceGet(&d.device, d.ordinal), "cuDeviceGet"))
    return;
  if (!check(d.api.cuDevicePrimaryCtxRetain(&d.context, d.device),
             "cuDevicePrimaryCtxRetain"))
    return;
}

/// The process's driver (loaded on the first call).
const Driver &driverInstance() {
  static const Driver *instance = [] {
    auto *d = new Driver;
    initDriver(*d);
    return d;
  }();
  return *instance;
}

/// Sets `out` to the usable driver, or records why there is none.
sprt_status requireDriver(const Driver *&out) {
  const Driver &d = driverInstance();
  if (d.status != SPRT_OK)
    return failWith(d.status, d.error);
  out = &d;
  return SPRT_OK;
}

/// Tries `path` as the cuSPARSE library; on success fills the table.
bool openCusparse(Cusparse &s, const std::string &path, std::string &error) {
  ::dlerror();
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = dlError();
    return false;
  }
  CusparseApi api;
#define SPRT_CUSPARSE(name)                                                    \
  api.name =                                                                   \
      reinterpret_cast<decltype(api.name)>(::dlsym(library, #name));           \
  if (!api.name) {                                                             \
    error = path + " lacks " #name;                                            \
    ::dlclose(library);                                                        \
    return false;                                                              \
  }
#define SPRT_CUSPARSE_OPTIONAL(name)                                           \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(library, #name));
#include "CudaSymbols.def"
  s.api = api;
  s.path = path;
  int major = 0, minor = 0, patch = 0;
  api.cusparseGetProperty(MAJOR_VERSION, &major);
  api.cusparseGetProperty(MINOR_VERSION, &minor);
  api.cusparseGetProperty(PATCH_LEVEL, &patch);
  s.version = 1000 * major + 100 * minor + patch;
  return true;
}

/// Opens cuSPARSE: $SPPERM_CUSPARSE_LIBRARY when set, else the sonames of
/// CUDA 12 and 13 and the plain name, through the loader's search path and
/// then in the toolkit this runtime was built against.
void initCusparse(Cusparse &s) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("SPPERM_CUSPARSE_LIBRARY"); env && *env) {
    candidates.push_back(env);
  } else {
    const char *names[] = {"libcusparse.so.12", "libcusparse.so.13",
                           "libcusparse.so"};
    for (const char *name : names)
      candidates.push_back(name);
#ifdef SPPERM_CUDA_LIBRARY_DIR
    for (const char *name : names)
      candidates.push_back(std::string(SPPERM_CUDA_LIBRARY_DIR) + "/" + name);
#endif
  }
  std::string first;
  for (const std::string &path : candidates) {
    std::string error;
    if (openCusparse(s, path, error))
      return;
    if (first.empty())
      first = error;
  }
  s.status = SPRT_ERROR_DEVICE;
  s.error = "cannot load cuSPARSE: " + first + " (also tried " +
            std::to_string(candidates.size() - 1) +
            " other name(s); set SPPERM_CUSPARSE_LIBRARY to its path)";
}

/// The process's cuSPARSE (loaded on the first call).
const Cusparse &cusparseInstance() {
  static const Cusparse *instance = [] {
    auto *s = new Cusparse;
    initCusparse(*s);
    return s;
  }();
  return *instance;
}

/// Sets `out` to the usable cuSPARSE, or records why there is none.
sprt_status requireCusparse(const Cusparse *&out) {
  const Cusparse &s = cusparseInstance();
  if (s.status != SPRT_OK)
    return failWith(s.status, s.error);
  out = &s;
  return SPRT_OK;
}

//===----------------------------------------------------------------------===//
// RAII helpers
//===----------------------------------------------------------------------===//

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

/// Pushes the primary context for the rest of the enclosing scope, or
/// returns the failure.
#define SPRT_SCOPED_CONTEXT(driver)                                            \
  ScopedContext scopedContext_(driver);                                        \
  if (scopedContext_.result != CUDA_SUCCESS)                                   \
  return cuFailure((driver).api, scopedContext_.result, "cuCtxPushCurrent",    \
                   __FILE__, __LINE__)

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
  /// cuSPARSE's matrix: the CSR in the original row order, with csrNnz
  /// entries. Uploaded at load for a layer that may run through cuSPARSE,
  /// otherwise at its first cuSPARSE baseline (sprt_spmm_time).
  bool hasCsr = false;
  int64_t csrNnz = 0;
  DeviceBuffer rowPtr, colIdx, values;
  /// The layer arrays the generated kernels take, and where each is, by
  /// name.
  std::vector<DeviceBuffer> arrays;
  std::map<std::string, DeviceSpan, std::less<>> spans;
  /// The function of each of the layer's kernels (parallel to
  /// PackageLayer::kernels; null for the "cusparse" variant).
  std::vector<CUfunction> functions;
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

//===----------------------------------------------------------------------===//
// cuSPARSE plans
//===----------------------------------------------------------------------===//

/// A cuSPARSE algorithm and the variant name sprt_spmm_time knows it by.
struct Algorithm {
  const char *variant;
  bool spmv;
  int alg;
};

constexpr Algorithm kAlgorithms[] = {
    {"cusparse-spmm-default", false, CUSPARSE_SPMM_ALG_DEFAULT},
    {"cusparse-spmm-csr-alg2", false, CUSPARSE_SPMM_CSR_ALG2},
    {"cusparse-spmm-csr-alg3", false, CUSPARSE_SPMM_CSR_ALG3},
    {"cusparse-spmv-default", true, CUSPARSE_SPMV_ALG_DEFAULT},
    {"cusparse-spmv-csr-alg1", true, CUSPARSE_SPMV_CSR_ALG1},
    {"cusparse-spmv-csr-alg2", true, CUSPARSE_SPMV_CSR_ALG2},
};

/// One cuSPARSE call made ready for a layer, K and stream: descriptors,
/// workspace and preprocessing, so that run() only rebinds B and C and
/// enqueues.
class Plan {
public:
  Plan(const Cusparse &sp, cusparseHandle_t handle, const Algorithm &algorithm)
      : sp(sp), handle(handle), algorithm(algorithm) {}
  ~Plan() {
    const CusparseApi &api = sp.api;
    if (a)
      api.cusparseDestroySpMat(a);
    if (bMat)
      api.cusparseDestroyDnMat(bMat);
    if (cMat)
      api.cusparseDestroyDnMat(cMat);
    if (bVec)
      api.cusparseDestroyDnVec(bVec);
    if (cVec)
      api.cusparseDestroyDnVec(cVec);
  }
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;

  /// Builds the descriptors over `layer`, B and C, sizes and allocates the
  /// workspace, and preprocesses. The primary context must be current.
  sprt_status prepare(const Driver &d, const DeviceLayer &layer, int64_t k,
                      const float *b, float *c, CUstream stream) {
    assert(layer.hasCsr && "the layer's CSR is not on the device");
    const CusparseApi &api = sp.api;
    this->stream = stream;
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateCsr(
                 &a, layer.rows, layer.cols, layer.csrNnz, layer.rowPtr.get(),
                 layer.colIdx.get(), layer.values.get(), CUSPARSE_INDEX_32I,
                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseSetStream(handle, stream));
    size_t bytes = 0;
    if (algorithm.spmv) {
      if (k != 1)
        return failWith(SPRT_ERROR_UNSUPPORTED,
                        std::string(algorithm.variant) + " needs k = 1, got " +
                            std::to_string(k));
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseCreateDnVec(&bVec, layer.cols,
                                       const_cast<float *>(b), CUDA_R_32F));
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseCreateDnVec(&cVec, layer.rows, c, CUDA_R_32F));
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseSpMV_bufferSize(
                   handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bVec,
                   &zero, cVec, CUDA_R_32F, spmvAlg(), &bytes));
      SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
      if (api.cusparseSpMV_preprocess)
        SPRT_CUSPARSE_RETURN_IF_ERROR(
            api, api.cusparseSpMV_preprocess(
                     handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bVec,
                     &zero, cVec, CUDA_R_32F, spmvAlg(), buffer.get()));
      return SPRT_OK;
    }
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnMat(&bMat, layer.cols, k, k,
                                     const_cast<float *>(b), CUDA_R_32F,
                                     CUSPARSE_ORDER_ROW));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnMat(&cMat, layer.rows, k, k, c, CUDA_R_32F,
                                     CUSPARSE_ORDER_ROW));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSpMM_bufferSize(
                 handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                 CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bMat, &zero, cMat,
                 CUDA_R_32F, spmmAlg(), &bytes));
    SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSpMM_preprocess(
                 handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                 CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bMat, &zero, cMat,
                 CUDA_R_32F, spmmAlg(), buffer.get()));
    return SPRT_OK;
  }

  /// Enqueues C = A * B on the plan's stream.
  sprt_status run(const float *b, float *c) {
    const CusparseApi &api = sp.api;
    SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseSetStream(handle, stream));
    if (algorithm.spmv) {
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseDnVecSetValues(bVec, const_cast<float *>(b)));
      SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseDnVecSetValues(cVec, c));
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                a, bVec, &zero, cVec, CUDA_R_32F, spmvAlg(),
                                buffer.get()));
      return SPRT_OK;
    }
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseDnMatSetValues(bMat, const_cast<float *>(b)));
    SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseDnMatSetValues(cMat, c));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bMat,
                              &zero, cMat, CUDA_R_32F, spmmAlg(),
                              buffer.get()));
    return SPRT_OK;
  }

  const Algorithm &getAlgorithm() const { return algorithm; }

private:
  cusparseSpMMAlg_t spmmAlg() const {
    return static_cast<cusparseSpMMAlg_t>(algorithm.alg);
  }
  cusparseSpMVAlg_t spmvAlg() const {
    return static_cast<cusparseSpMVAlg_t>(algorithm.alg);
  }

  const Cusparse &sp;
  cusparseHandle_t handle;
  Algorithm algorithm;
  CUstream stream = nullptr;
  const float one = 1.0f, zero = 0.0f;
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnMatDescr_t bMat = nullptr, cMat = nullptr;
  cusparseDnVecDescr_t bVec = nullptr, cVec = nullptr;
  DeviceBuffer buffer;
};

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

/// Runs `launch` `warmup` times, then `runs` times between a pair of events
/// each, on `stream`; waits for the last and reads the times.
///
/// The timed runs are queued while the stream waits on a host flag (in
/// batches of 16, well within the driver's queue), so that the GPU runs
/// them back to back and the events time its work, not the rate at which
/// the host can launch (which is ~4.6 us per launch on the H100 and would
/// be the time of every small SpMM, spperm's and cuSPARSE's alike): the
/// "blocking kernel" of NVIDIA's nvbench. Drivers without stream memory
/// operations time the runs as they are launched.
sprt_status timeLaunches(const Driver &d, CUstream stream, int32_t warmup,
                         int32_t runs, float *timesMs,
                         const std::function<sprt_status()> &launch) {
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
  for (int32_t i = 0; i < 2 * runs; ++i) {
    CUevent e;
    SPRT_CU_RETURN_IF_ERROR(api, api.cuEventCreate(&e, CU_EVENT_DEFAULT));
    events.push_back(e);
  }
  constexpr int32_t kBatch = 16;
  for (int32_t first = 0; first < runs; first += kBatch) {
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
      for (int32_t i = first; i < std::min(runs, first + kBatch); ++i) {
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
  for (int32_t i = 0; i < runs; ++i)
    SPRT_CU_RETURN_IF_ERROR(api, api.cuEventElapsedTime(&timesMs[i],
                                                        events[2 * i],
                                                        events[2 * i + 1]));
  return SPRT_OK;
}

//===----------------------------------------------------------------------===//
// The backend
//===----------------------------------------------------------------------===//

/// "CUDA_ERROR_X (text) in WHAT at FILE:LINE" as this thread's error, for
/// a failed driver call that `what` describes in words.
sprt_status cuFailureIn(const DriverApi &api, CUresult result,
                        const std::string &what, const char *file, int line,
                        const std::string &detail = "") {
  return failWith(result == CUDA_ERROR_OUT_OF_MEMORY ? SPRT_ERROR_OUT_OF_MEMORY
                                                     : SPRT_ERROR_DEVICE,
                  cuErrorText(api, result) + " in " + what + " at " +
                      baseName(file) + ":" + std::to_string(line) +
                      (detail.empty() ? "" : ": " + detail));
}

/// `text` on one line: its lines joined with "; ", trailing space dropped.
std::string oneLine(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    if (!line.empty())
      out += (out.empty() ? "" : "; ") + std::string(line);
    start = end + 1;
  }
  return out;
}

/// The dynamic shared memory a kernel gets without opting in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;
/// The size of the JIT's error log buffer.
constexpr size_t kJitLogBytes = 16 * 1024;

class CudaBackend final : public Backend {
public:
  CudaBackend(const Driver &d, const Cusparse &sp) : d(d), sp(sp) {}

  ~CudaBackend() override {
    ScopedContext context(d);
    decisions.clear();
    tickets.clear();
    layers.clear();
    if (module)
      d.api.cuModuleUnload(module);
    if (handle)
      sp.api.cusparseDestroy(handle);
  }

  /// Creates the cuSPARSE handle, loads the package's module when a layer
  /// has generated kernels, and uploads what each layer runs with.
  sprt_status init(const Package &package) {
    SPRT_SCOPED_CONTEXT(d);
    SPRT_CUSPARSE_RETURN_IF_ERROR(sp.api, sp.api.cusparseCreate(&handle));
    SPRT_RETURN_IF_ERROR(loadModule(package));
    layers.resize(package.layers.size());
    for (size_t i = 0; i < package.layers.size(); ++i) {
      const PackageLayer &layer = package.layers[i];
      DeviceLayer &device = layers[i];
      device.rows = layer.matrix.rows;
      device.cols = layer.matrix.cols;
      device.nnz = layer.matrix.nnz;
      if (mayUseCusparse(layer))
        SPRT_RETURN_IF_ERROR(uploadCsr(layer, device));
      if (hasGeneratedKernels(layer))
        SPRT_RETURN_IF_ERROR(prepareKernels(layer, device));
      for (const PackageLayer &alternative : layer.alternatives) {
        DeviceLayer &alt = device.alternatives.emplace_back();
        alt.rows = device.rows;
        alt.cols = device.cols;
        alt.nnz = device.nnz;
        SPRT_RETURN_IF_ERROR(prepareKernels(alternative, alt));
      }
    }
    return SPRT_OK;
  }

  sprt_status spmm(int64_t index, const PackageLayer &layer, const float *b,
                   int64_t k, float *c, void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    SPRT_SCOPED_CONTEXT(d);
    std::function<sprt_status()> launch;
    SPRT_RETURN_IF_ERROR(packageLaunch(index, layer, b, k, c,
                                       static_cast<CUstream>(stream), launch));
    return launch();
  }

  sprt_status time(int64_t index, const PackageLayer &layer,
                   const std::string &variant, const float *b, int64_t k,
                   float *c, void *streamArg, int32_t warmup, int32_t runs,
                   float *timesMs) override {
    std::lock_guard<std::mutex> lock(mutex);
    SPRT_SCOPED_CONTEXT(d);
    auto stream = static_cast<CUstream>(streamArg);
    std::function<sprt_status()> launch;
    std::unique_ptr<Plan> baseline;
    if (variant == "spperm") {
      SPRT_RETURN_IF_ERROR(
          packageLaunch(index, layer, b, k, c, stream, launch));
    } else if (std::optional<size_t> which = parseVariantIndex(variant)) {
      // One of the layer's variants (0: the layer's own, n: its
      // alternative n), its generated kernels as they are: no check.
      if (*which > layer.alternatives.size())
        return failWith(SPRT_ERROR_UNSUPPORTED,
                        "layer '" + layer.name + "' has no variant " +
                            variant + " (it has " +
                            std::to_string(layer.alternatives.size()) +
                            " alternatives)");
      SPRT_RETURN_IF_ERROR(
          variantLaunch(index, layer, *which, b, k, c, stream, launch));
    } else {
      const Algorithm *algorithm = findAlgorithm(variant);
      if (!algorithm) {
        std::string names = "spperm";
        for (const Algorithm &a : kAlgorithms)
          names += std::string(", ") + a.variant;
        return failWith(SPRT_ERROR_UNSUPPORTED, "sprt_spmm_time: unknown "
                                                "variant '" +
                                                    variant + "' (known: " +
                                                    names + ", spperm:N)");
      }
      if (algorithm->spmv && k != 1)
        return failWith(SPRT_ERROR_UNSUPPORTED,
                        variant + " needs k = 1, got " + std::to_string(k));
      DeviceLayer &device = layers[index];
      if (device.rows == 0 || device.nnz == 0) {
        launch = trivialLaunch(device, k, c, stream);
      } else {
        if (!device.hasCsr)
          SPRT_RETURN_IF_ERROR(uploadCsr(layer, device));
        baseline = std::make_unique<Plan>(sp, handle, *algorithm);
        SPRT_RETURN_IF_ERROR(baseline->prepare(d, device, k, b, c, stream));
        Plan *plan = baseline.get();
        launch = [plan, b, c] { return plan->run(b, c); };
      }
    }
    return timeLaunches(d, stream, warmup, runs, timesMs, launch);
  }

private:
  /// N of a variant name "spperm:N" (decimal, at most 4 digits).
  static std::optional<size_t> parseVariantIndex(const std::string &variant) {
    constexpr std::string_view prefix = "spperm:";
    if (variant.size() <= prefix.size() || variant.size() > prefix.size() + 4 ||
        variant.compare(0, prefix.size(), prefix) != 0)
      return std::nullopt;
    size_t n = 0;
    for (char ch : variant.substr(prefix.size())) {
      if (ch < '0' || ch > '9')
        return std::nullopt;
      n = 10 * n + static_cast<size_t>(ch - '0');
    }
    return n;
  }

  /// Sets `launch` to variant `which` of layer `index` (its generated
  /// kernels for K, or only C's clearing for an empty matrix), unchecked;
  /// SPRT_ERROR_UNSUPPORTED when the variant has no generated kernels for
  /// K.
  sprt_status variantLaunch(int64_t index, const PackageLayer &layer,
                            size_t which, const float *b, int64_t k, float *c,
                            CUstream stream,
                            std::function<sprt_status()> &launch) {
    const PackageLayer &variant = layer.variant(which);
    const DeviceLayer &device = layers[index].variant(which);
    LaunchChoice choice;
    SPRT_RETURN_IF_ERROR(chooseLaunch(variant, k, choice));
    if (choice.cusparse)
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      "layer '" + layer.name + "': variant " +
                          std::to_string(which) + " runs no generated kernels");
    if (device.rows == 0 || device.nnz == 0) {
      launch = trivialLaunch(device, k, c, stream);
      return SPRT_OK;
    }
    return generatedLaunch(device, variant, choice, b, k, c, stream, launch);
  }

  static const Algorithm *findAlgorithm(const std::string &variant) {
    for (const Algorithm &a : kAlgorithms)
      if (variant == a.variant)
        return &a;
    return nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Loading
  //===--------------------------------------------------------------------===//

  /// Uploads `layer` as the CSR of its matrix in the original row order.
  sprt_status uploadCsr(const PackageLayer &layer, DeviceLayer &device) {
    const CsrMatrix csr = toOriginalCsr(layer.matrix);
    device.csrNnz = csr.nnz();
    SPRT_RETURN_IF_ERROR(device.rowPtr.upload(
        d, csr.rowPtr.data(), csr.rowPtr.size() * sizeof(int32_t)));
    SPRT_RETURN_IF_ERROR(device.colIdx.upload(
        d, csr.colIdx.data(), csr.colIdx.size() * sizeof(int32_t)));
    SPRT_RETURN_IF_ERROR(device.values.upload(
        d, csr.values.data(), csr.values.size() * sizeof(float)));
    device.hasCsr = true;
    return SPRT_OK;
  }

  /// Loads the package's module, when some layer has generated kernels: the
  /// cubin when the package's target is this device's compute capability,
  /// else kernels.ptx through the driver's JIT.
  sprt_status loadModule(const Package &package) {
    const PackageLayer *user = nullptr;
    for (const PackageLayer &layer : package.layers)
      if (hasGeneratedKernels(layer)) {
        user = &layer;
        break;
      }
    if (!user)
      return SPRT_OK;
    int major = 0, minor = 0;
    SPRT_CU_RETURN_IF_ERROR(
        d.api,
        d.api.cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device));
    SPRT_CU_RETURN_IF_ERROR(
        d.api,
        d.api.cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device));
    const std::string deviceArch =
        "sm_" + std::to_string(major) + std::to_string(minor);
    const std::string cubinFile = "kernels." + package.target + ".cubin";
    if (!package.cubin.empty() && targetMatches(package.target, major, minor)) {
      moduleFile = cubinFile;
      if (CUresult r = d.api.cuModuleLoadData(&module, package.cubin.data());
          r != CUDA_SUCCESS)
        return cuFailureIn(d.api, r, "cuModuleLoadData of " + moduleFile,
                           __FILE__, __LINE__);
      return SPRT_OK;
    }
    if (!package.ptx.empty()) {
      moduleFile = "kernels.ptx";
      std::vector<char> log(kJitLogBytes, '\0');
      CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                                CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {log.data(), reinterpret_cast<void *>(
                                        static_cast<uintptr_t>(log.size()))};
      if (CUresult r = d.api.cuModuleLoadDataEx(&module, package.ptx.c_str(), 2,
                                                options, values);
          r != CUDA_SUCCESS) {
        log.back() = '\0';
        return cuFailureIn(d.api, r,
                           "cuModuleLoadDataEx (the JIT of kernels.ptx for " +
                               deviceArch + ")",
                           __FILE__, __LINE__, oneLine(log.data()));
      }
      return SPRT_OK;
    }
    if (!package.cubin.empty())
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      "the package's kernels are compiled for " +
                          package.target + " only (" + cubinFile +
                          ", no kernels.ptx), but the GPU is " + deviceArch);
    return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                    "layer '" + user->name +
                        "' has generated kernels, but the package has no "
                        "kernels.ptx or " +
                        cubinFile);
  }

  /// Uploads the arrays the generated kernels of `layer` take, looks the
  /// kernels up in the module and checks each against its manifest entry.
  sprt_status prepareKernels(const PackageLayer &layer, DeviceLayer &device) {
    std::set<std::string_view> wanted;
    for (const KernelInfo &kernel : layer.kernels)
      if (isGenerated(kernel))
        wanted.insert(kernel.args.begin(), kernel.args.end());
    for (const LayerBuffer &buffer : layerBuffers(layer)) {
      if (!wanted.count(buffer.name))
        continue;
      const size_t bytes = buffer.count * (buffer.dtype == "i64" ? 8 : 4);
      DeviceBuffer array;
      SPRT_RETURN_IF_ERROR(array.upload(d, buffer.data, bytes));
      device.spans[std::string(buffer.name)] = {
          array.get(), static_cast<int64_t>(buffer.count)};
      device.arrays.push_back(std::move(array));
    }
    device.functions.assign(layer.kernels.size(), nullptr);
    for (size_t i = 0; i < layer.kernels.size(); ++i) {
      const KernelInfo &kernel = layer.kernels[i];
      if (!isGenerated(kernel))
        continue;
      const std::string where =
          "layer '" + layer.name + "': kernel '" + kernel.name + "'";
      // Every argument names an array that is now on the device.
      KernelParams params;
      SPRT_RETURN_IF_ERROR(
          bindKernelParams(layer.name, kernel, device.spans, {}, params));
      CUfunction function = nullptr;
      CUresult r =
          d.api.cuModuleGetFunction(&function, module, kernel.name.c_str());
      if (r == CUDA_ERROR_NOT_FOUND)
        return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                        where + " (variant '" + kernel.variant +
                            "') is not in " + moduleFile);
      if (r != CUDA_SUCCESS)
        return cuFailureIn(d.api, r, "cuModuleGetFunction for " + where,
                           __FILE__, __LINE__);
      SPRT_RETURN_IF_ERROR(checkParams(function, kernel, where));
      if (kernel.sharedBytes > kDefaultSharedBytes) {
        int optIn = 0;
        SPRT_CU_RETURN_IF_ERROR(
            d.api,
            d.api.cuDeviceGetAttribute(
                &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                d.device));
        if (kernel.sharedBytes > optIn)
          return failWith(SPRT_ERROR_UNSUPPORTED,
                          where + " needs " +
                              std::to_string(kernel.sharedBytes) +
                              " bytes of shared memory; this GPU allows " +
                              std::to_string(optIn) + " per block");
        SPRT_CU_RETURN_IF_ERROR(
            d.api,
            d.api.cuFuncSetAttribute(
                function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(kernel.sharedBytes)));
      }
      device.functions[i] = function;
    }
    // hbp kernels with competitive blocks that do not take "tickets" keep
    // their counters in the module (packages made before the parameter):
    // their launches are ordered across streams instead.
    bool moduleTickets = false;
    if (layer.matrix.kind == FormatKind::Hbp &&
        !layer.matrix.hbp.competitiveBlocks.empty())
      for (const KernelInfo &kernel : layer.kernels)
        moduleTickets =
            moduleTickets || (isGenerated(kernel) && !takesTickets(kernel));
    if (moduleTickets) {
      device.crossStreamOrder = std::make_unique<CrossStreamOrder>();
      device.crossStreamOrder->d = &d;
      SPRT_CU_RETURN_IF_ERROR(
          d.api, d.api.cuEventCreate(&device.crossStreamOrder->event,
                                     CU_EVENT_DISABLE_TIMING));
    }
    return SPRT_OK;
  }

  /// What identifies `stream` in the per-stream state (the cuSPARSE plans
  /// and first-call decisions, the ticket counters): its id
  /// (cuStreamGetId, CUDA 12.0), unique for the life of the process, so
  /// that the per-thread default streams of two threads
  /// (CU_STREAM_PER_THREAD, one handle) and a stream created where a
  /// destroyed one was are told apart; the handle where the driver has no
  /// stream ids.
  uint64_t streamKey(CUstream stream) const {
    unsigned long long id = 0;
    if (d.api.cuStreamGetId && d.api.cuStreamGetId(stream, &id) == CUDA_SUCCESS)
      return static_cast<uint64_t>(id);
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream));
  }

  /// Sets `out` to the ticket counters of `stream` (key `key`), allocated
  /// and cleared on that stream at its first use.
  sprt_status ticketsFor(CUstream stream, uint64_t key, DeviceSpan &out) {
    auto [it, fresh] = tickets.try_emplace(key);
    if (fresh) {
      sprt_status s = it->second.allocate(d, 2 * sizeof(int32_t));
      if (s == SPRT_OK)
        if (CUresult r = d.api.cuMemsetD32Async(
                reinterpret_cast<CUdeviceptr>(it->second.get()), 0, 2,
                stream);
            r != CUDA_SUCCESS)
          s = cuFailure(d.api, r, "cuMemsetD32Async of the ticket counters",
                        __FILE__, __LINE__);
      if (s != SPRT_OK) {
        tickets.erase(it);
        return s;
      }
    }
    out = {it->second.get(), 2};
    return SPRT_OK;
  }

  /// Checks that `function` takes the parameters `kernel`'s args make (5
  /// per array, 1 for K, each of 8 bytes), where the driver can tell
  /// (cuFuncGetParamInfo, CUDA 12.4): a mismatch would make cuLaunchKernel
  /// read garbage.
  sprt_status checkParams(CUfunction function, const KernelInfo &kernel,
                          const std::string &where) {
    if (!d.api.cuFuncGetParamInfo)
      return SPRT_OK;
    const size_t want = paramCount(kernel.args);
    size_t count = 0;
    std::string wrongSize;
    // Only parameters 0 .. want-1 are asked about: a probe past the last one
    // is an API error that tools such as compute-sanitizer report. (A kernel
    // with more parameters than its args make is therefore not caught.)
    for (; count < want; ++count) {
      size_t offset = 0, size = 0;
      CUresult r = d.api.cuFuncGetParamInfo(function, count, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE)
        break;
      if (r != CUDA_SUCCESS)
        return SPRT_OK; // The driver cannot tell for this function.
      if ((size != 8 || offset != 8 * count) && wrongSize.empty())
        wrongSize = "parameter " + std::to_string(count) + " has " +
                    std::to_string(size) + " bytes at offset " +
                    std::to_string(offset);
    }
    // No parameter at all is what a driver that cannot tell may answer too;
    // every kernel takes at least C.
    if ((count == want && wrongSize.empty()) || count == 0)
      return SPRT_OK;
    std::string found = wrongSize;
    if (count != want)
      found = "it takes " + std::to_string(count) + " parameters";
    return failWith(SPRT_ERROR_CORRUPT_PACKAGE,
                    where + " does not take the parameters its args make (" +
                        std::to_string(want) +
                        " of 8 bytes: 5 per array, 1 for K): " + found);
  }

  //===--------------------------------------------------------------------===//
  // Launching
  //===--------------------------------------------------------------------===//

  /// What C = A * B is for an empty matrix: nothing, or C = 0.
  std::function<sprt_status()> trivialLaunch(const DeviceLayer &layer,
                                             int64_t k, float *c,
                                             CUstream stream) {
    const Driver *driver = &d;
    const size_t count = static_cast<size_t>(layer.rows * k);
    return [driver, c, count, stream]() -> sprt_status {
      if (count == 0)
        return SPRT_OK;
      SPRT_CU_RETURN_IF_ERROR(
          driver->api,
          driver->api.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(c), 0,
                                       count, stream));
      return SPRT_OK;
    };
  }

  /// Sets `launch` to the package's computation of layer `index` for B, C
  /// and `stream`: the generated kernels of the variant chosen for K, or the
  /// cached cuSPARSE plan for (index, k, stream), chosen now if there is
  /// none.
  sprt_status packageLaunch(int64_t index, const PackageLayer &layer,
                            const float *b, int64_t k, float *c,
                            CUstream stream,
                            std::function<sprt_status()> &launch) {
    // Chosen first, so that a K no kernel accepts fails for empty layers
    // too.
    LaunchChoice choice;
    SPRT_RETURN_IF_ERROR(chooseLaunch(layer, k, choice));
    const DeviceLayer &device = layers[index];
    if (device.rows == 0 || device.nnz == 0) {
      launch = trivialLaunch(device, k, c, stream);
      return SPRT_OK;
    }
    Plan *p = nullptr;
    const uint64_t key = streamKey(stream);
    if (!choice.cusparse) {
      SPRT_RETURN_IF_ERROR(
          generatedLaunch(device, layer, choice, b, k, c, stream, launch));
      if (!layer.libraryCheck)
        return SPRT_OK;
      // The library check, at the first call for (layer, K, stream): the
      // fastest of the layer's variants (its own and its alternatives),
      // then cuSPARSE's plan when that was faster, null when the generated
      // kernels were.
      auto [checked, first] =
          decisions.try_emplace(std::make_tuple(index, k, key));
      if (first) {
        sprt_status s = decide(index, layer, b, k, c, stream, launch,
                               checked->second);
        if (s != SPRT_OK) {
          decisions.erase(checked);
          return s;
        }
      }
      if (!checked->second.library) {
        if (checked->second.variant != 0)
          SPRT_RETURN_IF_ERROR(variantLaunch(index, layer,
                                             checked->second.variant, b, k,
                                             c, stream, launch));
        return SPRT_OK;
      }
      p = checked->second.library.get();
    } else {
      std::unique_ptr<Plan> &plan = decisions[{index, k, key}].library;
      if (!plan)
        SPRT_RETURN_IF_ERROR(choosePlan(device, b, k, c, stream, plan));
      p = plan.get();
    }
    launch = [p, b, c] { return p->run(b, c); };
    return SPRT_OK;
  }

  /// One kernel launch of a variant, its parameters bound.
  struct Step {
    CUfunction function;
    const KernelInfo *kernel;
    KernelParams params;
    /// Launched as the programmatic dependent of the step before: the
    /// kernel is marked dependent_launch (it waits for that step itself,
    /// griddepcontrol.wait, before it touches C), is not the variant's
    /// first, and the driver allows it.
    bool dependent = false;
  };

  /// Sets `launch` to the kernels of `choice` for B, C and `stream`: C
  /// cleared first when the variant needs it, then each kernel in manifest
  /// order.
  sprt_status generatedLaunch(const DeviceLayer &device,
                              const PackageLayer &layer,
                              const LaunchChoice &choice, const float *b,
                              int64_t k, float *c, CUstream stream,
                              std::function<sprt_status()> &launch) {
    // The stream's id, only where per-stream state is needed: its ticket
    // counters, or the order of module-level ones across streams.
    CrossStreamOrder *order = device.crossStreamOrder.get();
    const bool needsTickets =
        std::any_of(choice.kernels.begin(), choice.kernels.end(),
                    [&](size_t i) { return takesTickets(layer.kernels[i]); });
    const uint64_t key = needsTickets || order ? streamKey(stream) : 0;
    LaunchOperands operands{{b, device.cols * k}, {c, device.rows * k}, k, {}};
    if (needsTickets)
      SPRT_RETURN_IF_ERROR(ticketsFor(stream, key, operands.tickets));
    auto steps = std::make_shared<std::vector<Step>>();
    for (size_t i : choice.kernels) {
      Step step{device.functions[i], &layer.kernels[i], KernelParams(),
                !steps->empty() && layer.kernels[i].dependentLaunch &&
                    d.dependentLaunch};
      assert(step.function && "a generated kernel was not looked up");
      SPRT_RETURN_IF_ERROR(bindKernelParams(
          layer.name, layer.kernels[i], device.spans, operands, step.params));
      steps->push_back(std::move(step));
    }
    const Driver *driver = &d;
    const std::string *layerName = &layer.name;
    const size_t cCount = static_cast<size_t>(device.rows * k);
    const bool zero = choice.zeroOutput;
    launch = [driver, steps, layerName, c, cCount, zero, stream, key,
              order]() -> sprt_status {
      const DriverApi &api = driver->api;
      // Module-level counters: wait for the variant's last launch when it
      // was on another stream (the calls are enqueued under the backend's
      // lock, so the order is total).
      if (order && order->lastStream && *order->lastStream != key)
        SPRT_CU_RETURN_IF_ERROR(api,
                                api.cuStreamWaitEvent(stream, order->event, 0));
      if (zero)
        SPRT_CU_RETURN_IF_ERROR(
            api, api.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(c), 0,
                                      cCount, stream));
      for (Step &step : *steps) {
        const KernelInfo &kernel = *step.kernel;
        // A dependent step starts (and reads A and B) while the one before
        // finishes; the variant's first kernel follows whatever came before
        // in the stream, in plain stream order.
        CUlaunchConfig config = {};
        config.gridDimX = static_cast<unsigned>(kernel.gridX);
        config.gridDimY = static_cast<unsigned>(kernel.gridY);
        config.gridDimZ = static_cast<unsigned>(kernel.gridZ);
        config.blockDimX = static_cast<unsigned>(kernel.blockX);
        config.blockDimY = static_cast<unsigned>(kernel.blockY);
        config.blockDimZ = static_cast<unsigned>(kernel.blockZ);
        config.sharedMemBytes = static_cast<unsigned>(kernel.sharedBytes);
        config.hStream = stream;
        CUlaunchAttribute dependent = {};
        dependent.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        dependent.value.programmaticStreamSerializationAllowed = 1;
        if (step.dependent) {
          config.attrs = &dependent;
          config.numAttrs = 1;
        }
        if (CUresult r =
                step.dependent
                    ? api.cuLaunchKernelEx(&config, step.function,
                                           step.params.pointers(), nullptr)
                    : api.cuLaunchKernel(
                          step.function, config.gridDimX, config.gridDimY,
                          config.gridDimZ, config.blockDimX, config.blockDimY,
                          config.blockDimZ, config.sharedMemBytes, stream,
                          step.params.pointers(), nullptr);
            r != CUDA_SUCCESS)
          return cuFailureIn(api, r,
                             "cuLaunchKernel of kernel '" + kernel.name +
                                 "' of layer '" + *layerName + "'",
                             __FILE__, __LINE__);
      }
      if (order) {
        SPRT_CU_RETURN_IF_ERROR(api, api.cuEventRecord(order->event, stream));
        order->lastStream = key;
      }
      return SPRT_OK;
    };
    return SPRT_OK;
  }

  /// The library check's timed runs per side, and how much faster than the
  /// library the generated kernels must be to be kept (their median at
  /// most this ratio of cuSPARSE's).
  static constexpr int kCheckRuns = 15;
  static constexpr float kCheckTieRatio = 0.98f;

  /// The library check: chooses the best cuSPARSE algorithm, then times it
  /// (1 warm-up, kCheckRuns queued runs) and `generated` (1 warm-up,
  /// kCheckRuns runs before the library's and kCheckRuns after) on this
  /// call's operands; sets `libraryPlan` to cuSPARSE's plan unless the
  /// generated kernels' median is at most kCheckTieRatio of the library's,
  /// else leaves it null. A layer cuSPARSE cannot run keeps its kernels
  /// (and the caller's last error).

  sprt_status checkAgainstLibrary(const DeviceLayer &device, const float *b,
                                  int64_t k, float *c, CUstream stream,
                                  const std::function<sprt_status()> &generated,
                                  std::unique_ptr<Plan> &libraryPlan,
                                  float *generatedOut = nullptr,
                                  float *libraryOut = nullptr) {
    std::unique_ptr<Plan> candidate;
    const std::string savedError = sprt_last_error();
    if (choosePlan(device, b, k, c, stream, candidate) != SPRT_OK) {
      failWith(SPRT_OK, savedError);
      return SPRT_OK;
    }
    // Both timed alike (1 warm-up, kCheckRuns queued runs, the median),
    // the generated kernels first and last so that a clock ramp favours
    // neither; they are kept only when clearly faster: a near tie goes to
    // the library, so the package is not slower than cuSPARSE by the noise
    // of this measurement either.
    Plan *library = candidate.get();
    float generatedMs[2 * kCheckRuns], libraryMs[kCheckRuns];
    SPRT_RETURN_IF_ERROR(
        timeLaunches(d, stream, 1, kCheckRuns, generatedMs, generated));
    SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, 1, kCheckRuns, libraryMs,
                                      [library, b, c] {
                                        return library->run(b, c);
                                      }));
    SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, 0, kCheckRuns,
                                      generatedMs + kCheckRuns, generated));
    std::sort(generatedMs, generatedMs + 2 * kCheckRuns);
    std::sort(libraryMs, libraryMs + kCheckRuns);
    const float generatedMedian =
        0.5f * (generatedMs[kCheckRuns - 1] + generatedMs[kCheckRuns]);
    if (generatedOut)
      *generatedOut = generatedMedian;
    if (libraryOut)
      *libraryOut = libraryMs[kCheckRuns / 2];
    if (generatedMedian > kCheckTieRatio * libraryMs[kCheckRuns / 2])
      libraryPlan = std::move(candidate);
    return SPRT_OK;
  }

  /// What runs a checked layer for a (K, stream): the variant whose
  /// generated kernels run (0: the layer's own, n: its alternative n), and
  /// cuSPARSE's plan instead when that was faster than them.
  struct Decision {
    size_t variant = 0;
    std::unique_ptr<Plan> library;
  };

  /// Decides for a checked layer at its first call for (K, stream): with
  /// alternatives, times every variant that accepts K (its generated
  /// kernels, 1 warm-up and kCheckRuns runs each, then kCheckRuns more in
  /// the reverse order, so that a clock ramp favours none; medians) and
  /// takes the fastest; then checks it against the library
  /// (checkAgainstLibrary). `launch` is variant 0's launch on entry and the
  /// chosen variant's on return. SPPERM_LOG_CHOICES=1 prints the times and
  /// the decision on stderr.
  sprt_status decide(int64_t index, const PackageLayer &layer, const float *b,
                     int64_t k, float *c, CUstream stream,
                     std::function<sprt_status()> &launch, Decision &out) {
    const DeviceLayer &device = layers[index];
    const size_t count = 1 + layer.alternatives.size();
    std::vector<std::function<sprt_status()>> launches(count);
    launches[0] = launch;
    const std::string savedError = sprt_last_error();
    for (size_t v = 1; v < count; ++v) {
      LaunchChoice choice;
      // An alternative without kernels for this K is not a candidate.
      if (chooseLaunch(layer.variant(v), k, choice) != SPRT_OK ||
          choice.cusparse) {
        failWith(SPRT_OK, savedError);
        continue;
      }
      SPRT_RETURN_IF_ERROR(generatedLaunch(device.variant(v), layer.variant(v),
                                           choice, b, k, c, stream,
                                           launches[v]));
    }
    std::vector<std::vector<float>> times(count);
    if (count > 1) {
      float ms[kCheckRuns];
      for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < count; ++i) {
          const size_t v = pass == 0 ? i : count - 1 - i;
          if (!launches[v])
            continue;
          SPRT_RETURN_IF_ERROR(timeLaunches(d, stream, pass == 0 ? 1 : 0,
                                            kCheckRuns, ms, launches[v]));
          times[v].insert(times[v].end(), ms, ms + kCheckRuns);
        }
    }
    std::vector<float> medians(count, -1.0f);
    for (size_t v = 0; v < count; ++v) {
      if (times[v].empty())
        continue;
      std::sort(times[v].begin(), times[v].end());
      medians[v] = 0.5f * (times[v][kCheckRuns - 1] + times[v][kCheckRuns]);
      if (medians[v] < medians[out.variant])
        out.variant = v;
    }
    launch = launches[out.variant];
    float generatedMs = 0.0f, libraryMs = 0.0f;
    SPRT_RETURN_IF_ERROR(checkAgainstLibrary(device, b, k, c, stream, launch,
                                             out.library, &generatedMs,
                                             &libraryMs));
    if (logChoices()) {
      std::string line = "spperm: layer '" + layer.name +
                         "', k = " + std::to_string(k) + ":";
      for (size_t v = 0; v < count; ++v) {
        const PackageLayer &variant = layer.variant(v);
        line += " " + std::string(formatName(variant.matrix.kind)) + "/" +
                std::string(strategyCliName(variant.permutation.strategy)) +
                " " +
                (medians[v] >= 0 ? std::to_string(medians[v]) + " ms"
                 : count > 1     ? std::string("(no kernels for this k)")
                                 : std::string("")) +
                ";";
      }
      line += " checked " + std::to_string(generatedMs) + " ms against " +
              "cuSPARSE " + std::to_string(libraryMs) + " ms: runs " +
              (out.library ? std::string("cuSPARSE")
                           : "variant " + std::to_string(out.variant));
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    return SPRT_OK;
  }

  /// SPPERM_LOG_CHOICES=1: the decisions of checked layers on stderr.
  static bool logChoices() {
    static const bool on = [] {
      const char *env = std::getenv("SPPERM_LOG_CHOICES");
      return env && std::string_view(env) == "1";
    }();
    return on;
  }

  /// Prepares every algorithm that applies to K, times each (1 warm-up,
  /// kCheckRuns queued runs, median), and keeps the fastest. An algorithm
  /// that fails (cuSPARSE refuses some for some shapes, not always with
  /// NOT_SUPPORTED) is skipped
  /// without touching the caller's last error, unless none works; running
  /// out of memory is returned at once.
  sprt_status choosePlan(const DeviceLayer &layer, const float *b, int64_t k,
                         float *c, CUstream stream, std::unique_ptr<Plan> &out) {
    const std::string savedError = sprt_last_error();
    std::string refusals;
    float bestMs = 0.0f;
    for (const Algorithm &algorithm : kAlgorithms) {
      if (algorithm.spmv && k != 1)
        continue;
      auto plan = std::make_unique<Plan>(sp, handle, algorithm);
      sprt_status s = plan->prepare(d, layer, k, b, c, stream);
      if (s == SPRT_OK) {
        Plan *p = plan.get();
        // As many runs as the library check takes: the algorithms of a
        // small layer are often within a few percent of each other.
        float times[kCheckRuns];
        s = timeLaunches(d, stream, 1, kCheckRuns, times,
                         [p, b, c] { return p->run(b, c); });
        if (s == SPRT_OK) {
          std::sort(times, times + kCheckRuns);
          if (!out || times[kCheckRuns / 2] < bestMs) {
            bestMs = times[kCheckRuns / 2];
            out = std::move(plan);
          }
        }
      }
      if (s == SPRT_ERROR_OUT_OF_MEMORY)
        return s;
      if (s != SPRT_OK)
        refusals += std::string(refusals.empty() ? "" : "; ") +
                    algorithm.variant + ": " + sprt_last_error();
    }
    if (!out)
      return failWith(SPRT_ERROR_DEVICE,
                      "no cuSPARSE algorithm ran for this layer and k = " +
                          std::to_string(k) + ": " + refusals);
    failWith(SPRT_OK, savedError);
    return SPRT_OK;
  }

  const Driver &d;
  const Cusparse &sp;
  cusparseHandle_t handle = nullptr;
  /// The package's generated kernels (null when no layer has any), and the
  /// file it came from, for messages.
  CUmodule module = nullptr;
  std::string moduleFile;
  std::vector<DeviceLayer> layers;
  /// Serializes the calls on this package (they share the handle and the
  /// plans; the work itself is only enqueued while it is held).
  std::mutex mutex;
  /// What runs per (layer, K, stream): the cuSPARSE plan of a library
  /// layer; for a layer with the library check, the variant that won and
  /// cuSPARSE's plan if that was faster (null when the generated kernels
  /// were).
  std::map<std::tuple<int64_t, int64_t, uint64_t>, Decision> decisions;
  /// The ticket counters (kTicketsArg) per stream (streamKey): launches on
  /// one stream run one after the other and leave them at zero, so one pair
  /// serves every kernel of the package on that stream.
  std::map<uint64_t, DeviceBuffer> tickets;
};

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

sprt_status spperm::runtime_detail::createCudaBackend(
    const Package &package, std::unique_ptr<Backend> &out) {
  const Driver *d = nullptr;
  const Cusparse *sp = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  SPRT_RETURN_IF_ERROR(requireCusparse(sp));
  auto backend = std::make_unique<CudaBackend>(*d, *sp);
  SPRT_RETURN_IF_ERROR(backend->init(package));
  out = std::move(backend);
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::gpuProperties(sprt_device_props &props) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  const DriverApi &api = d->api;
  sprt_device_props p;
  std::memset(&p, 0, sizeof p);
  p.ordinal = d->ordinal;
  SPRT_CU_RETURN_IF_ERROR(
      api, api.cuDeviceGetName(p.name, sizeof p.name - 1, d->device));
  int version = 0;
  SPRT_CU_RETURN_IF_ERROR(api, api.cuDriverGetVersion(&version));
  p.driver_version = version;
  size_t total = 0;
  SPRT_CU_RETURN_IF_ERROR(api, api.cuDeviceTotalMem(&total, d->device));
  p.total_memory_bytes = static_cast<int64_t>(total);
  // Attributes a driver may not report (clocks in recent ones) stay 0.
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    if (api.cuDeviceGetAttribute(&value, which, d->device) != CUDA_SUCCESS)
      return 0;
    return value;
  };
  p.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  p.memory_bus_width = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.l2_cache_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  const Cusparse &sp = cusparseInstance();
  p.cusparse_version = sp.status == SPRT_OK ? sp.version : 0;
  props = p;
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::gpuMalloc(int64_t bytes, void **ptr) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  if (bytes == 0) {
    *ptr = nullptr;
    return SPRT_OK;
  }
  SPRT_SCOPED_CONTEXT(*d);
  CUdeviceptr p = 0;
  SPRT_CU_RETURN_IF_ERROR(d->api,
                          d->api.cuMemAlloc(&p, static_cast<size_t>(bytes)));
  *ptr = reinterpret_cast<void *>(p);
  return SPRT_OK;
}

namespace {

/// Runs the driver call `call` (given the API table, returning a CUresult)
/// with the runtime's primary context current; a failure names `what`.
/// Fails like sprt_package_load where there is no usable driver.
template <typename Call>
sprt_status driverCall(const char *what, Call &&call) {
  const Driver *d = nullptr;
  SPRT_RETURN_IF_ERROR(requireDriver(d));
  SPRT_SCOPED_CONTEXT(*d);
  if (CUresult r = call(d->api); r != CUDA_SUCCESS)
    return cuFailure(d->api, r, what, __FILE__, __LINE__);
  return SPRT_OK;
}

CUdeviceptr devicePtr(const void *ptr) {
  return reinterpret_cast<CUdeviceptr>(ptr);
}

} // namespace

sprt_status spperm::runtime_detail::gpuFree(void *ptr) {
  if (!ptr)
    return SPRT_OK;
  return driverCall("cuMemFree", [&](const DriverApi &api) {
    return api.cuMemFree(devicePtr(ptr));
  });
}

// Copies of 0 bytes call nothing, but still need a usable driver.
sprt_status spperm::runtime_detail::gpuCopyToDevice(void *dst, const void *src,
                                                    int64_t bytes) {
  return driverCall("cuMemcpyHtoD", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyHtoD(devicePtr(dst), src,
                                         static_cast<size_t>(bytes));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToHost(void *dst, const void *src,
                                                  int64_t bytes) {
  return driverCall("cuMemcpyDtoH", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyDtoH(dst, devicePtr(src),
                                         static_cast<size_t>(bytes));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToDeviceAsync(void *dst,
                                                         const void *src,
                                                         int64_t bytes,
                                                         void *stream) {
  return driverCall("cuMemcpyHtoDAsync", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyHtoDAsync(devicePtr(dst), src,
                                              static_cast<size_t>(bytes),
                                              static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuCopyToHostAsync(void *dst,
                                                       const void *src,
                                                       int64_t bytes,
                                                       void *stream) {
  return driverCall("cuMemcpyDtoHAsync", [&](const DriverApi &api) {
    return bytes == 0 ? CUDA_SUCCESS
                      : api.cuMemcpyDtoHAsync(dst, devicePtr(src),
                                              static_cast<size_t>(bytes),
                                              static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuStreamCreate(void **stream) {
  return driverCall("cuStreamCreate", [&](const DriverApi &api) {
    CUstream created = nullptr;
    CUresult r = api.cuStreamCreate(&created, CU_STREAM_NON_BLOCKING);
    if (r == CUDA_SUCCESS)
      *stream = created;
    return r;
  });
}

sprt_status spperm::runtime_detail::gpuStreamDestroy(void *stream) {
  return driverCall("cuStreamDestroy", [&](const DriverApi &api) {
    return api.cuStreamDestroy(static_cast<CUstream>(stream));
  });
}

sprt_status spperm::runtime_detail::gpuStreamSynchronize(void *stream) {
  return driverCall("cuStreamSynchronize", [&](const DriverApi &api) {
    return api.cuStreamSynchronize(static_cast<CUstream>(stream));
  });
}
