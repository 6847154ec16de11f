//===- xt_proto.cu - SpMM with B given as a row-major X (B = Xᵀ) ----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// torch.nn.Linear's layout: Y = X · Wᵀ with X (K x cols) row-major, i.e.
// C = W · B with B = Xᵀ column-major. The row kernels want B row-major, so
// SparseLinear's first layer of a chain transposes X first. This program
// times, on real layers, with hand-written kernels of the row family's
// shape, what reading X in place costs against the row-major product:
//  * row:      C = W · B, B row-major (a group of lanes per row, 4 columns
//              of C a lane, entries broadcast by shuffle): the reference;
//  * tr+row:   a tiled transpose of X into B, then `row`;
//  * direct:   lanes over the samples of a row, X read from global memory
//              (a 32-byte sector per sample and entry);
//  * stagedG/rN: a CTA per N rows (longest first) and tile of 4 G samples
//              stages X[tile, :] transposed in shared memory (rows padded
//              so that float4 stores and loads are conflict-free), then G
//              lanes per row, a float4 of samples each, read their entries'
//              values from there; `stageonly` and `computeonly` are its two
//              halves alone (wrong results by design).
// Each is checked against a float64 reference; times are per call, queued
// (`us`, BenchTiming.cuh) and from a CUDA graph of 20 launches (`graph_us`).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o xt_proto xt_proto.cu
//   ./xt_proto FILE.smtx[.gz]|FILE.mtx[.gz] ...
// Prints one `xt` line per layer, K and kernel (microseconds, queued).
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cstdio>
#include <string>

namespace {

/// Row-major B: G lanes per row, 4 columns of C a lane, K a multiple of 4.
template <int G>
__global__ void rowKernel(int rows, const int *__restrict__ rowPtr,
                          const int *__restrict__ col,
                          const float *__restrict__ val,
                          const float *__restrict__ b, float *__restrict__ c,
                          int k) {
  const int lane = threadIdx.x % G;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / G;
  if (row >= rows)
    return;
  const unsigned mask =
      G == 32 ? 0xffffffffu
              : (((1u << G) - 1) << (threadIdx.x % 32 / G * G));
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  for (int k0 = 0; k0 < k; k0 += 4 * G) {
    const int kc = k0 + 4 * lane;
    float4 acc = {0, 0, 0, 0};
    for (int p = begin; p < end; p += G) {
      const int mine = p + lane < end ? p + lane : end - 1;
      const int cj = col[mine];
      const float vj = p + lane < end ? val[mine] : 0.f;
      const int n = min(G, end - p);
      for (int i = 0; i < n; ++i) {
        const int ci = __shfl_sync(mask, cj, i, G);
        const float vi = __shfl_sync(mask, vj, i, G);
        if (kc < k) {
          const float4 x =
              __ldg(reinterpret_cast<const float4 *>(b + size_t(ci) * k + kc));
          acc.x = fmaf(vi, x.x, acc.x);
          acc.y = fmaf(vi, x.y, acc.y);
          acc.z = fmaf(vi, x.z, acc.z);
          acc.w = fmaf(vi, x.w, acc.w);
        }
      }
    }
    if (kc < k)
      *reinterpret_cast<float4 *>(c + size_t(row) * k + kc) = acc;
  }
}

/// X in place from global memory: G lanes per row over a tile of G
/// samples (blockIdx.y).
template <int G>
__global__ void directKernel(int rows, int cols,
                             const int *__restrict__ rowPtr,
                             const int *__restrict__ col,
                             const float *__restrict__ val,
                             const float *__restrict__ x,
                             float *__restrict__ c, int k) {
  const int lane = threadIdx.x % G;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / G;
  if (row >= rows)
    return;
  const unsigned mask =
      G == 32 ? 0xffffffffu
              : (((1u << G) - 1) << (threadIdx.x % 32 / G * G));
  const int s = blockIdx.y * G + lane;
  const bool live = s < k;
  const float *xs = x + size_t(live ? s : 0) * cols;
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float acc = 0;
  for (int p = begin; p < end; p += G) {
    const int mine = p + lane < end ? p + lane : end - 1;
    const int cj = col[mine];
    const float vj = p + lane < end ? val[mine] : 0.f;
    const int n = min(G, end - p);
    for (int i = 0; i < n; ++i) {
      const int ci = __shfl_sync(mask, cj, i, G);
      const float vi = __shfl_sync(mask, vj, i, G);
      acc = fmaf(vi, __ldg(xs + ci), acc);
    }
  }
  if (live)
    c[size_t(row) * k + s] = acc;
}

/// The staged kernel: CTA (blockIdx.x: `rowsPerCta` rows of the permuted
/// order, blockIdx.y: a tile of NT = 4 G samples) stages X[tile, :]
/// transposed, column c's NT samples at c * (NT + 4) (the pad puts the
/// float4 stores of 8 consecutive columns in distinct banks), then G lanes
/// per row, each owning 4 consecutive samples (one float4 of shared memory
/// per entry, the entries broadcast by shuffle in batches of 8), store C's
/// row as float4s.
template <int G, int MODE>
__global__ void __launch_bounds__(256)
    stagedKernel(int rows, int cols, int rowsPerCta,
                 const int *__restrict__ order,
                 const int *__restrict__ rowPtr, const int *__restrict__ col,
                 const float *__restrict__ val, const float *__restrict__ x,
                 float *__restrict__ c, int k) {
  constexpr int NT = 4 * G, STRIDE = NT + 4;
  extern __shared__ float4 sm4[];
  float *sm = reinterpret_cast<float *>(sm4);
  const int s0 = blockIdx.y * NT;
  // Stage: thread item (c, q) loads X[s0 + 4q .. s0 + 4q + 3, c]; 4 items
  // (16 loads) in flight per thread.
  const int items = cols * (NT / 4);
  if (MODE != 2) {
    for (int it0 = threadIdx.x; it0 < items; it0 += 4 * blockDim.x) {
      float4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int it = it0 + u * blockDim.x;
        const int q = it / cols, cc = it - q * cols;
        const int s = s0 + 4 * q;
        const bool in = it < items;
        v[u].x = in && s + 0 < k ? __ldg(x + size_t(s + 0) * cols + cc) : 0.f;
        v[u].y = in && s + 1 < k ? __ldg(x + size_t(s + 1) * cols + cc) : 0.f;
        v[u].z = in && s + 2 < k ? __ldg(x + size_t(s + 2) * cols + cc) : 0.f;
        v[u].w = in && s + 3 < k ? __ldg(x + size_t(s + 3) * cols + cc) : 0.f;
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int it = it0 + u * blockDim.x;
        const int q = it / cols, cc = it - q * cols;
        if (it < items)
          *reinterpret_cast<float4 *>(sm + cc * STRIDE + 4 * q) = v[u];
      }
    }
  }
  __syncthreads();
  const int lane = threadIdx.x % G;
  const unsigned mask =
      G == 32 ? 0xffffffffu
              : (((1u << G) - 1) << (threadIdx.x % 32 / G * G));
  const int groups = blockDim.x / G;
  const int rowEnd = min(rows, (blockIdx.x + 1) * rowsPerCta);
  const float *base = sm + 4 * lane;
  for (int row = blockIdx.x * rowsPerCta + threadIdx.x / G; row < rowEnd;
       row += groups) {
    const int begin = rowPtr[row], end = MODE == 1 ? begin : rowPtr[row + 1];
    float4 acc = {0, 0, 0, 0};
    for (int p = begin; p < end; p += G) {
      const int mine = p + lane < end ? p + lane : end - 1;
      const int cj = col[mine];
      const float vj = p + lane < end ? val[mine] : 0.f;
      const int n = min(G, end - p);
      int i = 0;
      for (; i + 8 <= n; i += 8) {
        int ci[8];
        float vi[8];
        float4 xv[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          ci[u] = __shfl_sync(mask, cj, i + u, G);
          vi[u] = __shfl_sync(mask, vj, i + u, G);
        }
#pragma unroll
        for (int u = 0; u < 8; ++u)
          xv[u] = *reinterpret_cast<const float4 *>(base + ci[u] * STRIDE);
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          acc.x = fmaf(vi[u], xv[u].x, acc.x);
          acc.y = fmaf(vi[u], xv[u].y, acc.y);
          acc.z = fmaf(vi[u], xv[u].z, acc.z);
          acc.w = fmaf(vi[u], xv[u].w, acc.w);
        }
      }
      for (; i < n; ++i) {
        const int ci = __shfl_sync(mask, cj, i, G);
        const float vi = __shfl_sync(mask, vj, i, G);
        const float4 xv =
            *reinterpret_cast<const float4 *>(base + ci * STRIDE);
        acc.x = fmaf(vi, xv.x, acc.x);
        acc.y = fmaf(vi, xv.y, acc.y);
        acc.z = fmaf(vi, xv.z, acc.z);
        acc.w = fmaf(vi, xv.w, acc.w);
      }
    }
    const int s = s0 + 4 * lane;
    float *out = c + size_t(order[row]) * k + s;
    if (s + 3 < k && (k & 3) == 0) {
      *reinterpret_cast<float4 *>(out) = acc;
    } else {
      if (s + 0 < k) out[0] = acc.x;
      if (s + 1 < k) out[1] = acc.y;
      if (s + 2 < k) out[2] = acc.z;
      if (s + 3 < k) out[3] = acc.w;
    }
  }
}

__global__ void emptyKernel() {}

struct Device {
  int *rowPtr, *col;
  float *val;
};

template <int G>
void launchRow(const Csr &m, Device d, const float *b, float *c, int k,
               cudaStream_t st) {
  const int threads = 256;
  rowKernel<G><<<(m.rows * G + threads - 1) / threads, threads, 0, st>>>(
      m.rows, d.rowPtr, d.col, d.val, b, c, k);
}

void row(const Csr &m, Device d, const float *b, float *c, int k,
         cudaStream_t st) {
  if (k >= 128)
    launchRow<32>(m, d, b, c, k, st);
  else if (k >= 64)
    launchRow<16>(m, d, b, c, k, st);
  else if (k >= 32)
    launchRow<8>(m, d, b, c, k, st);
  else
    launchRow<2>(m, d, b, c, k, st);
}

template <int G, int MODE = 0>
void staged(const Csr &m, const Device &perm, const int *order,
            const float *x, float *c, int k, int rowsPerCta,
            cudaStream_t st) {
  const size_t shared = size_t(m.cols) * (4 * G + 4) * sizeof(float);
  static bool configured = false;
  if (!configured) {
    CHECK(cudaFuncSetAttribute(stagedKernel<G, MODE>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               227 * 1024));
    configured = true;
  }
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + 4 * G - 1) / (4 * G));
  stagedKernel<G, MODE><<<grid, 256, shared, st>>>(m.rows, m.cols, rowsPerCta, order,
                                         perm.rowPtr, perm.col, perm.val, x, c,
                                         k);
}

} // namespace

int main(int argc, char **argv) {
  const int ks[] = {32, 128, 512};
  for (int a = 1; a < argc; ++a) {
    Csr m;
    std::string path = argv[a];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "xt_proto: %s: cannot read\n", path.c_str());
      return 1;
    }
    std::string name = path.substr(path.find_last_of('/') + 1);
    Device d{upload(m.rowPtr), upload(m.col), upload(m.val)};
    std::vector<int> orderHost;
    Csr pm = permuted(m, orderHost);
    Device pd{upload(pm.rowPtr), upload(pm.col), upload(pm.val)};
    int *order = upload(orderHost);
    for (int k : ks) {
      Reference ref(m, k);
      const std::vector<float> xh = ref.x();
      float *b = upload(ref.B), *x = upload(xh), *bt = upload(ref.B);
      float *c = nullptr;
      CHECK(cudaMalloc(&c, size_t(m.rows) * k * sizeof(float)));
      auto report = [&](const char *kernel, auto launch) {
        CHECK(cudaMemset(c, 0, size_t(m.rows) * k * sizeof(float)));
        launch(cudaStream_t(0));
        CHECK(cudaDeviceSynchronize());
        const double err = ref.error(c);
        // Clocks up: the GPU idles between variants (the check above).
        for (int i = 0; i < 2000; ++i)
          launch(cudaStream_t(0));
        const float ms = medianMs(101, true, [&] { launch(cudaStream_t(0)); });
        const float graph = graphUs(launch);
        std::printf("xt layer=%s rows=%d cols=%d nnz=%zu k=%d kernel=%s "
                    "us=%.2f graph_us=%.2f err=%.1e%s\n",
                    name.c_str(), m.rows, m.cols, m.col.size(), k, kernel,
                    ms * 1e3, graph, err,
                    err > 1e-5 && std::string(kernel) != "empty" ? " WRONG"
                                                                 : "");
      };
      report("empty", [&](cudaStream_t st) { emptyKernel<<<1, 32, 0, st>>>(); });
      report("row", [&](cudaStream_t st) { row(m, d, b, c, k, st); });
      report("tr+row", [&](cudaStream_t st) {
        transpose<<<dim3((m.cols + 31) / 32, (k + 31) / 32), dim3(32, 8), 0,
                    st>>>(x, bt, k, m.cols);
        row(m, d, bt, c, k, st);
      });
      report("direct32", [&](cudaStream_t st) {
        directKernel<32><<<dim3((m.rows * 32 + 255) / 256, (k + 31) / 32),
                           256, 0, st>>>(m.rows, m.cols, d.rowPtr, d.col,
                                         d.val, x, c, k);
      });
      for (int rpc : {16, 32, 64, 128, 256}) {
        char label[64];
        auto fits = [&](int g) {
          return size_t(m.cols) * (4 * g + 4) * 4 <= 227 * 1024;
        };
        if (fits(2)) {
          std::snprintf(label, sizeof label, "staged2/r%d", rpc);
          report(label, [&](cudaStream_t st) {
            staged<2>(m, pd, order, x, c, k, rpc, st);
          });
        }
        if (fits(8) && k >= 32) {
          std::snprintf(label, sizeof label, "staged8/r%d", rpc);
          report(label, [&](cudaStream_t st) {
            staged<8>(m, pd, order, x, c, k, rpc, st);
          });
        }
        if (fits(8) && k >= 32) {
          std::snprintf(label, sizeof label, "stageonly8/r%d", rpc);
          report(label, [&](cudaStream_t st) {
            staged<8, 1>(m, pd, order, x, c, k, rpc, st);
          });
          std::snprintf(label, sizeof label, "computeonly8/r%d", rpc);
          report(label, [&](cudaStream_t st) {
            staged<8, 2>(m, pd, order, x, c, k, rpc, st);
          });
        }
        if (fits(16) && k >= 64) {
          std::snprintf(label, sizeof label, "staged16/r%d", rpc);
          report(label, [&](cudaStream_t st) {
            staged<16>(m, pd, order, x, c, k, rpc, st);
          });
        }
      }
      CHECK(cudaFree(b));
      CHECK(cudaFree(x));
      CHECK(cudaFree(bt));
      CHECK(cudaFree(c));
    }
  }
  return 0;
}
