//===- DensePlan.cpp - cuBLAS SGEMM on the densified matrix -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "DensePlan.h"

#include <climits>
#include <string>

using namespace spperm;
using namespace spperm::runtime_detail;

sprt_status DensePlan::prepare(const void *dense, int64_t rowsIn,
                               int64_t colsIn, int64_t kIn, CUstream s) {
  if (rowsIn > INT_MAX || colsIn > INT_MAX || kIn > INT_MAX)
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    std::string(kDenseVariant) +
                        ": a dimension exceeds cuBLAS's 32-bit int");
  a = static_cast<const float *>(dense);
  rows = static_cast<int>(rowsIn);
  cols = static_cast<int>(colsIn);
  k = static_cast<int>(kIn);
  stream = s;
  return SPRT_OK;
}

sprt_status DensePlan::run(const void *b, void *c) {
  const CublasApi &api = blas.api;
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasSetStream(handle, reinterpret_cast<cudaStream_t>(stream)));
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, rows, cols,
                           &one, static_cast<const float *>(b), k, a, cols,
                           &zero, static_cast<float *>(c), k));
  return SPRT_OK;
}

sprt_status spperm::runtime_detail::densify(const Driver &d,
                                            const Cusparse &sp,
                                            cusparseHandle_t handle,
                                            const DeviceLayer &layer,
                                            CUstream stream,
                                            DeviceBuffer &out) {
  const CusparseApi &api = sp.api;
  if (!api.cusparseSparseToDense || !api.cusparseSparseToDense_bufferSize)
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    "this cuSPARSE lacks cusparseSparseToDense");
  SPRT_RETURN_IF_ERROR(out.allocate(
      d, static_cast<size_t>(layer.rows) * static_cast<size_t>(layer.cols) *
             sizeof(float)));
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnMatDescr_t dense = nullptr;
  DeviceBuffer buffer;
  auto cleanup = [&] {
    if (a)
      api.cusparseDestroySpMat(a);
    if (dense)
      api.cusparseDestroyDnMat(dense);
  };
  auto run = [&]() -> sprt_status {
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateCsr(
                 &a, layer.rows, layer.cols, layer.csrNnz, layer.rowPtr.get(),
                 layer.colIdx.get(), layer.values.get(), CUSPARSE_INDEX_32I,
                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnMat(&dense, layer.rows, layer.cols,
                                     layer.cols, out.get(), CUDA_R_32F,
                                     CUSPARSE_ORDER_ROW));
    SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseSetStream(handle, stream));
    size_t bytes = 0;
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSparseToDense_bufferSize(
                 handle, a, dense, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &bytes));
    SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSparseToDense(handle, a, dense,
                                       CUSPARSE_SPARSETODENSE_ALG_DEFAULT,
                                       buffer.get()));
    // Other streams read it later: done before anyone uses it.
    SPRT_CU_RETURN_IF_ERROR(d.api, d.api.cuStreamSynchronize(stream));
    return SPRT_OK;
  };
  sprt_status s = run();
  cleanup();
  if (s != SPRT_OK)
    out.reset();
  return s;
}
