//===- CudaLibraries.cpp - Loading the CUDA libraries -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Opens libcuda.so.1 and cuSPARSE with dlopen and fills the entry-point
// tables of CudaLibraries.h from CudaSymbols.def; initializes the driver and
// retains the primary context of one device (SPPERM_CUDA_DEVICE, default 0)
// for the life of the process.
//
//===----------------------------------------------------------------------===//

#include "CudaLibraries.h"
#include "CudaStatus.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::runtime_detail;

// Two levels, so that the argument is macro-expanded first: cuda.h maps
// e.g. cuMemAlloc to cuMemAlloc_v2, the symbol its prototype describes.
#define SPRT_STRINGIFY_EXPANDED(x) SPRT_STRINGIFY(x)
#define SPRT_STRINGIFY(x) #x

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

} // namespace

sprt_status spperm::runtime_detail::requireDriver(const Driver *&out) {
  const Driver &d = driverInstance();
  if (d.status != SPRT_OK)
    return failWith(d.status, d.error);
  out = &d;
  return SPRT_OK;
}

namespace {

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

/// Opens a CUDA library into `lib` (Cusparse or Cublas): $ENV_VAR when
/// set, else `names` through the loader's search path and then in the
/// toolkit this runtime was built against; `open(lib, path, error)` tries
/// one path. Failing all, records the first error in lib.status and
/// lib.error ("cannot load WHAT: ...").
template <typename Library, typename Open, size_t N>
void openFirst(Library &lib, const char *envVar, const char *(&names)[N],
               const char *what, Open open) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv(envVar); env && *env) {
    candidates.push_back(env);
  } else {
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
    if (open(lib, path, error))
      return;
    if (first.empty())
      first = error;
  }
  lib.status = SPRT_ERROR_DEVICE;
  lib.error = std::string("cannot load ") + what + ": " + first +
              " (also tried " + std::to_string(candidates.size() - 1) +
              " other name(s); set " + envVar + " to its path)";
}

/// Opens cuSPARSE: $SPPERM_CUSPARSE_LIBRARY, else the sonames of CUDA 12
/// and 13 and the plain name.
void initCusparse(Cusparse &s) {
  const char *names[] = {"libcusparse.so.12", "libcusparse.so.13",
                         "libcusparse.so"};
  openFirst(s, "SPPERM_CUSPARSE_LIBRARY", names, "cuSPARSE", openCusparse);
}

/// Tries `path` as the cuBLAS library; on success fills the table.
bool openCublas(Cublas &s, const std::string &path, std::string &error) {
  ::dlerror();
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = dlError();
    return false;
  }
  CublasApi api;
#define SPRT_CUBLAS(name)                                                      \
  api.name = reinterpret_cast<decltype(api.name)>(                             \
      ::dlsym(library, SPRT_STRINGIFY_EXPANDED(name)));                        \
  if (!api.name) {                                                             \
    error = path + " lacks " SPRT_STRINGIFY_EXPANDED(name);                    \
    ::dlclose(library);                                                        \
    return false;                                                              \
  }
#define SPRT_CUBLAS_OPTIONAL(name)                                             \
  api.name = reinterpret_cast<decltype(api.name)>(                             \
      ::dlsym(library, SPRT_STRINGIFY_EXPANDED(name)));
#include "CudaSymbols.def"
  s.api = api;
  s.path = path;
  return true;
}

/// Opens cuBLAS: $SPPERM_CUBLAS_LIBRARY, else the sonames of CUDA 13 and
/// 12 and the plain name.
void initCublas(Cublas &s) {
  const char *names[] = {"libcublas.so.13", "libcublas.so.12",
                         "libcublas.so"};
  openFirst(s, "SPPERM_CUBLAS_LIBRARY", names, "cuBLAS", openCublas);
}

} // namespace

const Cublas &spperm::runtime_detail::cublasInstance() {
  static const Cublas *instance = [] {
    auto *s = new Cublas;
    initCublas(*s);
    return s;
  }();
  return *instance;
}

sprt_status spperm::runtime_detail::sharedCublasHandles(const Cublas &library,
                                                        bool withLt,
                                                        cublasHandle_t &blas,
                                                        cublasLtHandle_t &lt) {
  static std::mutex mutex;
  static cublasHandle_t sharedBlas = nullptr;
  static cublasLtHandle_t sharedLt = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!sharedBlas) {
    cublasHandle_t created = nullptr;
    SPRT_CUBLAS_RETURN_IF_ERROR(library.api,
                                library.api.cublasCreate(&created));
    // Strict fp32: no rounding of the inputs to TF32.
    if (cublasStatus_t r =
            library.api.cublasSetMathMode(created, CUBLAS_DEFAULT_MATH);
        r != CUBLAS_STATUS_SUCCESS) {
      library.api.cublasDestroy(created);
      return cublasFailure(library.api, r, "cublasSetMathMode", __FILE__,
                           __LINE__);
    }
    sharedBlas = created;
  }
  if (withLt && !sharedLt)
    SPRT_CUBLAS_RETURN_IF_ERROR(library.api,
                                library.api.cublasLtCreate(&sharedLt));
  blas = sharedBlas;
  lt = sharedLt;
  return SPRT_OK;
}

std::mutex &spperm::runtime_detail::cublasStreamMutex() {
  static std::mutex mutex;
  return mutex;
}

const Cusparse &spperm::runtime_detail::cusparseInstance() {
  static const Cusparse *instance = [] {
    auto *s = new Cusparse;
    initCusparse(*s);
    return s;
  }();
  return *instance;
}

sprt_status spperm::runtime_detail::requireCusparse(const Cusparse *&out) {
  const Cusparse &s = cusparseInstance();
  if (s.status != SPRT_OK)
    return failWith(s.status, s.error);
  out = &s;
  return SPRT_OK;
}
