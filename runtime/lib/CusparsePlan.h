//===- CusparsePlan.h - A cuSPARSE call made ready --------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the cuSPARSE algorithms the backend
// chooses among (and sprt_spmm_time knows by name), and the Plan of one of
// them for a layer, K and stream (CusparsePlan.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_CUSPARSEPLAN_H
#define SPPERM_RUNTIME_LIB_CUSPARSEPLAN_H

#include "CudaResources.h"

namespace spperm::runtime_detail {

/// A cuSPARSE algorithm and the variant name sprt_spmm_time knows it by.
struct Algorithm {
  const char *variant;
  bool spmv;
  int alg;
};

/// Every algorithm sprt_spmm_time knows, in the order choosePlan tries them.
inline constexpr Algorithm kAlgorithms[] = {
    {"cusparse-spmm-default", false, CUSPARSE_SPMM_ALG_DEFAULT},
    {"cusparse-spmm-csr-alg2", false, CUSPARSE_SPMM_CSR_ALG2},
    {"cusparse-spmm-csr-alg3", false, CUSPARSE_SPMM_CSR_ALG3},
    {"cusparse-spmv-default", true, CUSPARSE_SPMV_ALG_DEFAULT},
    {"cusparse-spmv-csr-alg1", true, CUSPARSE_SPMV_CSR_ALG1},
    {"cusparse-spmv-csr-alg2", true, CUSPARSE_SPMV_CSR_ALG2},
};

/// A library call made ready for a layer, K and stream, so that run() only
/// binds B and C and enqueues: a cuSPARSE algorithm (Plan) or dense GEMM
/// on the densified matrix (DensePlan). "The library" a checked layer is
/// compared with is the fastest of them (CudaBackend::choosePlan).
class LibraryPlan {
public:
  virtual ~LibraryPlan() = default;

  /// Enqueues C = A * B on the plan's stream.
  virtual sprt_status run(const void *b, void *c) = 0;

  /// Whether runColumnMajor reads a column-major B itself (no transposing
  /// kernel first); libraryReadsColumnMajor (DensePlan.h) says it from the
  /// library's name, before a plan is made.
  virtual bool readsColumnMajor() const { return false; }

  /// run() for a column-major B (element (i, j) at b[i + j * cols]), where
  /// readsColumnMajor.
  virtual sprt_status runColumnMajor(const void * /*b*/, void * /*c*/) {
    return SPRT_ERROR_UNSUPPORTED;
  }

  /// The variant name sprt_spmm_time knows it by.
  virtual const char *variant() const = 0;

  /// Makes run() enqueue on `stream` from now on (a plan prepared on
  /// another stream, CudaBackend::streamLibraryPlan).
  virtual void bindStream(CUstream stream) = 0;
};

/// One cuSPARSE call made ready for a layer, K and stream: descriptors,
/// workspace and preprocessing, so that run() only rebinds B and C and
/// enqueues.
class Plan final : public LibraryPlan {
public:
  Plan(const Cusparse &sp, cusparseHandle_t handle, const Algorithm &algorithm)
      : sp(sp), handle(handle), algorithm(algorithm) {}
  ~Plan() override;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;

  /// Builds the descriptors over `layer`, B and C, sizes and allocates the
  /// workspace, and preprocesses. The primary context must be current.
  sprt_status prepare(const Driver &d, const DeviceLayer &layer, int64_t k,
                      const void *b, void *c, CUstream stream);

  sprt_status run(const void *b, void *c) override;

  const char *variant() const override { return algorithm.variant; }

  void bindStream(CUstream s) override { stream = s; }

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

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_CUSPARSEPLAN_H
