//===- DensePlan.h - cuBLAS GEMM on the densified matrix --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the runtime's GPU backend: the dense candidate of the library
// check (docs/RuntimeABI.md, "The library check"). A layer whose densified
// matrix fits the budget ($SPPERM_DENSE_BUDGET_MB, default 256) is also
// timed as a dense GEMM on its rows x cols row-major copy, built once per
// layer on the device from the original-order CSR (cusparseSparseToDense):
//  * fp32 layers: cublasSgemm in cuBLAS's default math mode, which does not
//    round to TF32 (strict fp32), on a workspace of the runtime's bound
//    before each call (never cuBLAS's default pool, which a capture would
//    allocate from inside the graph);
//  * 16-bit layers: cublasLtMatmul with fp32 compute, restricted to the
//    algorithms that keep split-K partial sums in fp32 (or do not split),
//    so that each element of C is its fp32 sum rounded once, as the
//    generated kernels round it (docs/RuntimeABI.md, "Element types").
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_RUNTIME_LIB_DENSEPLAN_H
#define SPPERM_RUNTIME_LIB_DENSEPLAN_H

#include "CusparsePlan.h"

#include <cstdint>
#include <memory>
#include <string_view>

namespace spperm::runtime_detail {

/// The dense candidate's variant name (sprt_spmm_time, SPPERM_LOG_CHOICES):
/// cublasSgemm for fp32 layers, cublasLtMatmul with the layer's 16-bit type
/// (fp32 compute and reduction) for the others.
inline constexpr const char *kDenseVariant = "cublas-sgemm";
inline constexpr const char *kDenseHalfVariant = "cublaslt-gemm";

/// The dense variant's name for layers of `type`.
inline const char *denseVariantOf(ValueType type) {
  return type == ValueType::F32 ? kDenseVariant : kDenseHalfVariant;
}

/// Whether the plan CudaBackend::libraryPlan makes for the library call
/// named `library` on a layer of `type` reads B column-major in place
/// (LibraryPlan::readsColumnMajor): the dense fp32 GEMM does; no cuSPARSE
/// plan does.
inline bool libraryReadsColumnMajor(std::string_view library, ValueType type) {
  return type == ValueType::F32 && library == kDenseVariant;
}

/// The default budget of a densified matrix, in MiB.
inline constexpr int64_t kDefaultDenseBudgetMb = 256;

/// The cuBLAS workspace of a stream's dense plans
/// (CudaBackend::blasWorkspaceFor; docs/RuntimeABI.md, "Device memory"):
/// cublasSgemm is given all of it (cuBLAS's recommended size on Hopper), a
/// 16-bit plan what its cuBLASLt algorithm asks, at most this.
inline constexpr size_t kDenseWorkspaceBytes = 32u << 20;

/// cuBLAS GEMM made ready for a densified layer, K and stream.
class DensePlan final : public LibraryPlan {
public:
  /// `lt` is cuBLASLt's handle, used for 16-bit layers.
  DensePlan(const Cublas &blas, cublasHandle_t handle, cublasLtHandle_t lt)
      : blas(blas), handle(handle), lt(lt) {}
  ~DensePlan() override;
  DensePlan(const DensePlan &) = delete;
  DensePlan &operator=(const DensePlan &) = delete;

  /// Binds the densified matrix (rows x cols, row-major, on the device, of
  /// `type` like B and C), K and the stream; for a 16-bit type, chooses
  /// cuBLASLt's algorithm (its heuristic's first among those that reduce
  /// in fp32). The plan runs only once it has its workspace
  /// (setWorkspace) where workspaceBytes() says it needs one. The primary
  /// context must be current.
  sprt_status prepare(const void *dense, int64_t rows, int64_t cols, int64_t k,
                      CUstream stream, ValueType type = ValueType::F32);

  /// The workspace the plan needs: all of kDenseWorkspaceBytes for
  /// cublasSgemm (cuBLAS does not say what an SGEMM uses), what the chosen
  /// algorithm asks for a 16-bit type (often none).
  size_t workspaceBytes() const;

  /// Gives the plan its workspace, at least workspaceBytes(), shared with
  /// the other dense plans of its stream (whose calls run one after the
  /// other) and kept while the plan lives.
  void setWorkspace(std::shared_ptr<DeviceBuffer> buffer) {
    workspace = std::move(buffer);
  }

  /// C (rows x K) = dense (rows x cols) * B (cols x K), all row-major: in
  /// cuBLAS's column-major terms C^T = B^T * A^T.
  sprt_status run(const void *b, void *c) override;

  /// fp32: SGEMM takes B transposed as it is (op(B) = T), no copy.
  bool readsColumnMajor() const override {
    return libraryReadsColumnMajor(variant(), type);
  }
  sprt_status runColumnMajor(const void *b, void *c) override;

  const char *variant() const override { return denseVariantOf(type); }

  void bindStream(CUstream s) override { stream = s; }

private:
  /// fp32: cublasSgemm on the plan's stream, B row-major or column-major.
  sprt_status sgemm(const void *b, bool columnMajorB, void *c);

  /// The cuBLASLt descriptors and algorithm of a 16-bit type.
  sprt_status prepareLt();

  const Cublas &blas;
  cublasHandle_t handle;
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutC = nullptr;
  cublasLtMatmulAlgo_t algorithm{};
  std::shared_ptr<DeviceBuffer> workspace;
  /// What the 16-bit algorithm asks (cublasLtMatmulHeuristicResult_t).
  size_t ltWorkspaceBytes = 0;
  const void *a = nullptr;
  ValueType type = ValueType::F32;
  int rows = 0, cols = 0, k = 0;
  CUstream stream = nullptr;
  const float one = 1.0f, zero = 0.0f;
};

/// Fills `out` (rows x cols floats on the device, row-major) with the
/// layer's CSR, which must be on the device, through cuSPARSE on `stream`,
/// and waits for it.
sprt_status densify(const Driver &d, const Cusparse &sp,
                    cusparseHandle_t handle, const DeviceLayer &layer,
                    CUstream stream, DeviceBuffer &out);

} // namespace spperm::runtime_detail

#endif // SPPERM_RUNTIME_LIB_DENSEPLAN_H
