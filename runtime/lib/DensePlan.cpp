//===- DensePlan.cpp - cuBLAS GEMM on the densified matrix ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "DensePlan.h"
#include "KernelLaunch.h"

#include <cassert>
#include <climits>
#include <mutex>
#include <string>
#include <utility>

using namespace spperm;
using namespace spperm::runtime_detail;

DensePlan::~DensePlan() {
  const CublasApi &api = blas.api;
  if (layoutA)
    api.cublasLtMatrixLayoutDestroy(layoutA);
  if (layoutB)
    api.cublasLtMatrixLayoutDestroy(layoutB);
  if (layoutC)
    api.cublasLtMatrixLayoutDestroy(layoutC);
  if (operation)
    api.cublasLtMatmulDescDestroy(operation);
}

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
  if (type == ValueType::F32)
    return SPRT_OK;
  return prepareLt();
}

size_t DensePlan::workspaceBytes() const {
  return type == ValueType::F32 ? kDenseWorkspaceBytes : ltWorkspaceBytes;
}

sprt_status DensePlan::prepareLt() {
  const CublasApi &api = blas.api;
  const cudaDataType t = dataTypeOf(type);
  // Row-major C = A * B is column-major C^T = B^T * A^T: "A" is B (k x
  // cols, leading dimension k), "B" the densified matrix.
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F,
                                        CUDA_R_32F));
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatrixLayoutCreate(&layoutB, t, k, cols, k));
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatrixLayoutCreate(&layoutA, t, cols, rows, cols));
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatrixLayoutCreate(&layoutC, t, k, rows, k));
  cublasLtMatmulPreference_t preference = nullptr;
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatmulPreferenceCreate(&preference));
  auto heuristic = [&]() -> sprt_status {
    const size_t maxBytes = kDenseWorkspaceBytes;
    SPRT_CUBLAS_RETURN_IF_ERROR(
        api, api.cublasLtMatmulPreferenceSetAttribute(
                 preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                 &maxBytes, sizeof(maxBytes)));
    // Split-K partial sums reduced in the output type would round C more
    // than once (cuBLASLt's OUTPUT_TYPE and INPLACE schemes): only the
    // schemes that add them in fp32, or none.
    const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE |
                             CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    SPRT_CUBLAS_RETURN_IF_ERROR(
        api, api.cublasLtMatmulPreferenceSetAttribute(
                 preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                 &schemes, sizeof(schemes)));
    // The plan is run with whatever B and C later calls pass: only the
    // alignment sprt_spmm_typed guarantees for this K, not cuBLASLt's
    // default of 256. The densified matrix is cuMemAlloc's (256).
    const auto operandAlignment = static_cast<uint32_t>(
        gpuOperandAlignment(valueTypeBytes(type), k));
    const uint32_t denseAlignment = 256;
    const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t>
        alignments[] = {
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, operandAlignment},
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, denseAlignment},
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, operandAlignment},
            {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, operandAlignment}};
    for (const auto &[attribute, bytes] : alignments)
      SPRT_CUBLAS_RETURN_IF_ERROR(
          api, api.cublasLtMatmulPreferenceSetAttribute(
                   preference, attribute, &bytes, sizeof(bytes)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(
        lt, operation, layoutB, layoutA, layoutC, layoutC, preference, 1,
        &result, &found);
    if (status != CUBLAS_STATUS_SUCCESS &&
        status != CUBLAS_STATUS_NOT_SUPPORTED)
      return cublasFailure(api, status, "cublasLtMatmulAlgoGetHeuristic",
                           __FILE__, __LINE__);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || found < 1)
      return failWith(SPRT_ERROR_UNSUPPORTED,
                      std::string(kDenseHalfVariant) +
                          ": cuBLASLt has no algorithm for " +
                          std::to_string(rows) + " x " +
                          std::to_string(cols) + " times K = " +
                          std::to_string(k) +
                          " that reduces in fp32 and takes B and C aligned "
                          "to the element type");
    algorithm = result.algo;
    ltWorkspaceBytes = result.workspaceSize;
    return SPRT_OK;
  };
  sprt_status status = heuristic();
  api.cublasLtMatmulPreferenceDestroy(preference);
  return status;
}

sprt_status DensePlan::sgemm(const void *b, bool columnMajorB, void *c) {
  assert(workspace && workspace->get() && "setWorkspace before a call");
  const CublasApi &api = blas.api;
  // The handle is the process's (sharedCublasHandles). Setting its stream
  // resets its workspace to cuBLAS's default pool, so the plan's is bound
  // after it, every call.
  std::lock_guard<std::mutex> lock(cublasStreamMutex());
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasSetStream(handle, reinterpret_cast<cudaStream_t>(stream)));
  void *buffer = workspace ? workspace->get() : nullptr;
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasSetWorkspace(handle, buffer,
                                  buffer ? kDenseWorkspaceBytes : 0));
  // Column-major C^T (k x rows) = B^T * A^T. A row-major B is B^T
  // column-major (leading dimension k); a column-major B is read as a
  // cols x k column-major matrix (leading dimension cols), transposed.
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasSgemm(handle, columnMajorB ? CUBLAS_OP_T : CUBLAS_OP_N,
                           CUBLAS_OP_N, k, rows, cols, &one,
                           static_cast<const float *>(b),
                           columnMajorB ? cols : k,
                           static_cast<const float *>(a), cols, &zero,
                           static_cast<float *>(c), k));
  return SPRT_OK;
}

sprt_status DensePlan::run(const void *b, void *c) {
  if (type == ValueType::F32)
    return sgemm(b, /*columnMajorB=*/false, c);
  assert((ltWorkspaceBytes == 0 || (workspace && workspace->get())) &&
         "setWorkspace before a call");
  const CublasApi &api = blas.api;
  SPRT_CUBLAS_RETURN_IF_ERROR(
      api, api.cublasLtMatmul(lt, operation, &one, b, layoutB, a, layoutA,
                              &zero, c, layoutC, c, layoutC, &algorithm,
                              workspace ? workspace->get() : nullptr,
                              workspace ? ltWorkspaceBytes : 0,
                              reinterpret_cast<cudaStream_t>(stream)));
  return SPRT_OK;
}

sprt_status DensePlan::runColumnMajor(const void *b, void *c) {
  assert(type == ValueType::F32 && "readsColumnMajor: fp32 only");
  return sgemm(b, /*columnMajorB=*/true, c);
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
