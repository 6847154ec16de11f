//===- mma_rows_proto.cu - 16-bit row kernels and tensor-core rows --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The 16-bit row kernels reach 0.7-0.8 of the fp32 time at K = 32 on
// layers memory-bound in fp32, where half the bytes would allow ~0.55
// (Kernels.md, "Half precision"). This program tries, on hand-written
// kernels in natural row order, what could close that gap: tensor-core
// products for any sparse rows, more loads in flight, wider lanes.
//
//  * row32:  fp32 row kernel (K/4 lanes a row, float4 of B a lane, entries
//            broadcast by shuffle, batches of 2 with both loads first);
//  * row16:  the same in bf16 (K/8 lanes a row, 8 columns a lane, widened
//            by shift / mask, C rounded once);
//  * row16bN[o8]: row16 with batches of N entries (all shuffles, then all
//            loads, then the multiply-adds); o8: at least 8 CTAs of 256
//            per multiprocessor (32 registers);
//  * row16wE: 16 columns a lane (two 16-byte loads an entry, K/16 lanes a
//            row), E cached entries a lane;
//  * row16xE, row32xE: every entry of a step (G E of them, E cached a
//            lane) broadcast, then all loaded (predicated past the row's
//            end), then all multiplied: one B round trip a step;
//  * row16dN: row16's lanes with 32 registers (8 CTAs of 256 a
//            multiprocessor): each lane reads the entry's column and value
//            itself (broadcast loads, no shuffles), N B loads in flight;
//  * row32dN: the same in fp32;
//  * row16pa: pairs of entries with columns 2p, 2p + 1 (one index, padded
//            with a zero value where one is absent): 2 K/8 lanes a row,
//            half h loading entry h, so at K = 32 a warp's load reads the
//            pair's two B rows as one 128-byte line;
//  * row16ph: the same lanes on any two consecutive entries of a row (two
//            indices): row16pa's lanes without its shared lines;
//  * mma16:  a warp per window of 8 consecutive rows. The window's entries
//            (contiguous in CSR) are taken 16 at a time as the MMA's k
//            dimension; each entry ("slot") belongs to one of the 8 rows,
//            so the MMA's B operand (16 slots x 8 rows) is the values
//            scattered block-diagonally (slot s in the column of its row,
//            zero elsewhere) and its A operand (16 columns of C x 16
//            slots) is the slots' B rows, transposed. Lane g*4+q loads 16
//            bytes (8 columns) of slot g's and slot g+8's B rows; four
//            movmatrix.trans per load turn them into A fragments whose m
//            index is a fixed permutation of the 32 columns; C is
//            exchanged with the neighbouring lane and stored 16 bytes a
//            lane. Useful products are 1/8 of the MMA's; B traffic is the
//            row kernel's (one B row per entry);
//  * mma16x: mma16 with each MMA summed from zero and added in fp32 (the
//            tensor cores' truncating additions confined to one chunk);
//  * mma16p[2|x]: mma16 with byte permutes instead of movmatrix (a lane
//            loads 4 slots' rows, K/8 columns each); 2: the chunk loop
//            unrolled twice; x: summed from zero as mma16x;
//  * mma16s: mma16p on a sliced ELL (SELL-8) copy of the matrix whose
//            slot k belongs to row k / 2, so the B operand needs no
//            range compares; padding repeats a real column.
//
// Every kernel is checked against float64 (of the bf16-rounded operands
// for the 16-bit ones) with an fp32 C; times are per call with the 16-bit
// C (`us`, BenchTiming.cuh, queued, median of 50).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o mma_rows_proto mma_rows_proto.cu
//   ./mma_rows_proto [FILE.mtx[.gz] ...]
// With no files it generates banded, stencil and uniform matrices.
// Prints one `mma` line per matrix, K and kernel (err -1: not checked).
// PROTO_ONLY=NAME (a generated matrix), PROTO_K=32|64|128 and PROTO_RUNS=1
// narrow a run down for Nsight Compute (docs/results/mma-rows-2026-11-27-s31).
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cuda_bf16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

/// PROTO_RUNS (default 50): timed runs per kernel; 1 for a profiler (then
/// launched one by one: queued runs wait on a host flag, which a profiler
/// serializing the launches would never let the host set).
int runs() {
  const char *env = std::getenv("PROTO_RUNS");
  return env ? std::max(1, std::atoi(env)) : 50;
}

//===----------------------------------------------------------------------===//
// Matrices
//===----------------------------------------------------------------------===//

void fromRows(Csr &m, int rows, int cols,
              const std::vector<std::vector<int>> &byRow) {
  m.rows = rows;
  m.cols = cols;
  m.rowPtr.assign(rows + 1, 0);
  m.col.clear();
  for (int r = 0; r < rows; ++r) {
    m.col.insert(m.col.end(), byRow[r].begin(), byRow[r].end());
    m.rowPtr[r + 1] = int(m.col.size());
  }
  randomValues(m);
}

void banded(Csr &m, int n, int hw) {
  std::vector<std::vector<int>> rows(n);
  for (int r = 0; r < n; ++r)
    for (int c = std::max(0, r - hw); c <= std::min(n - 1, r + hw); ++c)
      rows[r].push_back(c);
  fromRows(m, n, n, rows);
}

void stencil2d9(Csr &m, int side) {
  const int n = side * side;
  std::vector<std::vector<int>> rows(n);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (x + dx >= 0 && x + dx < side && y + dy >= 0 && y + dy < side)
            rows[y * side + x].push_back((y + dy) * side + x + dx);
  fromRows(m, n, n, rows);
}

void stencil3d7(Csr &m, int side) {
  const int n = side * side * side;
  std::vector<std::vector<int>> rows(n);
  for (int z = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const int r = (z * side + y) * side + x;
        auto add = [&](int xx, int yy, int zz) {
          if (xx >= 0 && xx < side && yy >= 0 && yy < side && zz >= 0 &&
              zz < side)
            rows[r].push_back((zz * side + yy) * side + xx);
        };
        add(x, y, z - 1);
        add(x, y - 1, z);
        add(x - 1, y, z);
        add(x, y, z);
        add(x + 1, y, z);
        add(x, y + 1, z);
        add(x, y, z + 1);
      }
  fromRows(m, n, n, rows);
}

/// Poisson(mean) entries a row at uniform random columns.
void uniform(Csr &m, int n, double mean, unsigned seed) {
  std::mt19937 rng(seed);
  std::poisson_distribution<int> len(mean);
  std::uniform_int_distribution<int> colOf(0, n - 1);
  std::vector<std::vector<int>> rows(n);
  for (int r = 0; r < n; ++r) {
    const int l = len(rng);
    for (int i = 0; i < l; ++i)
      rows[r].push_back(colOf(rng));
    std::sort(rows[r].begin(), rows[r].end());
    rows[r].erase(std::unique(rows[r].begin(), rows[r].end()), rows[r].end());
  }
  fromRows(m, n, n, rows);
}

/// A Matrix Market file, gzip'd or not (BenchMatrix.cuh's readMtx).
bool readMatrix(const std::string &path, Csr &m) {
  std::string plain = path;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    plain = "/tmp/mma_rows_layer.mtx";
    if (std::system(("gzip -dc '" + path + "' > " + plain).c_str()) != 0)
      return false;
  }
  return readMtx(plain.c_str(), m);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float lo16(uint32_t w) {
  return __uint_as_float(w << 16);
}
__device__ __forceinline__ float hi16(uint32_t w) {
  return __uint_as_float(w & 0xffff0000u);
}

__device__ __forceinline__ uint32_t pack(float a, float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<uint32_t *>(&h);
}

/// acc[j] += v * (element j of the 8 bf16 in x), j = 0..7.
__device__ __forceinline__ void fma8(float (&acc)[8], float v, uint4 x) {
  acc[0] = fmaf(v, lo16(x.x), acc[0]);
  acc[1] = fmaf(v, hi16(x.x), acc[1]);
  acc[2] = fmaf(v, lo16(x.y), acc[2]);
  acc[3] = fmaf(v, hi16(x.y), acc[3]);
  acc[4] = fmaf(v, lo16(x.z), acc[4]);
  acc[5] = fmaf(v, hi16(x.z), acc[5]);
  acc[6] = fmaf(v, lo16(x.w), acc[6]);
  acc[7] = fmaf(v, hi16(x.w), acc[7]);
}

/// The 8 sums rounded to bf16, as one 16-byte store.
__device__ __forceinline__ uint4 pack8(const float (&acc)[8]) {
  return make_uint4(pack(acc[0], acc[1]), pack(acc[2], acc[3]),
                    pack(acc[4], acc[5]), pack(acc[6], acc[7]));
}

template <int G> __device__ __forceinline__ unsigned groupMask() {
  if constexpr (G == 32)
    return 0xffffffffu;
  else
    return ((1u << G) - 1) << ((threadIdx.x & 31) & ~(G - 1));
}

/// fp32: K/4 lanes a row.
template <int K>
__global__ void __launch_bounds__(256)
    row32(int rows, const int *__restrict__ rowPtr, const int *__restrict__ col,
          const float *__restrict__ val, const float4 *__restrict__ b,
          float4 *__restrict__ c) {
  constexpr int G = K / 4;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float4 acc = {0, 0, 0, 0};
  auto fma4 = [&](float v, float4 x) {
    acc.x = fmaf(v, x.x, acc.x);
    acc.y = fmaf(v, x.y, acc.y);
    acc.z = fmaf(v, x.z, acc.z);
    acc.w = fmaf(v, x.w, acc.w);
  };
  for (int p = begin; p < end; p += G) {
    const int n = min(G, end - p);
    const int cj = l < n ? col[p + l] : 0;
    const float vj = l < n ? val[p + l] : 0.f;
    int i = 0;
    for (; i + 1 < n; i += 2) {
      const int c0 = __shfl_sync(mask, cj, i, G);
      const int c1 = __shfl_sync(mask, cj, i + 1, G);
      const float v0 = __shfl_sync(mask, vj, i, G);
      const float v1 = __shfl_sync(mask, vj, i + 1, G);
      const float4 x0 = b[size_t(c0) * (K / 4) + l];
      const float4 x1 = b[size_t(c1) * (K / 4) + l];
      fma4(v0, x0);
      fma4(v1, x1);
    }
    if (i < n) {
      const int c0 = __shfl_sync(mask, cj, i, G);
      const float v0 = __shfl_sync(mask, vj, i, G);
      fma4(v0, b[size_t(c0) * (K / 4) + l]);
    }
  }
  c[size_t(row) * (K / 4) + l] = acc;
}

/// Stores 8 sums of C's row `row` at column `col0` (fp32 or bf16 C).
template <bool F32Out>
__device__ __forceinline__ void store8(void *c, int k, int row, int col0,
                                       const float (&s)[8]) {
  if (F32Out) {
    float4 *p = reinterpret_cast<float4 *>(static_cast<float *>(c) +
                                           size_t(row) * k + col0);
    p[0] = make_float4(s[0], s[1], s[2], s[3]);
    p[1] = make_float4(s[4], s[5], s[6], s[7]);
  } else {
    uint4 *p = reinterpret_cast<uint4 *>(static_cast<uint16_t *>(c) +
                                         size_t(row) * k + col0);
    *p = make_uint4(pack(s[0], s[1]), pack(s[2], s[3]), pack(s[4], s[5]),
                    pack(s[6], s[7]));
  }
}

/// bf16: K/8 lanes a row, 16 bytes of B a lane.
template <int K, bool F32Out>
__global__ void __launch_bounds__(256)
    row16(int rows, const int *__restrict__ rowPtr, const int *__restrict__ col,
          const uint16_t *__restrict__ val, const uint4 *__restrict__ b,
          void *__restrict__ c) {
  constexpr int G = K / 8;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float acc[8] = {};

  for (int p = begin; p < end; p += G) {
    const int n = min(G, end - p);
    const int cj = l < n ? col[p + l] : 0;
    const float vj = l < n ? lo16(val[p + l]) : 0.f;
    int i = 0;
    for (; i + 1 < n; i += 2) {
      const int c0 = __shfl_sync(mask, cj, i, G);
      const int c1 = __shfl_sync(mask, cj, i + 1, G);
      const float v0 = __shfl_sync(mask, vj, i, G);
      const float v1 = __shfl_sync(mask, vj, i + 1, G);
      const uint4 x0 = b[size_t(c0) * (K / 8) + l];
      const uint4 x1 = b[size_t(c1) * (K / 8) + l];
      fma8(acc, v0, x0);
      fma8(acc, v1, x1);
    }
    if (i < n) {
      const int c0 = __shfl_sync(mask, cj, i, G);
      const float v0 = __shfl_sync(mask, vj, i, G);
      fma8(acc, v0, b[size_t(c0) * (K / 8) + l]);
    }
  }
  store8<F32Out>(c, K, row, 8 * l, acc);
}

/// row16 with batches of N entries (all shuffles, then all loads, then the
/// multiply-adds) and at least MinBlocks CTAs of 256 per multiprocessor.
template <int K, int N, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    row16b(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const uint16_t *__restrict__ val,
           const uint4 *__restrict__ b, uint4 *__restrict__ c) {
  constexpr int G = K / 8;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float acc[8] = {};
  for (int p = begin; p < end; p += G) {
    const int n = min(G, end - p);
    const int cj = l < n ? col[p + l] : 0;
    const float vj = l < n ? lo16(val[p + l]) : 0.f;
    for (int i = 0; i < n; i += N) {
      int cc[N];
      float vv[N];
#pragma unroll
      for (int e = 0; e < N; ++e) {
        cc[e] = __shfl_sync(mask, cj, i + e, G);
        vv[e] = __shfl_sync(mask, vj, i + e, G);
        if (i + e >= n)
          vv[e] = 0.f; // cj of a lane past n is column 0: a valid row
      }
      uint4 x[N];
#pragma unroll
      for (int e = 0; e < N; ++e)
        x[e] = b[size_t(cc[e]) * (K / 8) + l];
#pragma unroll
      for (int e = 0; e < N; ++e)
        fma8(acc, vv[e], x[e]);
    }
  }
  c[size_t(row) * (K / 8) + l] = pack8(acc);
}

/// bf16 with few registers, for full occupancy (8 CTAs of 256 a
/// multiprocessor, 32 registers): K/8 lanes a row as row16, but every lane
/// of a group reads the entry's column and value itself (one broadcast
/// load each, no cached entries, no shuffles), N entries' B loads in
/// flight.
template <int K, int N>
__global__ void __launch_bounds__(256, 8)
    row16d(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const uint16_t *__restrict__ val,
           const uint4 *__restrict__ b, uint4 *__restrict__ c) {
  constexpr int G = K / 8;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G;
  if (row >= rows)
    return;
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  const uint4 *bl = b + tid % G;
  float acc[8] = {};
  int e = begin;
  for (; e + N <= end; e += N) {
    uint4 x[N];
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
      x[j] = bl[size_t(__ldg(col + e + j)) * G];
      v[j] = lo16(__ldg(val + e + j));
    }
#pragma unroll
    for (int j = 0; j < N; ++j)
      fma8(acc, v[j], x[j]);
  }
  for (; e < end; ++e)
    fma8(acc, lo16(__ldg(val + e)), bl[size_t(__ldg(col + e)) * G]);
  c[size_t(tid)] = pack8(acc);
}

/// row16d's scheme in fp32 (K/4 lanes a row, a float4 of B a lane).
template <int K, int N>
__global__ void __launch_bounds__(256, 8)
    row32d(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const float *__restrict__ val,
           const float4 *__restrict__ b, float4 *__restrict__ c) {
  constexpr int G = K / 4;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G;
  if (row >= rows)
    return;
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  const float4 *bl = b + tid % G;
  float4 acc = {0, 0, 0, 0};
  auto fma4 = [&](float v, float4 x) {
    acc.x = fmaf(v, x.x, acc.x);
    acc.y = fmaf(v, x.y, acc.y);
    acc.z = fmaf(v, x.z, acc.z);
    acc.w = fmaf(v, x.w, acc.w);
  };
  int e = begin;
  for (; e + N <= end; e += N) {
    float4 x[N];
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
      x[j] = bl[size_t(__ldg(col + e + j)) * G];
      v[j] = __ldg(val + e + j);
    }
#pragma unroll
    for (int j = 0; j < N; ++j)
      fma4(v[j], x[j]);
  }
  for (; e < end; ++e)
    fma4(__ldg(val + e), bl[size_t(__ldg(col + e)) * G]);
  c[size_t(tid)] = acc;
}

/// bf16 on pairs of entries: 2 K/8 lanes a row, half h of the group
/// loading entry h of each pair (16 bytes, 8 columns a lane), pairs in
/// batches of 2 (shuffles, then loads, then multiply-adds); the halves'
/// sums are added by one shuffle each at the end. Aligned: a pair is
/// columns 2p and 2p + 1 of one index `pcol[i]` = 2p, whose two B rows
/// share a 128-byte line at K = 32 (one request for two entries); else a
/// pair is any two entries, columns pcol[2i], pcol[2i + 1]. `pval[i]`
/// holds the pair's values (bf16, entry 0 in the low half); a zero value
/// is padding, and its lane loads nothing.
template <int K, bool Aligned, bool F32Out>
__global__ void __launch_bounds__(256)
    row16pair(int rows, const int *__restrict__ pairPtr,
              const int *__restrict__ pcol, const uint32_t *__restrict__ pval,
              const uint4 *__restrict__ b, void *__restrict__ c) {
  constexpr int G = K / 8, P = 2 * G;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / P, l = tid % P, h = l / G, q = l % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<P>();
  const int begin = pairPtr[row], end = pairPtr[row + 1];
  float acc[8] = {};
  for (int p = begin; p < end; p += P) {
    const int n = min(P, end - p);
    // Lane j caches pair p + j: its columns (Aligned: the first) and its
    // two values.
    const int cj = l < n ? (Aligned ? pcol[p + l] : pcol[2 * (p + l)]) : 0;
    const int cj1 = !Aligned && l < n ? pcol[2 * (p + l) + 1] : 0;
    const uint32_t wj = l < n ? pval[p + l] : 0u;
    // Aligned: one shuffle gives both halves' columns; else two.
    auto column = [&](int i) {
      if constexpr (Aligned) {
        return __shfl_sync(mask, cj, i, P) + h;
      } else {
        const int c0 = __shfl_sync(mask, cj, i, P);
        const int c1 = __shfl_sync(mask, cj1, i, P);
        return h ? c1 : c0;
      }
    };
    auto value = [&](int i) {
      const uint32_t w = __shfl_sync(mask, wj, i, P);
      return h ? hi16(w) : lo16(w);
    };
    int i = 0;
    for (; i + 1 < n; i += 2) {
      const int c0 = column(i), c1 = column(i + 1);
      const float v0 = value(i), v1 = value(i + 1);
      uint4 x0 = make_uint4(0, 0, 0, 0), x1 = x0;
      if (v0 != 0.f)
        x0 = b[size_t(c0) * G + q];
      if (v1 != 0.f)
        x1 = b[size_t(c1) * G + q];
      fma8(acc, v0, x0);
      fma8(acc, v1, x1);
    }
    if (i < n) {
      const int c0 = column(i);
      const float v0 = value(i);
      if (v0 != 0.f)
        fma8(acc, v0, b[size_t(c0) * G + q]);
    }
  }
#pragma unroll
  for (int j = 0; j < 8; ++j)
    acc[j] += __shfl_xor_sync(mask, acc[j], G, P);
  if (h == 0)
    store8<F32Out>(c, K, row, 8 * q, acc);
}

/// bf16 with 16 columns a lane (two 16-byte loads an entry): K/16 lanes a
/// row, each caching E entries a step (the group's G E entries), entries
/// in batches of 2.
template <int K, int E>
__global__ void __launch_bounds__(256)
    row16w(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const uint16_t *__restrict__ val,
           const uint4 *__restrict__ b, uint4 *__restrict__ c) {
  constexpr int G = K / 16;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float acc[8] = {}, acc2[8] = {}; // columns 16 l + 0..7 and + 8..15
  auto fma16 = [&](float v, uint4 x, uint4 y) {
    fma8(acc, v, x);
    fma8(acc2, v, y);
  };
  const uint4 *bl = b + 2 * l;
  for (int p = begin; p < end; p += G * E) {
    const int n = min(G * E, end - p);
    int cj[E];
    float vj[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int i = e * G + l;
      cj[e] = i < n ? col[p + i] : 0;
      vj[e] = i < n ? lo16(val[p + i]) : 0.f;
    }
    // Entry i of the step is lane i % G's cached entry i / G.
#pragma unroll
    for (int e = 0; e < E; ++e) {
      if (e * G >= n)
        break;
      int i = 0;
      const int m = min(G, n - e * G);
      for (; i + 1 < m; i += 2) {
        const int c0 = __shfl_sync(mask, cj[e], i, G);
        const int c1 = __shfl_sync(mask, cj[e], i + 1, G);
        const float v0 = __shfl_sync(mask, vj[e], i, G);
        const float v1 = __shfl_sync(mask, vj[e], i + 1, G);
        const uint4 x0 = bl[size_t(c0) * (K / 8)];
        const uint4 y0 = bl[size_t(c0) * (K / 8) + 1];
        const uint4 x1 = bl[size_t(c1) * (K / 8)];
        const uint4 y1 = bl[size_t(c1) * (K / 8) + 1];
        fma16(v0, x0, y0);
        fma16(v1, x1, y1);
      }
      if (i < m) {
        const int c0 = __shfl_sync(mask, cj[e], i, G);
        const float v0 = __shfl_sync(mask, vj[e], i, G);
        fma16(v0, bl[size_t(c0) * (K / 8)], bl[size_t(c0) * (K / 8) + 1]);
      }
    }
  }
  uint4 *out = c + size_t(row) * (K / 8) + 2 * l;
  out[0] = pack8(acc);
  out[1] = pack8(acc2);
}

/// bf16, K/8 lanes a row (8 columns a lane), each lane caching E entries
/// a step, so that a step's G E entries are all broadcast, then all loaded
/// (loads past the row's end predicated off), then all multiplied: one
/// round trip for B per step instead of one per batch of 2.
template <int K, int E>
__global__ void __launch_bounds__(256)
    row16x(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const uint16_t *__restrict__ val,
           const uint4 *__restrict__ b, uint4 *__restrict__ c) {
  constexpr int G = K / 8;
  constexpr int N = G * E;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float acc[8] = {};
  const uint4 *bl = b + l;
  for (int p = begin; p < end; p += N) {
    const int n = min(N, end - p);
    int cj[E];
    float vj[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int i = e * G + l;
      cj[e] = i < n ? col[p + i] : -1;
      vj[e] = i < n ? lo16(val[p + i]) : 0.f;
    }
    int cc[N];
    float vv[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      cc[i] = __shfl_sync(mask, cj[i / G], i % G, G);
      vv[i] = __shfl_sync(mask, vj[i / G], i % G, G);
    }
    uint4 x[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
      x[i] = cc[i] >= 0 ? bl[size_t(cc[i]) * (K / 8)] : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < N; ++i)
      fma8(acc, vv[i], x[i]);
  }
  c[size_t(row) * (K / 8) + l] = pack8(acc);
}

/// fp32 counterpart of row16x: K/4 lanes a row, float4 a lane.
template <int K, int E>
__global__ void __launch_bounds__(256)
    row32x(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const float *__restrict__ val,
           const float4 *__restrict__ b, float4 *__restrict__ c) {
  constexpr int G = K / 4;
  constexpr int N = G * E;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = tid / G, l = tid % G;
  if (row >= rows)
    return;
  const unsigned mask = groupMask<G>();
  const int begin = rowPtr[row], end = rowPtr[row + 1];
  float4 acc = {0, 0, 0, 0};
  const float4 *bl = b + l;
  for (int p = begin; p < end; p += N) {
    const int n = min(N, end - p);
    int cj[E];
    float vj[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int i = e * G + l;
      cj[e] = i < n ? col[p + i] : -1;
      vj[e] = i < n ? val[p + i] : 0.f;
    }
    int cc[N];
    float vv[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      cc[i] = __shfl_sync(mask, cj[i / G], i % G, G);
      vv[i] = __shfl_sync(mask, vj[i / G], i % G, G);
    }
    float4 x[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
      x[i] = cc[i] >= 0 ? bl[size_t(cc[i]) * (K / 4)] : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      acc.x = fmaf(vv[i], x[i].x, acc.x);
      acc.y = fmaf(vv[i], x[i].y, acc.y);
      acc.z = fmaf(vv[i], x[i].z, acc.z);
      acc.w = fmaf(vv[i], x[i].w, acc.w);
    }
  }
  c[size_t(row) * (K / 4) + l] = acc;
}

__device__ __forceinline__ uint32_t transpose8x8(uint32_t x) {
  uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;"
               : "=r"(y)
               : "r"(x));
  return y;
}

__device__ __forceinline__ void mma(float (&d)[4], uint32_t a0, uint32_t a1,
                                    uint32_t a2, uint32_t a3, uint32_t b0,
                                    uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t part(const uint4 &x, int j) {
  return j == 0 ? x.x : j == 1 ? x.y : j == 2 ? x.z : x.w;
}

/// bf16 on the tensor cores: a warp per window of 8 rows (see the header).
/// `val` and `col` are padded by 16 entries past nnz.
template <int K, bool F32Out, bool Split>
__global__ void __launch_bounds__(256)
    mma16(int rows, const int *__restrict__ rowPtr, const int *__restrict__ col,
          const uint16_t *__restrict__ val, const uint4 *__restrict__ b,
          void *__restrict__ c) {
  constexpr int T = K / 32;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  const int r0 = warp * 8;
  if (r0 >= rows)
    return;
  const int g = lane >> 2, q = lane & 3;
  const int pn = rowPtr[min(r0 + g, rows)];
  const int pn1 = rowPtr[min(r0 + g + 1, rows)];
  const int first = __shfl_sync(0xffffffffu, pn, 0);
  const int last = __shfl_sync(0xffffffffu, pn1, 28);
  float acc[T][2][4] = {};
  for (int s = first & ~1; s < last; s += 16) {
    const int sa = s + g, sb = s + 8 + g;
    uint4 ra[T], rb[T];
    const int ca = sa < last ? col[sa] : -1;
    const int cb = sb < last ? col[sb] : -1;
#pragma unroll
    for (int t = 0; t < T; ++t) {
      ra[t] = ca >= 0 ? b[size_t(ca) * (K / 8) + 4 * t + q]
                      : make_uint4(0, 0, 0, 0);
      rb[t] = cb >= 0 ? b[size_t(cb) * (K / 8) + 4 * t + q]
                      : make_uint4(0, 0, 0, 0);
    }
    const int k0 = s + 2 * q, k1 = k0 + 8;
    const uint32_t w0 = *reinterpret_cast<const uint32_t *>(val + k0);
    const uint32_t w1 = *reinterpret_cast<const uint32_t *>(val + k1);
    auto in = [&](int k) { return k >= pn && k < pn1; };
    const uint32_t b0 =
        w0 & ((in(k0) ? 0xffffu : 0u) | (in(k0 + 1) ? 0xffff0000u : 0u));
    const uint32_t b1 =
        w1 & ((in(k1) ? 0xffffu : 0u) | (in(k1 + 1) ? 0xffff0000u : 0u));
#pragma unroll
    for (int t = 0; t < T; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t a0 = transpose8x8(part(ra[t], 2 * h));
        const uint32_t a1 = transpose8x8(part(ra[t], 2 * h + 1));
        const uint32_t a2 = transpose8x8(part(rb[t], 2 * h));
        const uint32_t a3 = transpose8x8(part(rb[t], 2 * h + 1));
        if (Split) {
          float d[4] = {0, 0, 0, 0};
          mma(d, a0, a1, a2, a3, b0, b1);
#pragma unroll
          for (int i = 0; i < 4; ++i)
            acc[t][h][i] += d[i];
        } else {
          mma(acc[t][h], a0, a1, a2, a3, b0, b1);
        }
      }
  }
  // acc[t][h][i]: row 2q + (i & 1), column 32t + 8(g/2) + 2j + (g & 1)
  // with j = 2h + i/2. The even-g lane of a pair stores row 2q, the odd one
  // row 2q + 1, each all 8 columns 32t + 8(g/2) + 0..7.
  const int odd = g & 1;
  const int row = r0 + 2 * q + odd;
#pragma unroll
  for (int t = 0; t < T; ++t) {
    float s[8];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float row0 = acc[t][j / 2][(j & 1) * 2];
      const float row1 = acc[t][j / 2][(j & 1) * 2 + 1];
      const float mine = odd ? row1 : row0;
      const float give = odd ? row0 : row1;
      const float got = __shfl_xor_sync(0xffffffffu, give, 4);
      s[2 * j + odd] = mine;
      s[2 * j + 1 - odd] = got;
    }
    if (row < rows)
      store8<F32Out>(c, K, row, 32 * t + 8 * (g / 2), s);
  }
}

/// Loads the K/8 bf16 elements of a B row at `p` (8 or 16 bytes, or two
/// 16-byte loads) as K/16 words.
template <int CPL>
__device__ __forceinline__ void loadWords(const void *p,
                                          uint32_t (&w)[CPL / 2]) {
  if constexpr (CPL == 4) {
    const uint2 x = *static_cast<const uint2 *>(p);
    w[0] = x.x;
    w[1] = x.y;
  } else {
#pragma unroll
    for (int h = 0; h < CPL / 8; ++h) {
      const uint4 x = static_cast<const uint4 *>(p)[h];
      w[4 * h] = x.x;
      w[4 * h + 1] = x.y;
      w[4 * h + 2] = x.z;
      w[4 * h + 3] = x.w;
    }
  }
}

/// Stores lane (g, q)'s C fragments of mma16p and mma16s, window at row
/// r0: acc[i] is rows 2q and 2q + 1 at columns (K/8) g + 2i and + 1 —
/// d0 (2q, 2i), d1 (2q + 1, 2i), d2 (2q, 2i + 1), d3 (2q + 1, 2i + 1) —
/// so each row's K/8 columns are contiguous.
template <int K, bool F32Out>
__device__ __forceinline__ void storeFragments(void *c, int rows, int r0, int g,
                                               int q,
                                               const float (&acc)[K / 16][4]) {
  constexpr int CPL = K / 8;
  constexpr int W = CPL / 2;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = r0 + 2 * q + r;
    if (row >= rows)
      continue;
    if (F32Out) {
      float *p = static_cast<float *>(c) + size_t(row) * K + CPL * g;
#pragma unroll
      for (int i = 0; i < W; ++i)
        *reinterpret_cast<float2 *>(p + 2 * i) =
            make_float2(acc[i][r], acc[i][2 + r]);
    } else {
      uint32_t o[W];
#pragma unroll
      for (int i = 0; i < W; ++i)
        o[i] = pack(acc[i][r], acc[i][2 + r]);
      uint16_t *p = static_cast<uint16_t *>(c) + size_t(row) * K + CPL * g;
      if constexpr (W == 2) {
        *reinterpret_cast<uint2 *>(p) = make_uint2(o[0], o[1]);
      } else {
#pragma unroll
        for (int h = 0; h < W / 4; ++h)
          reinterpret_cast<uint4 *>(p)[h] =
              make_uint4(o[4 * h], o[4 * h + 1], o[4 * h + 2], o[4 * h + 3]);
      }
    }
  }
}

/// mma16 without movmatrix: lane g*4+q loads K/8 columns (g's) of the B
/// rows of slots 2q, 2q+1, 2q+8, 2q+9 and pairs the two slots' elements
/// of a column with a byte permute (the A fragment's k pairs). MMA i takes
/// columns (K/8)g + 2i (m = g) and (K/8)g + 2i + 1 (m = g + 8), so a lane's
/// C fragments are K/8 contiguous columns of rows 2q and 2q + 1.
template <int K, bool F32Out, bool Split, int U>
__global__ void __launch_bounds__(256)
    mma16p(int rows, const int *__restrict__ rowPtr,
           const int *__restrict__ col, const uint16_t *__restrict__ val,
           const uint16_t *__restrict__ b, void *__restrict__ c) {
  constexpr int CPL = K / 8; // columns a lane
  constexpr int W = CPL / 2; // 32-bit words a lane and slot; MMAs a chunk
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  const int r0 = warp * 8;
  if (r0 >= rows)
    return;
  const int g = lane >> 2, q = lane & 3;
  const int pn = rowPtr[min(r0 + g, rows)];
  const unsigned len = unsigned(rowPtr[min(r0 + g + 1, rows)] - pn);
  const int first = __shfl_sync(0xffffffffu, pn, 0);
  const int last = __shfl_sync(0xffffffffu, pn + int(len), 28);
  float acc[W][4] = {};
  auto loadRow = [&](int slot, int cc, uint32_t(&w)[W]) {
    if (slot >= first && slot < last) {
      loadWords<CPL>(b + size_t(cc) * K + CPL * g, w);
    } else {
#pragma unroll
      for (int i = 0; i < W; ++i)
        w[i] = 0;
    }
  };
#pragma unroll(U)
  for (int s = first & ~1; s < last; s += 16) {
    const int k0 = s + 2 * q, k1 = k0 + 8;
    const int2 ca = *reinterpret_cast<const int2 *>(col + k0);
    const int2 cb = *reinterpret_cast<const int2 *>(col + k1);
    uint32_t x0[W], x1[W], y0[W], y1[W];
    loadRow(k0, ca.x, x0);
    loadRow(k0 + 1, ca.y, x1);
    loadRow(k1, cb.x, y0);
    loadRow(k1 + 1, cb.y, y1);
    const uint32_t w0 = *reinterpret_cast<const uint32_t *>(val + k0);
    const uint32_t w1 = *reinterpret_cast<const uint32_t *>(val + k1);
    auto in = [&](int k) { return unsigned(k - pn) < len; };
    const uint32_t b0 =
        w0 & ((in(k0) ? 0xffffu : 0u) | (in(k0 + 1) ? 0xffff0000u : 0u));
    const uint32_t b1 =
        w1 & ((in(k1) ? 0xffffu : 0u) | (in(k1 + 1) ? 0xffff0000u : 0u));
#pragma unroll
    for (int i = 0; i < W; ++i) {
      const uint32_t a0 = __byte_perm(x0[i], x1[i], 0x5410);
      const uint32_t a1 = __byte_perm(x0[i], x1[i], 0x7632);
      const uint32_t a2 = __byte_perm(y0[i], y1[i], 0x5410);
      const uint32_t a3 = __byte_perm(y0[i], y1[i], 0x7632);
      if (Split) {
        float d[4] = {0, 0, 0, 0};
        mma(d, a0, a1, a2, a3, b0, b1);
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] += d[j];
      } else {
        mma(acc[i], a0, a1, a2, a3, b0, b1);
      }
    }
  }
  storeFragments<K, F32Out>(c, rows, r0, g, q, acc);
}

/// mma16p on a sliced ELL layout (SELL-8): window w's chunk t holds entries
/// 2t and 2t + 1 of each of its 8 rows, slot 2r + e = row r's entry 2t + e
/// (column -1 and value 0 past the row's end). Slot k's row is k / 2, so
/// lane (g, q)'s B-operand pairs are nonzero only where g == q (slots 2q,
/// 2q + 1) or g == q + 4 (slots 2q + 8, 2q + 9): no range compares.
template <int K, bool F32Out>
__global__ void __launch_bounds__(256)
    mma16s(int rows, const int *__restrict__ chunkPtr,
           const int *__restrict__ scol, const uint32_t *__restrict__ sval,
           const uint16_t *__restrict__ b, void *__restrict__ c) {
  constexpr int CPL = K / 8;
  constexpr int W = CPL / 2;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  const int r0 = warp * 8;
  if (r0 >= rows)
    return;
  const int g = lane >> 2, q = lane & 3;
  const int begin = chunkPtr[warp], end = chunkPtr[warp + 1];
  const bool hasLo = g == q, hasHi = g == q + 4;
  const unsigned long long bLane =
      reinterpret_cast<unsigned long long>(b + CPL * g);
  float acc[W][4] = {};
  // Padding slots repeat a real column of the window (value 0): every load
  // is unconditional.
  auto loadRow = [&](int cc, uint32_t(&w)[W]) {
    unsigned long long a;
    asm("mad.wide.u32 %0, %1, %2, %3;"
        : "=l"(a)
        : "r"(cc), "r"(2 * K), "l"(bLane));
    loadWords<CPL>(reinterpret_cast<const void *>(a), w);
  };
  const int *cp = scol + 16 * begin + 2 * q;
  const uint32_t *vp = sval + 8 * begin + q + (hasHi ? 4 : 0);
  const bool hasVal = hasLo || hasHi;
  for (int t = begin; t < end; ++t, cp += 16, vp += 8) {
    const int2 ca = *reinterpret_cast<const int2 *>(cp);
    const int2 cb = *reinterpret_cast<const int2 *>(cp + 8);
    uint32_t x0[W], x1[W], y0[W], y1[W];
    loadRow(ca.x, x0);
    loadRow(ca.y, x1);
    loadRow(cb.x, y0);
    loadRow(cb.y, y1);
    uint32_t v = 0;
    if (hasVal)
      v = *vp;
    const uint32_t b0 = hasLo ? v : 0u, b1 = hasHi ? v : 0u;
#pragma unroll
    for (int i = 0; i < W; ++i) {
      const uint32_t a0 = __byte_perm(x0[i], x1[i], 0x5410);
      const uint32_t a1 = __byte_perm(x0[i], x1[i], 0x7632);
      const uint32_t a2 = __byte_perm(y0[i], y1[i], 0x5410);
      const uint32_t a3 = __byte_perm(y0[i], y1[i], 0x7632);
      mma(acc[i], a0, a1, a2, a3, b0, b1);
    }
  }
  storeFragments<K, F32Out>(c, rows, r0, g, q, acc);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

uint16_t toBf16(float x) {
  __nv_bfloat16 h = __float2bfloat16_rn(x);
  return *reinterpret_cast<uint16_t *>(&h);
}
float fromBf16(uint16_t h) {
  uint32_t w = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

double normwise(const std::vector<float> &got, const std::vector<double> &ref) {
  double e = 0, n = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    e += (got[i] - ref[i]) * (got[i] - ref[i]);
    n += ref[i] * ref[i];
  }
  return std::sqrt(e / std::max(n, 1e-300));
}

template <int K> void run(const std::string &name, const Csr &m) {
  const int rows = m.rows;
  const size_t nnz = m.col.size();
  // fp32 and bf16 operands; bf16 reference from the rounded ones.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> b32(size_t(m.cols) * K);
  for (float &x : b32)
    x = d(rng);
  std::vector<uint16_t> b16(b32.size()), v16(nnz + 16, 0);
  for (size_t i = 0; i < b32.size(); ++i)
    b16[i] = toBf16(b32[i]);
  for (size_t i = 0; i < nnz; ++i)
    v16[i] = toBf16(m.val[i]);
  std::vector<double> ref32(size_t(rows) * K, 0), ref16(size_t(rows) * K, 0);
  for (int r = 0; r < rows; ++r)
    for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
      const size_t bo = size_t(m.col[e]) * K, co = size_t(r) * K;
      const double v = m.val[e], w = fromBf16(v16[e]);
      for (int j = 0; j < K; ++j) {
        ref32[co + j] += v * b32[bo + j];
        ref16[co + j] += w * double(fromBf16(b16[bo + j]));
      }
    }
  std::vector<int> colPad(m.col);
  colPad.resize(nnz + 16, 0);
  int *dRowPtr = upload(m.rowPtr), *dCol = upload(colPad);
  float *dVal = upload(m.val), *dB32 = upload(b32);
  uint16_t *dVal16 = upload(v16), *dB16 = upload(b16);
  float *dC = nullptr;
  CHECK(cudaMalloc(&dC, size_t(rows) * K * sizeof(float)));
  std::vector<float> h(size_t(rows) * K);
  auto fetch32 = [&]() {
    CHECK(cudaMemcpy(h.data(), dC, h.size() * 4, cudaMemcpyDeviceToHost));
  };
  const double bytes32 = nnz * 8.0 + (double(m.cols) + rows) * K * 4;
  const double bytes16 = nnz * 6.0 + (double(m.cols) + rows) * K * 2;
  auto report = [&](const char *kernel, double err, float ms, double bytes) {
    std::printf("mma %s K=%d kernel=%s rows=%d nnz=%zu err=%.3g us=%.2f "
                "GBps=%.0f\n",
                name.c_str(), K, kernel, rows, nnz, err, ms * 1e3,
                bytes / (ms * 1e-3) / 1e9);
    std::fflush(stdout);
  };
  const int threads = 256;
  auto fetch16 = [&]() {
    std::vector<uint16_t> c16(h.size());
    CHECK(cudaMemcpy(c16.data(), dC, c16.size() * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < c16.size(); ++i)
      h[i] = fromBf16(c16[i]);
  };
  // Checks `check` (which writes C as fp32, or as bf16 when bf16C) against
  // ref, then times `time`.
  auto measure = [&](const char *kernel, const std::vector<double> &ref,
                     double bytes, bool bf16C, auto check, auto time) {
    CHECK(cudaMemset(dC, 0, h.size() * 4));
    check();
    CHECK(cudaDeviceSynchronize());
    bf16C ? fetch16() : fetch32();
    report(kernel, normwise(h, ref), medianMs(runs(), runs() > 1, time), bytes);
  };
  auto *b4 = reinterpret_cast<const float4 *>(dB32);
  auto *bVec16 = reinterpret_cast<const uint4 *>(dB16);
  auto *c4 = reinterpret_cast<float4 *>(dC);
  auto *c16 = reinterpret_cast<uint4 *>(dC);
  auto gridFor = [&](size_t threadsNeeded) {
    return int((threadsNeeded + threads - 1) / threads);
  };
  // CUDA-core kernels: fp32 with K/4 lanes a row, bf16 with K/8 (row16w:
  // K/16); each checked with its own C.
  const int g4 = gridFor(size_t(rows) * (K / 4));
  const int g8 = gridFor(size_t(rows) * (K / 8));
  const int g16 = gridFor(size_t(rows) * (K / 16));
  auto fp32 = [&](const char *kernel, auto f) {
    auto launch = [&]() {
      f<<<g4, threads>>>(rows, dRowPtr, dCol, dVal, b4, c4);
    };
    measure(kernel, ref32, bytes32, false, launch, launch);
  };
  auto bf16 = [&](const char *kernel, int grid, auto f) {
    auto launch = [&]() {
      f<<<grid, threads>>>(rows, dRowPtr, dCol, dVal16, bVec16, c16);
    };
    measure(kernel, ref16, bytes16, true, launch, launch);
  };
  fp32("row32", row32<K>);
  measure(
      "row16", ref16, bytes16, false,
      [&]() {
        row16<K, true>
            <<<g8, threads>>>(rows, dRowPtr, dCol, dVal16, bVec16, dC);
      },
      [&]() {
        row16<K, false>
            <<<g8, threads>>>(rows, dRowPtr, dCol, dVal16, bVec16, dC);
      });
  bf16("row16b2", g8, row16b<K, 2, 1>);
  bf16("row16b2o8", g8, row16b<K, 2, 8>);
  bf16("row16b4", g8, row16b<K, 4, 1>);
  bf16("row16b4o8", g8, row16b<K, 4, 8>);
  bf16("row16b8", g8, row16b<K, 8, 1>);
  bf16("row16w1", g16, row16w<K, 1>);
  bf16("row16w2", g16, row16w<K, 2>);
  bf16("row16w4", g16, row16w<K, 4>);
  bf16("row16x1", g8, row16x<K, 1>);
  bf16("row16d1", g8, row16d<K, 1>);
  bf16("row16d2", g8, row16d<K, 2>);
  bf16("row16d4", g8, row16d<K, 4>);
  fp32("row32d2", row32d<K, 2>);
  fp32("row32d4", row32d<K, 4>);
  if constexpr (K == 32) {
    bf16("row16x2", g8, row16x<K, 2>);
    bf16("row16x3", g8, row16x<K, 3>);
  }
  fp32("row32x1", row32x<K, 1>);
  // Pairs of entries (row16pair): aligned (columns 2p and 2p + 1 under
  // one index) and any two consecutive entries of a row.
  for (const bool aligned : {true, false}) {
    std::vector<int> pairPtr(rows + 1, 0), pcol;
    std::vector<uint32_t> pval;
    for (int r = 0; r < rows; ++r) {
      const int end = m.rowPtr[r + 1];
      for (int e = m.rowPtr[r]; e < end;) {
        const int c0 = m.col[e];
        if (aligned) {
          const int base = c0 & ~1;
          uint32_t lo = 0, hi = 0;
          if (c0 == base) {
            lo = v16[e++];
            if (e < end && m.col[e] == base + 1)
              hi = v16[e++];
          } else {
            hi = v16[e++];
          }
          pcol.push_back(base);
          pval.push_back(lo | hi << 16);
        } else {
          const bool two = e + 1 < end;
          pcol.push_back(c0);
          pcol.push_back(two ? m.col[e + 1] : c0);
          pval.push_back(v16[e] | (two ? uint32_t(v16[e + 1]) << 16 : 0u));
          e += two ? 2 : 1;
        }
      }
      pairPtr[r + 1] = int(pval.size());
    }
    std::printf("pairs %s K=%d aligned=%d pairs=%zu nnz=%zu\n", name.c_str(),
                K, int(aligned), pval.size(), nnz);
    pcol.resize(pcol.size() + 64, 0);
    pval.resize(pval.size() + 32, 0);
    int *dPairPtr = upload(pairPtr), *dPcol = upload(pcol);
    uint32_t *dPval = upload(pval);
    const double bytesP = double(pairPtr[rows]) * (aligned ? 8 : 12) +
                          (double(m.cols) + rows) * K * 2;
    const int gP = gridFor(size_t(rows) * (K / 4));
    auto launch = [&](auto f) {
      f<<<gP, threads>>>(rows, dPairPtr, dPcol, dPval, bVec16, dC);
    };
    if (aligned)
      measure(
          "row16pa", ref16, bytesP, false,
          [&] { launch(row16pair<K, true, true>); },
          [&] { launch(row16pair<K, true, false>); });
    else
      measure(
          "row16ph", ref16, bytesP, false,
          [&] { launch(row16pair<K, false, true>); },
          [&] { launch(row16pair<K, false, false>); });
    CHECK(cudaFree(dPairPtr));
    CHECK(cudaFree(dPcol));
    CHECK(cudaFree(dPval));
  }
  // Tensor-core kernels: a warp per window of 8 rows; checked with an fp32
  // C (the F32Out instance), timed with the bf16 one.
  const int gWindows = gridFor(size_t((rows + 7) / 8) * 32);
  auto tc = [&](const char *kernel, auto f32, auto f16, auto b) {
    measure(
        kernel, ref16, bytes16, false,
        [&]() {
          f32<<<gWindows, threads>>>(rows, dRowPtr, dCol, dVal16, b, dC);
        },
        [&]() {
          f16<<<gWindows, threads>>>(rows, dRowPtr, dCol, dVal16, b, dC);
        });
  };
  tc("mma16", mma16<K, true, false>, mma16<K, false, false>, bVec16);
  tc("mma16x", mma16<K, true, true>, mma16<K, false, true>, bVec16);
  tc("mma16p", mma16p<K, true, false, 1>, mma16p<K, false, false, 1>,
     static_cast<const uint16_t *>(dB16));
  tc("mma16p2", mma16p<K, true, false, 2>, mma16p<K, false, false, 2>,
     static_cast<const uint16_t *>(dB16));
  tc("mma16px", mma16p<K, true, true, 1>, mma16p<K, false, true, 1>,
     static_cast<const uint16_t *>(dB16));
  {
    // SELL-8 with pairs: chunk t of window w = entries 2t, 2t + 1 of its rows.
    const int windows = (rows + 7) / 8;
    std::vector<int> chunkPtr(windows + 1, 0), scol;
    std::vector<uint16_t> sval;
    for (int w = 0; w < windows; ++w) {
      int longest = 0;
      for (int r = 8 * w; r < std::min(rows, 8 * w + 8); ++r)
        longest = std::max(longest, m.rowPtr[r + 1] - m.rowPtr[r]);
      const int chunks = (longest + 1) / 2;
      chunkPtr[w + 1] = chunkPtr[w] + chunks;
      // Padding repeats the row's last column (the window's first for an
      // empty row): a load that hits the cache.
      int any = 0;
      for (int r = 8 * w; r < std::min(rows, 8 * w + 8); ++r)
        if (m.rowPtr[r + 1] > m.rowPtr[r]) {
          any = m.col[m.rowPtr[r]];
          break;
        }
      for (int t = 0; t < chunks; ++t)
        for (int slot = 0; slot < 16; ++slot) {
          const int r = 8 * w + slot / 2, e = 2 * t + slot % 2;
          const int len = r < rows ? m.rowPtr[r + 1] - m.rowPtr[r] : 0;
          const bool has = e < len;
          scol.push_back(has   ? m.col[m.rowPtr[r] + e]
                         : len ? m.col[m.rowPtr[r] + len - 1]
                               : any);
          sval.push_back(has ? v16[m.rowPtr[r] + e] : 0);
        }
    }
    std::printf("sell %s K=%d slots=%zu nnz=%zu fill=%.3f\n", name.c_str(), K,
                scol.size(), nnz, double(nnz) / scol.size());
    int *dChunk = upload(chunkPtr), *dScol = upload(scol);
    uint16_t *dSval = upload(sval);
    auto *sv = reinterpret_cast<const uint32_t *>(dSval);
    measure(
        "mma16s", ref16, bytes16, false,
        [&]() {
          mma16s<K, true>
              <<<gWindows, threads>>>(rows, dChunk, dScol, sv, dB16, dC);
        },
        [&]() {
          mma16s<K, false>
              <<<gWindows, threads>>>(rows, dChunk, dScol, sv, dB16, dC);
        });
    CHECK(cudaFree(dChunk));
    CHECK(cudaFree(dScol));
    CHECK(cudaFree(dSval));
  }
  CHECK(cudaFree(dRowPtr));
  CHECK(cudaFree(dCol));
  CHECK(cudaFree(dVal));
  CHECK(cudaFree(dB32));
  CHECK(cudaFree(dVal16));
  CHECK(cudaFree(dB16));
  CHECK(cudaFree(dC));
}

/// PROTO_K (32, 64 or 128) runs one K instead of all three.
void runAll(const std::string &name, const Csr &m) {
  const char *env = std::getenv("PROTO_K");
  const int k = env ? std::atoi(env) : 0;
  if (!k || k == 32)
    run<32>(name, m);
  if (!k || k == 64)
    run<64>(name, m);
  if (!k || k == 128)
    run<128>(name, m);
}

/// PROTO_ONLY=NAME runs only the generated matrix NAME.
bool wanted(const char *name) {
  const char *env = std::getenv("PROTO_ONLY");
  return !env || std::string(env) == name;
}

} // namespace

int main(int argc, char **argv) {
  Csr m;
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) {
      if (!readMatrix(argv[i], m)) {
        std::fprintf(stderr, "%s: cannot read\n", argv[i]);
        return 1;
      }
      std::string name = argv[i];
      name = name.substr(name.find_last_of('/') + 1);
      runAll(name.substr(0, name.find('.')), m);
    }
    return 0;
  }
  if (wanted("banded-256k-w4")) {
    banded(m, 262144, 4);
    runAll("banded-256k-w4", m);
  }
  if (wanted("banded-64k-w8")) {
    banded(m, 65536, 8);
    runAll("banded-64k-w8", m);
  }
  if (wanted("stencil-3d7-64")) {
    stencil3d7(m, 64);
    runAll("stencil-3d7-64", m);
  }
  if (wanted("stencil-2d9-512")) {
    stencil2d9(m, 512);
    runAll("stencil-2d9-512", m);
  }
  if (wanted("uniform-128k-6.5")) {
    uniform(m, 131072, 6.55, 34);
    runAll("uniform-128k-6.5", m);
  }
  if (wanted("uniform-32k-16")) {
    uniform(m, 32768, 16.4, 35);
    runAll("uniform-32k-16", m);
  }
  return 0;
}
