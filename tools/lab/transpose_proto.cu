//===- transpose_proto.cu - How fast can B = Xᵀ be copied? ----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The runtime's transposing kernel (docs/Kernels.md, "Column-major B")
// copies SparseLinear's row-major X (K x cols) into a row-major B = Xᵀ,
// 32 x 32 tiles through shared memory, one tile a CTA of 256 threads. On
// the graphs at K = 512 (X of 6.8 MB) that copy is most of what
// SparseLinear adds to the row-major call. This program times tile shapes
// against a plain device-to-device copy of the same bytes, the floor of
// any copy:
//  * `t32`: 32 x 32, 4 elements a thread (the generated kernel's shape);
//  * `t64`: 64 x 64, 16 elements a thread, loaded before any store;
//  * `t32v`: 32 (K) x 128 (cols) tiles, X read as float4 (a warp reads
//    512 bytes of a row), B written 32 floats a warp-row (128 bytes);
//  * `copy`: cudaMemcpyAsync of X into B (no transpose).
// Each is checked (B against Xᵀ, exact) and timed per call from a CUDA
// graph of 20 calls (BenchTiming.cuh).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o transpose_proto transpose_proto.cu
//   ./transpose_proto K,COLS ...        (e.g. 512,3327 128,2708)
// Prints one `transpose` line per shape and arm.
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.cuh"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

__global__ void __launch_bounds__(256)
    t32(const float *__restrict__ x, float *__restrict__ b, int k, int cols) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int c0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
  float v[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int i = ty + 8 * u;
    v[u] = (k0 + i < k && c0 + tx < cols) ? x[size_t(k0 + i) * cols + c0 + tx]
                                          : 0.0f;
  }
#pragma unroll
  for (int u = 0; u < 4; ++u)
    tile[ty + 8 * u][tx] = v[u];
  __syncthreads();
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int i = ty + 8 * u;
    if (c0 + i < cols && k0 + tx < k)
      b[size_t(c0 + i) * k + k0 + tx] = tile[tx][i];
  }
}

__global__ void __launch_bounds__(256)
    t64(const float *__restrict__ x, float *__restrict__ b, int k, int cols) {
  __shared__ float tile[64][65];
  const int tx = threadIdx.x % 64, ty = threadIdx.x / 64; // 4 rows a pass
  const int c0 = blockIdx.x * 64, k0 = blockIdx.y * 64;
  float v[16];
#pragma unroll
  for (int u = 0; u < 16; ++u) {
    const int i = ty + 4 * u;
    v[u] = (k0 + i < k && c0 + tx < cols) ? x[size_t(k0 + i) * cols + c0 + tx]
                                          : 0.0f;
  }
#pragma unroll
  for (int u = 0; u < 16; ++u)
    tile[ty + 4 * u][tx] = v[u];
  __syncthreads();
#pragma unroll
  for (int u = 0; u < 16; ++u) {
    const int i = ty + 4 * u;
    if (c0 + i < cols && k0 + tx < k)
      b[size_t(c0 + i) * k + k0 + tx] = tile[tx][i];
  }
}

/// 32 rows of X (K) x 128 columns: warp w reads rows w, w + 8, w + 16,
/// w + 24 as float4 (cols % 4 == 0 and X 16-byte aligned, else scalar),
/// then writes 128 rows of B, 32 floats each.
__global__ void __launch_bounds__(256)
    t32v(const float *__restrict__ x, float *__restrict__ b, int k, int cols) {
  __shared__ float tile[32][129];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int c0 = blockIdx.x * 128, k0 = blockIdx.y * 32;
  const bool vec = cols % 4 == 0;
  float4 v[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int i = w + 8 * u;
    const int c = c0 + 4 * lane;
    const float *row = x + size_t(k0 + i) * cols;
    if (k0 + i < k && vec && c + 3 < cols) {
      v[u] = *reinterpret_cast<const float4 *>(row + c);
    } else {
      v[u].x = (k0 + i < k && c < cols) ? row[c] : 0.0f;
      v[u].y = (k0 + i < k && c + 1 < cols) ? row[c + 1] : 0.0f;
      v[u].z = (k0 + i < k && c + 2 < cols) ? row[c + 2] : 0.0f;
      v[u].w = (k0 + i < k && c + 3 < cols) ? row[c + 3] : 0.0f;
    }
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int i = w + 8 * u;
    tile[i][4 * lane] = v[u].x;
    tile[i][4 * lane + 1] = v[u].y;
    tile[i][4 * lane + 2] = v[u].z;
    tile[i][4 * lane + 3] = v[u].w;
  }
  __syncthreads();
#pragma unroll
  for (int u = 0; u < 16; ++u) {
    const int j = w + 8 * u; // column of X = row of B
    if (c0 + j < cols && k0 + lane < k)
      b[size_t(c0 + j) * k + k0 + lane] = tile[lane][j];
  }
}

void run(int k, int cols) {
  const size_t n = size_t(k) * cols;
  std::vector<float> hx(n);
  for (size_t i = 0; i < n; ++i)
    hx[i] = float((i * 2654435761u) % 1000003) * 1e-3f;
  float *x, *b;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
  auto check = [&]() {
    std::vector<float> hb(n);
    CHECK(cudaMemcpy(hb.data(), b, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < cols; ++j)
        bad += hb[size_t(j) * k + i] != hx[size_t(i) * cols + j];
    return bad;
  };
  auto report = [&](const char *arm, float us, size_t bad) {
    std::printf("transpose k=%d cols=%d %s graph_us=%.2f gbs=%.0f%s\n", k,
                cols, arm, us, 2.0 * n * 4 / (us * 1e3),
                bad ? " WRONG" : "");
    std::fflush(stdout);
  };
  auto arm = [&](const char *name, auto launch, bool verify) {
    CHECK(cudaMemset(b, 0xff, n * 4));
    launch(cudaStream_t(0));
    CHECK(cudaDeviceSynchronize());
    const size_t bad = verify ? check() : 0;
    report(name, graphUs(launch), bad);
  };
  arm("t32", [&](cudaStream_t s) {
    t32<<<dim3((cols + 31) / 32, (k + 31) / 32), 256, 0, s>>>(x, b, k, cols);
  }, true);
  arm("t64", [&](cudaStream_t s) {
    t64<<<dim3((cols + 63) / 64, (k + 63) / 64), 256, 0, s>>>(x, b, k, cols);
  }, true);
  arm("t32v", [&](cudaStream_t s) {
    t32v<<<dim3((cols + 127) / 128, (k + 31) / 32), 256, 0, s>>>(x, b, k,
                                                                 cols);
  }, true);
  arm("copy", [&](cudaStream_t s) {
    CHECK(cudaMemcpyAsync(b, x, n * 4, cudaMemcpyDeviceToDevice, s));
  }, false);
  CHECK(cudaFree(x));
  CHECK(cudaFree(b));
}

} // namespace

int main(int argc, char **argv) {
  for (int a = 1; a < argc; ++a) {
    int k = 0, cols = 0;
    if (std::sscanf(argv[a], "%d,%d", &k, &cols) != 2 || k < 1 || cols < 1) {
      std::fprintf(stderr, "%s: expected K,COLS\n", argv[a]);
      return 1;
    }
    run(k, cols);
  }
  return 0;
}
