//===- CudaStatus.cpp - CUDA failures as runtime statuses -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The messages of failed driver and cuSPARSE calls: the error's name and
// text, the call, and the file:line of the call.
//
//===----------------------------------------------------------------------===//

#include "CudaStatus.h"

#include <cstring>
#include <string>

using namespace spperm;
using namespace spperm::runtime_detail;

namespace {

/// The last path component of __FILE__.
const char *baseName(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

} // namespace

std::string spperm::runtime_detail::cuErrorText(const DriverApi &api,
                                                CUresult result) {
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

sprt_status spperm::runtime_detail::cuFailure(const DriverApi &api,
                                              CUresult result, const char *expr,
                                              const char *file, int line) {
  return failWith(result == CUDA_ERROR_OUT_OF_MEMORY ? SPRT_ERROR_OUT_OF_MEMORY
                                                     : SPRT_ERROR_DEVICE,
                  cuErrorText(api, result) + " in " + expr + " at " +
                      baseName(file) + ":" + std::to_string(line));
}

sprt_status spperm::runtime_detail::cusparseFailure(const CusparseApi &api,
                                                    cusparseStatus_t result,
                                                    const char *expr,
                                                    const char *file,
                                                    int line) {
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

sprt_status spperm::runtime_detail::cublasFailure(const CublasApi &api,
                                                  cublasStatus_t result,
                                                  const char *expr,
                                                  const char *file, int line) {
  sprt_status status = SPRT_ERROR_DEVICE;
  if (result == CUBLAS_STATUS_ALLOC_FAILED)
    status = SPRT_ERROR_OUT_OF_MEMORY;
  else if (result == CUBLAS_STATUS_NOT_SUPPORTED)
    status = SPRT_ERROR_UNSUPPORTED;
  const char *name = api.cublasGetStatusName(result);
  const char *text = api.cublasGetStatusString(result);
  std::string message =
      name ? name : "cuBLAS error " + std::to_string(int(result));
  if (text)
    message += std::string(" (") + text + ")";
  return failWith(status, message + " in " + expr + " at " + baseName(file) +
                              ":" + std::to_string(line));
}

sprt_status spperm::runtime_detail::cuFailureIn(const DriverApi &api,
                                                CUresult result,
                                                const std::string &what,
                                                const char *file, int line,
                                                const std::string &detail) {
  return failWith(result == CUDA_ERROR_OUT_OF_MEMORY ? SPRT_ERROR_OUT_OF_MEMORY
                                                     : SPRT_ERROR_DEVICE,
                  cuErrorText(api, result) + " in " + what + " at " +
                      baseName(file) + ":" + std::to_string(line) +
                      (detail.empty() ? "" : ": " + detail));
}
