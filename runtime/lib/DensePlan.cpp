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
                               int64_t colsIn, int64_t kIn, CUstream s,
                               ValueType typeIn) {
  if (rowsIn > INT_MAX || colsIn > INT_MAX || kIn > INT_MAX)
    return failWith(SPRT_ERROR_UNSUPPORTED,
                    std::string(denseVariantOf(typeIn)) +
                        ": a dimension exceeds cuBLAS's 32-bit int");
  a = dense;
  type = typeIn;
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
  if (type == ValueType::F32) {
    SPRT_CUBLAS_RETURN_IF_ERROR(
        api, api.cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, rows, cols,
                             &one, static_cast<const float *>(b), k,
                             static_cast<const float *>(a), cols, &zero,
                             static_cast<float *>(c), k));
    return SPRT_OK;
  }
  const cudaDataType t = dataTypeOf(type);
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, rows, cols,
                            &one, b, t, k, a, t, cols, &zero, c, t, k,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
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
             static_cast<size_t>(valueTypeBytes(layer.operandType))));
  const cudaDataType type = dataTypeOf(layer.operandType);
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
                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnMat(&dense, layer.rows, layer.cols,
                                     layer.cols, out.get(), type,
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
