//===- CudaLibraries.h - The driver and cuSPARSE, loaded --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend. Nothing CUDA is linked: libcuda.so.1
// and libcusparse are opened with dlopen at the first GPU use, and every entry
// point listed in CudaSymbols.def is looked up with dlsym into a table of
// function pointers typed from cuda.h / cusparse.h (CudaLibraries.cpp). A
// missing library, symbol or device is an SPRT_ERROR_DEVICE with one line
// saying which, never a crash; the outcome is kept, so later calls report the
// same.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDALIBRARIES_H
#define SPPERM_RUNTIME_LIB_CUDALIBRARIES_H

#include "Backend.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cusparse.h>

#include <mutex>
#include <string>

namespace spperm::runtime_detail {

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

/// The cuBLAS and cuBLASLt entry points of CudaSymbols.def, typed from
/// cublas_v2.h and cublasLt.h.
struct CublasApi {
#define SPRT_CUBLAS(name) decltype(&::name) name = nullptr;
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

/// The loaded cuBLAS library and its cuBLASLt (for the dense candidate).
/// Created once per process, at the first dense candidate.
struct Cublas {
  /// Whether every cuBLASLt entry point was found (SPRT_CUBLAS_OPTIONAL).
  bool hasLt() const {
#define SPRT_CUBLAS_OPTIONAL(name)                                             \
  if (!api.name)                                                               \
    return false;
#include "CudaSymbols.def"
    return true;
  }

  CublasApi api;
  std::string path;
  sprt_status status = SPRT_OK;
  std::string error;
};

/// The CUDA library type of `type`'s elements.
inline cudaDataType dataTypeOf(ValueType type) {
  switch (type) {
  case ValueType::F16:
    return CUDA_R_16F;
  case ValueType::BF16:
    return CUDA_R_16BF;
  case ValueType::F32:
    break;
  }
  return CUDA_R_32F;
}

/// The process's cuSPARSE (loaded on the first call).
const Cusparse &cusparseInstance();

/// The process's cuBLAS (loaded on the first call; $SPPERM_CUBLAS_LIBRARY,
/// else the CUDA 13 and 12 sonames).
const Cublas &cublasInstance();

/// The process's cuBLAS handle (strict fp32 math) and, where `withLt`, its
/// cuBLASLt handle, created by the first call that asks for each (in the
/// runtime's primary context, current then) and shared by every package.
/// Never destroyed: cublasDestroy synchronizes the device, which a stream
/// captured anywhere in the process refuses, invalidating that capture
/// (RuntimeABI.md, "CUDA graphs"), as a package's release may come at any
/// time. The cuBLAS handle's stream is set per call: hold
/// cublasStreamMutex() from cublasSetStream through the call that runs on
/// it (cuBLASLt takes the stream as an argument).
sprt_status sharedCublasHandles(const Cublas &library, bool withLt,
                                cublasHandle_t &blas, cublasLtHandle_t &lt);

/// Orders the calls on the shared cuBLAS handle (sharedCublasHandles).
std::mutex &cublasStreamMutex();

/// Sets `out` to the usable driver, or records why there is none.
sprt_status requireDriver(const Driver *&out);

/// Sets `out` to the usable cuSPARSE, or records why there is none.
sprt_status requireCusparse(const Cusparse *&out);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUDALIBRARIES_H
