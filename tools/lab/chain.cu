//===- chain.cu - Where a small layer's time goes: the chain of loads -----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A DLMC layer takes ~4.6 us against a 3.5 us empty kernel
// (docs/results/profile-2026-11-22-s14/). This program splits that time on real layers, timed the way
// spperm-verify --bench times kernels (BenchTiming.cuh), with hand-written
// kernels of the row family's shape (a warp per row, lane j owning VEC
// columns of C, entries loaded 32 at a time and broadcast by shuffle in
// batches of 8):
//  * empty:  an empty kernel over the same grid;
//  * ptr:    row pointers and the permutation, then the store of C (one
//            dependent L2 round trip before the store);
//  * csr:    the row kernel (row pointers -> column and value -> B -> C);
//  * ell:    the same with the row's entries at row * W (W: the longest
//            row, rounded up to 8; padding has value 0 and a valid column),
//            which drops the row-pointer step.
// csr and ell are checked against a float64 reference.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o chain chain.cu && ./chain FILE.smtx[.gz]...
// Prints one `chain` line per layer, K, CTA size and variant.
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cstdio>
#include <string>

namespace {

__global__ void emptyKernel() {}

template <int VEC> struct Vec;
template <> struct Vec<1> {
  using T = float;
  static __device__ T load(const float *p) { return __ldg(p); }
  static __device__ void fma(T &acc, float v, T b) { acc = fmaf(v, b, acc); }
  static __device__ void store(float *p, T x) { *p = x; }
  static __device__ T zero() { return 0.f; }
};
template <> struct Vec<4> {
  using T = float4;
  static __device__ T load(const float *p) {
    return __ldg(reinterpret_cast<const float4 *>(p));
  }
  static __device__ void fma(T &acc, float v, T b) {
    acc.x = fmaf(v, b.x, acc.x);
    acc.y = fmaf(v, b.y, acc.y);
    acc.z = fmaf(v, b.z, acc.z);
    acc.w = fmaf(v, b.w, acc.w);
  }
  static __device__ void store(float *p, T x) {
    *reinterpret_cast<float4 *>(p) = x;
  }
  static __device__ T zero() { return make_float4(0, 0, 0, 0); }
};

/// The row of the warp of this thread (a warp per row).
__device__ int warpRow() {
  return blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
}

/// Where lane `lane` of row `out` stores its VEC columns of C (K = 32 VEC).
template <int VEC> __device__ float *cAt(float *C, int out, int lane) {
  return C + size_t(out) * 32 * VEC + lane * VEC;
}

/// Row pointers and the permutation, then C: one round trip and a store.
template <int VEC>
__global__ void ptrKernel(const int *order, const int *rowPtr, float *C,
                          int rows) {
  int row = warpRow(), lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  int s = rowPtr[row], e = rowPtr[row + 1];
  using V = Vec<VEC>;
  typename V::T acc = V::zero();
  V::fma(acc, float(e - s), V::zero());
  V::store(cAt<VEC>(C, order[row], lane), acc);
}

/// acc + the 32 cached entries (c, v; the first n real) times their B rows,
/// in straight-line batches of 8, later batches only when n reaches them.
template <int VEC>
__device__ void broadcast(int c, float v, int n, const float *B, int lane,
                          typename Vec<VEC>::T &acc) {
  using V = Vec<VEC>;
  constexpr int K = 32 * VEC;
#pragma unroll
  for (int first = 0; first < 32; first += 8) {
    if (first > 0 && first >= n)
      break;
    float vals[8];
    typename V::T rowsB[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int cj = __shfl_sync(0xffffffffu, c, first + j);
      vals[j] = __shfl_sync(0xffffffffu, v, first + j);
      rowsB[j] = V::load(B + size_t(cj) * K + lane * VEC);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (first + j < n)
        V::fma(acc, vals[j], rowsB[j]);
  }
}

/// The row kernel. CSR: the row's entries between its row pointers. ELL:
/// at row * W, W of them (padding: value 0, a valid column), so no
/// row-pointer load precedes the entries'.
template <int VEC, bool ELL>
__global__ void rowKernel(const int *order, const int *rowPtr, const int *col,
                          const float *val, const float *B, float *C,
                          int rows, int W) {
  int row = warpRow(), lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  int s = ELL ? row * W : rowPtr[row];
  int e = ELL ? s + W : rowPtr[row + 1];
  using V = Vec<VEC>;
  typename V::T acc = V::zero();
  for (int p = s; p < e; p += 32) {
    int q = p + lane;
    int c = q < e ? col[q] : 0;
    float v = q < e ? val[q] : 0.f;
    broadcast<VEC>(c, v, min(32, e - p), B, lane, acc);
  }
  V::store(cAt<VEC>(C, order[row], lane), acc);
}

struct Layer {
  int *order, *rowPtr, *col, *ellCol;
  float *val, *ellVal, *B, *C;
  int rows, W;
};

template <int VEC>
void runK(const std::string &name, const Csr &m, Layer &d, int runs) {
  constexpr int K = 32 * VEC;
  Reference ref(m, K);
  CHECK(cudaMemcpy(d.B, ref.B.data(), ref.B.size() * sizeof(float),
                   cudaMemcpyHostToDevice));
  for (int threads : {128, 256, 512}) {
    int grid = (d.rows + threads / 32 - 1) / (threads / 32);
    auto report = [&](const char *variant, float ms, double err) {
      std::printf("chain layer=%s rows=%d cols=%d nnz=%zu w=%d k=%d "
                  "threads=%d ctas=%d variant=%s ms=%.5f err=%.2e\n",
                  name.c_str(), m.rows, m.cols, m.col.size(), d.W, K, threads,
                  grid, variant, ms, err);
    };
    report("empty", medianMs(runs, true, [&] {
             emptyKernel<<<grid, threads>>>();
           }),
           0);
    report("ptr", medianMs(runs, true, [&] {
             ptrKernel<VEC><<<grid, threads>>>(d.order, d.rowPtr, d.C,
                                               d.rows);
           }),
           0);
    float ms = medianMs(runs, true, [&] {
      rowKernel<VEC, false><<<grid, threads>>>(d.order, d.rowPtr, d.col,
                                               d.val, d.B, d.C, d.rows, 0);
    });
    CHECK(cudaGetLastError());
    report("csr", ms, ref.error(d.C));
    CHECK(cudaMemset(d.C, 0, size_t(d.rows) * K * sizeof(float)));
    ms = medianMs(runs, true, [&] {
      rowKernel<VEC, true><<<grid, threads>>>(d.order, nullptr, d.ellCol,
                                              d.ellVal, d.B, d.C, d.rows, d.W);
    });
    CHECK(cudaGetLastError());
    report("ell", ms, ref.error(d.C));
  }
}

} // namespace

int main(int argc, char **argv) {
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    Csr m;
    std::string path = argv[i];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "chain: %s: cannot read\n", path.c_str());
      continue;
    }
    std::string name = path.substr(path.rfind('/') + 1);
    // The layer's path below dlmc/, with / as __, names it as the suite does.
    size_t at = path.find("dlmc/");
    if (at != std::string::npos) {
      name = "dlmc__" + path.substr(at + 5);
      name = name.substr(0, name.find(".smtx"));
      for (size_t p; (p = name.find('/')) != std::string::npos;)
        name.replace(p, 1, "__");
    }
    int maxLen = 0;
    for (int r = 0; r < m.rows; ++r)
      maxLen = std::max(maxLen, m.rowPtr[r + 1] - m.rowPtr[r]);
    Layer d;
    d.rows = m.rows;
    d.W = std::max(8, (maxLen + 7) / 8 * 8);
    std::vector<int> order(m.rows), ellCol(size_t(m.rows) * d.W);
    std::vector<float> ellVal(size_t(m.rows) * d.W, 0.f);
    for (int r = 0; r < m.rows; ++r) {
      order[r] = r;
      int s = m.rowPtr[r], e = m.rowPtr[r + 1];
      for (int j = 0; j < d.W; ++j) {
        ellCol[size_t(r) * d.W + j] = s + j < e ? m.col[s + j] : (e > s ? m.col[e - 1] : 0);
        if (s + j < e)
          ellVal[size_t(r) * d.W + j] = m.val[s + j];
      }
    }
    d.order = upload(order);
    d.rowPtr = upload(m.rowPtr);
    d.col = upload(m.col);
    d.val = upload(m.val);
    d.ellCol = upload(ellCol);
    d.ellVal = upload(ellVal);
    CHECK(cudaMalloc(&d.B, size_t(m.cols) * 128 * sizeof(float)));
    CHECK(cudaMalloc(&d.C, size_t(m.rows) * 128 * sizeof(float)));
    runK<1>(name, m, d, runs);
    runK<4>(name, m, d, runs);
    for (void *p : {(void *)d.order, (void *)d.rowPtr, (void *)d.col,
                    (void *)d.val, (void *)d.ellCol, (void *)d.ellVal,
                    (void *)d.B, (void *)d.C})
      CHECK(cudaFree(p));
  }
  return 0;
}
