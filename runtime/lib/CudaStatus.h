//===- CudaStatus.h - CUDA failures as runtime statuses ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend. Every driver and cuSPARSE call is
// checked; a failure becomes this thread's error (failWith), a status whose
// message names the error, the call and its file:line. The macros return
// from the enclosing function on failure.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUDASTATUS_H
#define SPPERM_RUNTIME_LIB_CUDASTATUS_H

#include "CudaLibraries.h"

#include <string>

namespace spperm::runtime_detail {

/// "CUDA_ERROR_X (text)" for a driver result.
std::string cuErrorText(const DriverApi &api, CUresult result);

/// Records a failed driver call as this thread's error.
sprt_status cuFailure(const DriverApi &api, CUresult result, const char *expr,
                      const char *file, int line);

/// Records a failed cuSPARSE call as this thread's error. NOT_SUPPORTED
/// becomes SPRT_ERROR_UNSUPPORTED (an algorithm that does not apply).
sprt_status cusparseFailure(const CusparseApi &api, cusparseStatus_t result,
                            const char *expr, const char *file, int line);

/// Records a failed cuBLAS call as this thread's error.
sprt_status cublasFailure(const CublasApi &api, cublasStatus_t result,
                          const char *expr, const char *file, int line);

/// "CUDA_ERROR_X (text) in WHAT at FILE:LINE" as this thread's error, for
/// a failed driver call that `what` describes in words.
sprt_status cuFailureIn(const DriverApi &api, CUresult result,
                        const std::string &what, const char *file, int line,
                        const std::string &detail = "");

} // namespace spperm::runtime_detail

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

/// Returns from the enclosing function when the cuBLAS call `expr` fails.
#define SPRT_CUBLAS_RETURN_IF_ERROR(api, expr)                                 \
  do {                                                                         \
    if (cublasStatus_t result_ = (expr); result_ != CUBLAS_STATUS_SUCCESS)     \
      return cublasFailure(api, result_, #expr, __FILE__, __LINE__);           \
  } while (0)

/// Returns from the enclosing function when `expr` (an sprt_status) fails.
#define SPRT_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    if (sprt_status status_ = (expr); status_ != SPRT_OK)                      \
      return status_;                                                          \
  } while (0)

#endif // SPPERM_RUNTIME_LIB_CUDASTATUS_H
