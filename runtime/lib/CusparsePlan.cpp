//===- CusparsePlan.cpp - A cuSPARSE call made ready ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A Plan's descriptors, workspace and preprocessing (prepare) and the call
// that only rebinds B and C and enqueues (run).
//
//===----------------------------------------------------------------------===//

#include "CusparsePlan.h"

#include <cassert>
#include <string>

using namespace spperm;
using namespace spperm::runtime_detail;

Plan::~Plan() {
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

sprt_status Plan::prepare(const Driver &d, const DeviceLayer &layer, int64_t k,
                          const void *b, void *c, CUstream stream) {
  assert(layer.hasCsr && "the layer's CSR is not on the device");
  const CusparseApi &api = sp.api;
  this->stream = stream;
  // A, B and C of the layer's type (A's values rounded to it at upload,
  // uploadCsr), fp32 compute.
  const cudaDataType type = dataTypeOf(layer.operandType);
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseCreateCsr(
               &a, layer.rows, layer.cols, layer.csrNnz, layer.rowPtr.get(),
               layer.colIdx.get(), layer.values.get(), CUSPARSE_INDEX_32I,
               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
  SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseSetStream(handle, stream));
  size_t bytes = 0;
  if (algorithm.spmv) {
    if (k != 1)
      return failWith(SPRT_ERROR_UNSUPPORTED, std::string(algorithm.variant) +
                                                  " needs k = 1, got " +
                                                  std::to_string(k));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnVec(&bVec, layer.cols, const_cast<void *>(b),
                                     type));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseCreateDnVec(&cVec, layer.rows, c, type));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSpMV_bufferSize(
                 handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bVec, &zero,
                 cVec, CUDA_R_32F, spmvAlg(), &bytes));
    SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
    if (api.cusparseSpMV_preprocess)
      SPRT_CUSPARSE_RETURN_IF_ERROR(
          api, api.cusparseSpMV_preprocess(
                   handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bVec,
                   &zero, cVec, CUDA_R_32F, spmvAlg(), buffer.get()));
    return SPRT_OK;
  }
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api,
      api.cusparseCreateDnMat(&bMat, layer.cols, k, k, const_cast<void *>(b),
                              type, CUSPARSE_ORDER_ROW));
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseCreateDnMat(&cMat, layer.rows, k, k, c, type,
                                   CUSPARSE_ORDER_ROW));
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                       a, bMat, &zero, cMat, CUDA_R_32F,
                                       spmmAlg(), &bytes));
  SPRT_RETURN_IF_ERROR(buffer.allocate(d, bytes));
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                       a, bMat, &zero, cMat, CUDA_R_32F,
                                       spmmAlg(), buffer.get()));
  return SPRT_OK;
}

sprt_status Plan::run(const void *b, void *c) {
  const CusparseApi &api = sp.api;
  SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseSetStream(handle, stream));
  if (algorithm.spmv) {
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseDnVecSetValues(bVec, const_cast<void *>(b)));
    SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseDnVecSetValues(cVec, c));
    SPRT_CUSPARSE_RETURN_IF_ERROR(
        api, api.cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a,
                              bVec, &zero, cVec, CUDA_R_32F, spmvAlg(),
                              buffer.get()));
    return SPRT_OK;
  }
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseDnMatSetValues(bMat, const_cast<void *>(b)));
  SPRT_CUSPARSE_RETURN_IF_ERROR(api, api.cusparseDnMatSetValues(cMat, c));
  SPRT_CUSPARSE_RETURN_IF_ERROR(
      api, api.cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                            CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, bMat,
                            &zero, cMat, CUDA_R_32F, spmmAlg(), buffer.get()));
  return SPRT_OK;
}
