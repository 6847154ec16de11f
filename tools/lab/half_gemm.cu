//===- half_gemm.cu - Does dense 16-bit GEMM round C once? ----*- CUDA -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The dense candidate of a 16-bit layer (docs/RuntimeABI.md, "Element
// types") may only run where C is its fp32 sum rounded once. This program
// multiplies a random sparse-ish rows x cols matrix (density 0.3, values and
// B rounded to the type) with B (cols x K) through
//   gemmex       cublasGemmEx, 16-bit C, CUBLAS_COMPUTE_32F, default algo;
//   lt-any       cuBLASLt, 16-bit C, the heuristic's first algorithm;
//   lt-fp32red   cuBLASLt, 16-bit C, only algorithms that reduce split-K
//                partial sums in the compute type (or do not split);
//   gemmex-f32   cublasGemmEx with fp32 C (then rounded on the host);
// and counts the elements further than one unit in the last place from the
// float64 product rounded once, with the normwise error and the median time.
//
// Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o /tmp/half_gemm tools/lab/half_gemm.cu \
//        -lcublas -lcublasLt && /tmp/half_gemm
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.cuh"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#define CHECK_BLAS(call)                                                       \
  do {                                                                         \
    cublasStatus_t st = (call);                                                \
    if (st != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call,      \
                   static_cast<int>(st));                                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

/// C64 (rows x k) = A (rows x cols) * B (cols x k), all row-major, in fp64
/// from 16-bit inputs.
template <typename T>
__global__ void reference(const T *a, const T *b, double *c, int rows,
                          int cols, int k) {
  int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows || j >= k)
    return;
  double s = 0;
  for (int p = 0; p < cols; ++p)
    s += static_cast<double>(static_cast<float>(a[size_t(i) * cols + p])) *
         static_cast<double>(static_cast<float>(b[size_t(p) * k + j]));
  c[size_t(i) * k + j] = s;
}

float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
float toFloat(__half v) { return __half2float(v); }
template <typename T> T fromFloat(float v);
template <> __nv_bfloat16 fromFloat(float v) { return __float2bfloat16_rn(v); }
template <> __half fromFloat(float v) { return __float2half_rn(v); }

/// Elements of `c` further than one ulp (of the type, at the reference)
/// from the reference rounded once, and the normwise error.
template <typename T>
std::pair<int64_t, double> compare(const std::vector<float> &c,
                                   const std::vector<double> &ref,
                                   double unit) {
  int64_t bad = 0;
  double num = 0, den = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    double r = toFloat(fromFloat<T>(static_cast<float>(ref[i])));
    double d = std::fabs(c[i] - r);
    if (d > 1.01 * unit * std::fabs(r) && d > 1e-30)
      ++bad;
    num += (c[i] - ref[i]) * (c[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return {bad, std::sqrt(num / den)};
}

template <typename T>
void runShape(const char *typeName, cudaDataType dt, double unit,
              cublasHandle_t blas, cublasLtHandle_t lt, void *workspace,
              size_t workspaceBytes, int rows, int cols, int k) {
  std::mt19937_64 rng(rows * 31 + cols * 7 + k);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f), coin(0.0f, 1.0f);
  std::vector<T> ha(size_t(rows) * cols), hb(size_t(cols) * k);
  for (T &v : ha)
    v = fromFloat<T>(coin(rng) < 0.3f ? uni(rng) : 0.0f);
  for (T &v : hb)
    v = fromFloat<T>(uni(rng));
  T *a, *b, *c;
  float *c32;
  double *ref;
  CHECK(cudaMalloc(&a, ha.size() * sizeof(T)));
  CHECK(cudaMalloc(&b, hb.size() * sizeof(T)));
  CHECK(cudaMalloc(&c, size_t(rows) * k * sizeof(T)));
  CHECK(cudaMalloc(&c32, size_t(rows) * k * sizeof(float)));
  CHECK(cudaMalloc(&ref, size_t(rows) * k * sizeof(double)));
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(T), cudaMemcpyDefault));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * sizeof(T), cudaMemcpyDefault));
  reference<<<dim3((k + 127) / 128, rows), 128>>>(a, b, ref, rows, cols, k);
  std::vector<double> href(size_t(rows) * k);
  CHECK(cudaMemcpy(href.data(), ref, href.size() * sizeof(double),
                   cudaMemcpyDefault));
  const float one = 1.0f, zero = 0.0f;
  auto report = [&](const std::string &method, float ms, bool wide,
                    const std::string &extra) {
    std::vector<float> out(size_t(rows) * k);
    if (wide) {
      CHECK(cudaMemcpy(out.data(), c32, out.size() * sizeof(float),
                       cudaMemcpyDefault));
      for (float &v : out)
        v = toFloat(fromFloat<T>(v));
    } else {
      std::vector<T> h(out.size());
      CHECK(cudaMemcpy(h.data(), c, h.size() * sizeof(T), cudaMemcpyDefault));
      for (size_t i = 0; i < h.size(); ++i)
        out[i] = toFloat(h[i]);
    }
    auto [bad, normwise] = compare<T>(out, href, unit);
    std::printf("%s %dx%d k=%d %-11s %8.4f ms beyond-1ulp %7lld of %lld "
                "(%.3f%%) normwise %.3g %s\n",
                typeName, rows, cols, k, method.c_str(), ms,
                static_cast<long long>(bad),
                static_cast<long long>(out.size()),
                100.0 * bad / out.size(), normwise, extra.c_str());
  };
  // Row-major C = A B is column-major C^T = B^T A^T.
  float ms = medianMs(50, true, [&] {
    CHECK_BLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, k, rows, cols,
                            &one, b, dt, k, a, dt, cols, &zero, c, dt, k,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });
  report("gemmex", ms, false, "");
  ms = medianMs(50, true, [&] {
    CHECK_BLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, k, rows, cols,
                            &one, b, dt, k, a, dt, cols, &zero, c32,
                            CUDA_R_32F, k, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  });
  report("gemmex-f32", ms, true, "");

  for (int masked = 0; masked < 2; ++masked) {
    cublasLtMatmulDesc_t op;
    CHECK_BLAS(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayout_t lb, la, lc;
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&lb, dt, k, cols, k));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&la, dt, cols, rows, cols));
    CHECK_BLAS(cublasLtMatrixLayoutCreate(&lc, dt, k, rows, k));
    cublasLtMatmulPreference_t pref;
    CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes)));
    if (masked) {
      uint32_t mask = CUBLASLT_REDUCTION_SCHEME_NONE |
                      CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(
          pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask,
          sizeof(mask)));
    }
    cublasLtMatmulHeuristicResult_t results[8];
    int found = 0;
    CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, op, lb, la, lc, lc, pref, 8,
                                              results, &found));
    if (found == 0) {
      std::printf("%s %dx%d k=%d lt%s: no algorithm\n", typeName, rows, cols,
                  k, masked ? "-fp32red" : "-any");
    } else {
      const cublasLtMatmulAlgo_t *algo = &results[0].algo;
      int splits = 0;
      uint32_t scheme = 0;
      size_t got = 0;
      cublasLtMatmulAlgoConfigGetAttribute(
          algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof(splits),
          &got);
      cublasLtMatmulAlgoConfigGetAttribute(
          algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
          sizeof(scheme), &got);
      ms = medianMs(50, true, [&] {
        CHECK_BLAS(cublasLtMatmul(lt, op, &one, b, lb, a, la, &zero, c, lc,
                                  c, lc, algo, workspace,
                                  results[0].workspaceSize, 0));
      });
      report(masked ? "lt-fp32red" : "lt-any", ms, false,
             "splitk=" + std::to_string(splits) +
                 " scheme=" + std::to_string(scheme) +
                 " ws=" + std::to_string(results[0].workspaceSize) +
                 " found=" + std::to_string(found));
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(c32));
  CHECK(cudaFree(ref));
}

} // namespace

int main() {
  cublasHandle_t blas;
  CHECK_BLAS(cublasCreate(&blas));
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  size_t workspaceBytes = 32u << 20;
  void *workspace;
  CHECK(cudaMalloc(&workspace, workspaceBytes));
  const int shapes[][2] = {{512, 2048}, {2048, 512}, {512, 512},
                           {256, 2304}, {4096, 1024}, {1024, 4096}};
  for (auto [rows, cols] : shapes)
    for (int k : {12, 32, 64, 128, 512}) {
      runShape<__nv_bfloat16>("bf16", CUDA_R_16BF, 0x1p-7, blas, lt,
                              workspace, workspaceBytes, rows, cols, k);
      runShape<__half>("f16", CUDA_R_16F, 0x1p-10, blas, lt, workspace,
                       workspaceBytes, rows, cols, k);
    }
  return 0;
}
