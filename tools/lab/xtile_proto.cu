//===- xtile_proto.cu - SpMM reading a row-major X in place (B = Xᵀ) ----===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// torch.nn.Linear's layout: Y = X · Wᵀ with X (K x cols) row-major, i.e.
// C = W · B with B = Xᵀ column-major (docs/Python.md, "SparseLinear"). This
// program asks whether one kernel reading X in place can run as fast as the
// generated row-major kernels do with B row-major, so that SparseLinear's
// first layer needs no transposing copy.
//
// The kernel (`xtile`): a CTA owns a block of rows of W and a chunk of T
// samples (columns of C). It stages X[chunk, :] in shared memory
// transposed — column j's T samples contiguous, i.e. a row-major tile of
// B — with float4 loads of X and 4 x 4 register transposes, the 16-byte
// chunks of each row XOR-swizzled (and the store order rotated for T < 32)
// so that the stores are free of bank conflicts. Then G lanes per row (V =
// T / G consecutive samples a lane) walk the row's entries in batches of
// slices of G entries (loaded coalesced, the next batch prefetched,
// broadcast by shuffle) and read their B values from shared memory: one
// float4 (float2, float; two float4 for V = 8) per entry and lane, a whole
// tile row (4 T bytes) per group of lanes. When the groups outnumber the
// CTA's rows twice or more, P > 1 parts share a row and add their partial
// sums into a shared C tile. C is written row-major (SparseLinear returns
// Y as the transposed view of C).
//
// Every configuration is checked against a float64 reference (normwise
// 1e-5) and timed per call from a CUDA graph of 20 launches (`graph_us`,
// as bench_sparse_linear.py's graph columns) and queued (`us`,
// BenchTiming.cuh). `tr` is a tiled transpose of X alone, what
// SparseLinear's copy costs at best.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o xtile_proto xtile_proto.cu
//   ./xtile_proto FILE.smtx[.gz]|FILE.mtx[.gz] ...
// Prints one `xtile` line per layer, K and configuration, then one `best`
// line per layer and K. XTILE_KS (default "32,128,512") picks the K values,
// XTILE_ORDER=0 keeps the rows' stored order, XTILE_ONLY=LABEL runs one
// configuration once, checked and untimed (for Nsight Compute), and
// XTILE_CONFIGS=LABEL,... times those alone, each with its halves.
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>

namespace {

/// Component `i` (0..3, not known at compile time) of `v`.
__device__ __forceinline__ float pick(float4 v, int i) {
  float r = v.x;
  r = i == 1 ? v.y : r;
  r = i == 2 ? v.z : r;
  r = i == 3 ? v.w : r;
  return r;
}

/// The swizzle of tile row j (T floats, T / 4 chunks of 16 bytes) and the
/// rotation of the staging stores of the thread staging column quad `jq`.
/// A quarter warp (8 threads, consecutive column quads) stores one 16-byte
/// chunk each, to 8 different tile rows; they are free of bank conflicts
/// when the chunks fall in the 8 different 16-byte slots of a 128-byte
/// bank line. For T >= 32 a row spans the whole line and the swizzle alone
/// spreads them; a shorter row (4 T bytes) fills only part of a line, so
/// the rotation, which makes the 8 threads store different columns j mod 4
/// at each step, picks the part and the swizzle the slot within it.
template <int T> __device__ __forceinline__ int swizzle(int j) {
  if constexpr (T == 64)
    return (j >> 2) & 15;
  else if constexpr (T == 32)
    return (j >> 2) & 7;
  else if constexpr (T == 16)
    return (j >> 3) & 3;
  else if constexpr (T == 8)
    return (j >> 4) & 1;
  else
    return 0;
}
template <int T> __device__ __forceinline__ int rotation(int jq) {
  if constexpr (T >= 32)
    return 0;
  else if constexpr (T == 4)
    return jq >> 1;
  else
    return jq;
}

/// V consecutive floats.
template <int V> struct Pack;
template <> struct Pack<8> {
  struct T {
    float4 a, b;
  };
  static __device__ T zero() { return {{0, 0, 0, 0}, {0, 0, 0, 0}}; }
  static __device__ void fma(T &acc, float v, float4 a, float4 b) {
    acc.a.x = fmaf(v, a.x, acc.a.x);
    acc.a.y = fmaf(v, a.y, acc.a.y);
    acc.a.z = fmaf(v, a.z, acc.a.z);
    acc.a.w = fmaf(v, a.w, acc.a.w);
    acc.b.x = fmaf(v, b.x, acc.b.x);
    acc.b.y = fmaf(v, b.y, acc.b.y);
    acc.b.z = fmaf(v, b.z, acc.b.z);
    acc.b.w = fmaf(v, b.w, acc.b.w);
  }
  static __device__ void add(float *p, T a) {
    for (int i = 0; i < 4; ++i) {
      atomicAdd(p + i, pick(a.a, i));
      atomicAdd(p + 4 + i, pick(a.b, i));
    }
  }
  static __device__ float get(T a, int i) {
    return i < 4 ? pick(a.a, i) : pick(a.b, i - 4);
  }
};
template <> struct Pack<4> {
  using T = float4;
  static __device__ T zero() { return {0, 0, 0, 0}; }
  static __device__ void fma(T &a, float v, T b) {
    a.x = fmaf(v, b.x, a.x);
    a.y = fmaf(v, b.y, a.y);
    a.z = fmaf(v, b.z, a.z);
    a.w = fmaf(v, b.w, a.w);
  }
  static __device__ void add(float *p, T a) {
    atomicAdd(p, a.x);
    atomicAdd(p + 1, a.y);
    atomicAdd(p + 2, a.z);
    atomicAdd(p + 3, a.w);
  }
  static __device__ float get(T a, int i) { return pick(a, i); }
};
template <> struct Pack<2> {
  using T = float2;
  static __device__ T zero() { return {0, 0}; }
  static __device__ void fma(T &a, float v, T b) {
    a.x = fmaf(v, b.x, a.x);
    a.y = fmaf(v, b.y, a.y);
  }
  static __device__ void add(float *p, T a) {
    atomicAdd(p, a.x);
    atomicAdd(p + 1, a.y);
  }
  static __device__ float get(T a, int i) { return i ? a.y : a.x; }
};
template <> struct Pack<1> {
  using T = float;
  static __device__ T zero() { return 0; }
  static __device__ void fma(T &a, float v, T b) { a = fmaf(v, b, a); }
  static __device__ void add(float *p, T a) { atomicAdd(p, a); }
  static __device__ float get(T a, int) { return a; }
};

/// Stages X[n0 .. n0+T, :] (X is k x cols, row-major) into `xs`
/// transposed: sample s of column j at j * T + 4 * ((s / 4) ^ swizzle(j))
/// + s % 4; samples past k are zero. A thread takes a quad of samples and
/// a quad of columns (the warp's 32 threads consecutive column quads, so
/// each of the 4 float4 loads is 512 contiguous bytes), transposes the
/// 4 x 4 block in registers and stores 4 chunks.
template <int T, int NT, typename Hook>
__device__ void stage(float *xs, const float *__restrict__ x, int cols,
                      int k, int n0, Hook hook) {
  const int quads = (cols + 3) / 4;
  const bool aligned = cols % 4 == 0;
  constexpr int SQ = T / 4;
  const int items = (quads + 31) / 32 * 32 * SQ;
  // hook() runs once: after the thread's first loads, or without any.
  bool hooked = false;
  auto hookOnce = [&] {
    if (!hooked)
      hook();
    hooked = true;
  };
  for (int item = threadIdx.x; item < items; item += NT) {
    // Warps sweep 32 column quads of one sample quad.
    const int sq = (item / 32) % SQ;
    const int jq = (item / (32 * SQ)) * 32 + item % 32;
    if (jq >= quads)
      continue;
    float4 r[4];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int n = n0 + 4 * sq + s;
      const float *p = x + size_t(n) * cols + 4 * jq;
      if (n >= k) {
        r[s] = {0, 0, 0, 0};
      } else if (aligned) {
        r[s] = __ldg(reinterpret_cast<const float4 *>(p));
      } else {
        const int left = cols - 4 * jq;
        r[s].x = __ldg(p);
        r[s].y = left > 1 ? __ldg(p + 1) : 0.f;
        r[s].z = left > 2 ? __ldg(p + 2) : 0.f;
        r[s].w = left > 3 ? __ldg(p + 3) : 0.f;
      }
    }
    hookOnce(); // while the loads above are in flight
    const int rot = rotation<T>(jq);
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const int u = (t + rot) & 3;
      const int j = 4 * jq + u;
      if (j >= cols)
        continue;
      const float4 chunk = {pick(r[0], u), pick(r[1], u), pick(r[2], u),
                            pick(r[3], u)};
      *reinterpret_cast<float4 *>(xs + j * T + 4 * (sq ^ swizzle<T>(j))) =
          chunk;
    }
  }
  hookOnce();
}

/// A CTA's share of the rows and its groups of G lanes: rows
/// blockIdx.x + i * gridDim.x, i < rows (rowsPerCta at most).
template <int G, int NT> struct CtaGroups {
  static constexpr int groups = NT / G;
  int rows, lane, group;
  unsigned mask;
  __device__ CtaGroups(int allRows, int rowsPerCta);
};
template <int G, int NT>
__device__ CtaGroups<G, NT>::CtaGroups(int allRows, int rowsPerCta)
      : rows(min(rowsPerCta,
                 (allRows - int(blockIdx.x) + int(gridDim.x) - 1) /
                     int(gridDim.x))),
        lane(threadIdx.x % G), group(threadIdx.x / G),
        mask(G == 32 ? 0xffffffffu
                     : (((1u << G) - 1) << (threadIdx.x % 32 / G * G))) {}

/// How many groups share a row: as many as the CTA has groups per row, at
/// most 8 (1: none share).
__host__ __device__ inline int partsFor(int groups, int rowsPerCta) {
  return max(1, min(8, groups / rowsPerCta));
}

/// With parts: the shared C tile `cs` (rows x T) is complete; stores it to
/// C's rows dst[0 .. rows), samples n0 .. n0 + T (those below k).
template <int T, int NT>
__device__ void storeTile(const float *cs, const int *dst, int rows, int n0,
                          int k, float *__restrict__ c) {
  for (int i = threadIdx.x; i < rows * T; i += NT) {
    const int n = n0 + i % T;
    if (n < k)
      c[size_t(dst[i / T]) * k + n] = cs[i];
  }
}

/// The byte offset in the tile of column j's chunk 0, with the swizzle in
/// bits 4 .. log2(T) + 1: a lane reading chunk c XORs in 16 c (T / 4
/// chunks of 16 bytes a row, so the XOR stays inside the row).
template <int T> __device__ __forceinline__ unsigned packedOffset(int j) {
  return unsigned(j) * (4 * T) + 16u * swizzle<T>(j);
}

/// The kernel (file comment). The CSR is in a permuted row order (rows
/// longest first) and order[i] is permuted row i's row of C. blockIdx.x
/// takes permuted rows blockIdx.x + i * gridDim.x, i < rowsPerCta (so that
/// CTAs get alike work and their groups take the longest rows first);
/// blockIdx.y: samples [n0, n0 + T). `parts` groups share a row when the
/// CTA has half as many rows as groups or fewer (part p takes the row's
/// slices of G entries p, p + parts, ...). A group loads E = min(32 / G, 8)
/// slices a batch, the next batch while it multiplies; the first batch of
/// its first row while X is staged.
template <int T, int V, int NT, int MODE>
__global__ void __launch_bounds__(NT)
    xtile(int rows, int cols, int rowsPerCta, int parts,
          const int *__restrict__ order, const int *__restrict__ rowPtr,
          const int *__restrict__ col, const float *__restrict__ val,
          const float *__restrict__ x, float *__restrict__ c, int k) {
  constexpr int G = T / V, E = 32 / G < 8 ? 32 / G : 8;
  using P = Pack<V>;
  extern __shared__ float4 smem4[];
  float *xs = reinterpret_cast<float *>(smem4);
  float *cs = xs + size_t(cols) * T;
  const char *xb = reinterpret_cast<const char *>(xs);
  const int n0 = blockIdx.y * T;
  const int nb = gridDim.x;
  const CtaGroups<G, NT> cta(rows, rowsPerCta);
  const int myRows = cta.rows, lane = cta.lane, group = cta.group;
  const unsigned mask = cta.mask;
  constexpr int groups = CtaGroups<G, NT>::groups;
  // Lane's samples: V consecutive ones at byte 16 chunk + 4 word of a row
  // (V = 8: chunks 2 lane and 2 lane + 1).
  const unsigned chunkBytes = 16u * (lane * V / 4);
  const int wordBytes = 4 * (lane * V % 4);
  // With parts: the CTA's rows of C, loaded while X is staged.
  int *dstS = reinterpret_cast<int *>(cs + (parts > 1 ? myRows * T : 0));
  const int dstMine = parts > 1 && int(threadIdx.x) < myRows
                          ? order[blockIdx.x + threadIdx.x * nb]
                          : 0;

  // A part's entries: slices of G, every parts-th one (stride S).
  const int S = G * parts;
  int item = group, r = 0, begin = 0, end = 0, dst = 0;
  unsigned oj[E];
  float vj[E];
  auto load = [&](int p, unsigned *o, float *v) {
#pragma unroll
    for (int i = 0; i < E; ++i) {
      const int q = p + i * S + lane;
      o[i] = 0;
      v[i] = 0;
      if (q < end) {
        o[i] = packedOffset<T>(col[q]);
        v[i] = val[q];
      }
    }
  };
  auto open = [&] {
    r = blockIdx.x + (item / parts) * nb;
    if (parts == 1)
      dst = order[r];
    begin = rowPtr[r] + (item % parts) * G;
    end = rowPtr[r + 1];
    load(begin, oj, vj);
  };
  if (MODE != 2)
    stage<T, NT>(xs, x, cols, k, n0, [&] {
      if (item < myRows * parts)
        open();
    });
  else if (item < myRows * parts)
    open();
  if (parts > 1) {
    for (int i = threadIdx.x; i < myRows * T; i += NT)
      cs[i] = 0;
    if (int(threadIdx.x) < myRows)
      dstS[threadIdx.x] = dstMine;
  }
  __syncthreads();

  while (MODE != 1 && item < myRows * parts) {
    typename P::T acc = P::zero();
    for (int p = begin; p < end; p += E * S) {
      unsigned on[E];
      float vn[E];
      load(p + E * S, on, vn);
#pragma unroll
      for (int i = 0; i < E; ++i) {
        if (i > 0 && p + i * S >= end)
          break;
#pragma unroll
        for (int e = 0; e < G; ++e) {
          const unsigned oe = __shfl_sync(mask, oj[i], e, G);
          const float ve = __shfl_sync(mask, vj[i], e, G);
          if constexpr (V == 8)
            P::fma(acc, ve,
                   *reinterpret_cast<const float4 *>(xb + (oe ^ chunkBytes)),
                   *reinterpret_cast<const float4 *>(
                       xb + (oe ^ (chunkBytes + 16))));
          else
            P::fma(acc, ve,
                   *reinterpret_cast<const typename P::T *>(
                       xb + ((oe ^ chunkBytes) + wordBytes)));
        }
      }
#pragma unroll
      for (int i = 0; i < E; ++i) {
        oj[i] = on[i];
        vj[i] = vn[i];
      }
    }
    const int n = n0 + lane * V;
    if (parts > 1) {
      P::add(cs + (item / parts) * T + lane * V, acc);
    } else {
      float *out = c + size_t(dst) * k + n;
      // A vector store needs (dst * k + n) % min(V, 4) == 0.
      if (n + V <= k && k % (V < 4 ? V : 4) == 0)
        *reinterpret_cast<typename P::T *>(out) = acc;
      else
        for (int i = 0; i < V && n + i < k; ++i)
          out[i] = P::get(acc, i);
    }
    item += groups;
    if (item < myRows * parts)
      open();
  }
  if (MODE != 1 && parts > 1) {
    __syncthreads();
    storeTile<T, NT>(cs, dstS, myRows, n0, k, c);
  }
}

/// No staging: T lanes per row, a sample each, gather X[n, j] from global
/// memory (a 32-byte sector per sample and entry; neighbouring columns'
/// entries share them in L1). Rows and parts as xtile.
template <int T, int NT>
__global__ void __launch_bounds__(NT)
    xgather(int rows, int cols, int rowsPerCta, int parts,
            const int *__restrict__ order, const int *__restrict__ rowPtr,
            const int *__restrict__ col, const float *__restrict__ val,
            const float *__restrict__ x, float *__restrict__ c, int k) {
  constexpr int G = T, E = 32 / G < 8 ? 32 / G : 8;
  extern __shared__ float4 smem4[];
  float *cs = reinterpret_cast<float *>(smem4);
  const int n0 = blockIdx.y * T;
  const int nb = gridDim.x;
  const CtaGroups<G, NT> cta(rows, rowsPerCta);
  const int myRows = cta.rows, lane = cta.lane, group = cta.group;
  const unsigned mask = cta.mask;
  constexpr int groups = CtaGroups<G, NT>::groups;
  const int n = n0 + lane;
  const float *xn = x + size_t(n < k ? n : 0) * cols;
  int *dstS = reinterpret_cast<int *>(cs + (parts > 1 ? myRows * T : 0));
  if (parts > 1) {
    for (int i = threadIdx.x; i < myRows * T; i += NT)
      cs[i] = 0;
    if (int(threadIdx.x) < myRows)
      dstS[threadIdx.x] = order[blockIdx.x + threadIdx.x * nb];
    __syncthreads();
  }
  const int S = G * parts;
  for (int item = group; item < myRows * parts; item += groups) {
    const int r = blockIdx.x + (item / parts) * nb;
    const int dst = parts == 1 ? order[r] : 0;
    const int begin = rowPtr[r] + (item % parts) * G, end = rowPtr[r + 1];
    float acc = 0;
    for (int p = begin; p < end; p += E * S) {
      int cj[E];
      float vj[E];
#pragma unroll
      for (int i = 0; i < E; ++i) {
        const int q = p + i * S + lane;
        cj[i] = q < end ? col[q] : 0;
        vj[i] = q < end ? val[q] : 0.f;
      }
#pragma unroll
      for (int i = 0; i < E; ++i) {
        if (i > 0 && p + i * S >= end)
          break;
        float xv[G];
        float vv[G];
#pragma unroll
        for (int e = 0; e < G; ++e) {
          vv[e] = __shfl_sync(mask, vj[i], e, G);
          xv[e] = __ldg(xn + __shfl_sync(mask, cj[i], e, G));
        }
#pragma unroll
        for (int e = 0; e < G; ++e)
          acc = fmaf(vv[e], xv[e], acc);
      }
    }
    if (parts > 1)
      atomicAdd(cs + (item / parts) * T + lane, acc);
    else if (n < k)
      c[size_t(dst) * k + n] = acc;
  }
  if (parts > 1) {
    __syncthreads();
    storeTile<T, NT>(cs, dstS, myRows, n0, k, c);
  }
}

struct Device {
  int *order, *rowPtr, *col;
  float *val;
};

/// One configuration of xtile; mode 1: staging alone, 2: the multiply
/// alone (both wrong by design).
struct Config {
  int t, v, threads, rowsPerCta, mode = 0;
};

template <int T, int V, int NT, int MODE>
void launchXtile(const Csr &m, const Device &d, const float *x, float *c,
                 int k, int rowsPerCta, cudaStream_t st) {
  const int parts = partsFor(NT / (T / V), rowsPerCta);
  const size_t shared =
      (size_t(m.cols) * T + (parts > 1 ? size_t(rowsPerCta) * (T + 1) : 0)) *
      sizeof(float);
  static bool configured = false;
  if (!configured) {
    CHECK(cudaFuncSetAttribute(xtile<T, V, NT, MODE>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               227 * 1024));
    configured = true;
  }
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + T - 1) / T);
  xtile<T, V, NT, MODE><<<grid, NT, shared, st>>>(
      m.rows, m.cols, rowsPerCta, parts, d.order, d.rowPtr, d.col, d.val, x, c,
      k);
}

template <int T, int V>
void byMode(const Csr &m, const Device &d, const float *x, float *c, int k,
               const Config &cfg, cudaStream_t st) {
  if (cfg.mode == 1)
    launchXtile<T, V, 512, 1>(m, d, x, c, k, cfg.rowsPerCta, st);
  else if (cfg.mode == 2)
    launchXtile<T, V, 512, 2>(m, d, x, c, k, cfg.rowsPerCta, st);
  else
    launchXtile<T, V, 512, 0>(m, d, x, c, k, cfg.rowsPerCta, st);
}

template <int T>
void byV(const Csr &m, const Device &d, const float *x, float *c, int k,
         const Config &cfg, cudaStream_t st) {
  if constexpr (T == 64) {
    if (cfg.v == 8)
      byMode<T, 8>(m, d, x, c, k, cfg, st);
    else
      byMode<T, 4>(m, d, x, c, k, cfg, st);
  } else if (cfg.v == 4) {
    byMode<T, 4>(m, d, x, c, k, cfg, st);
  } else if (cfg.v == 2) {
    byMode<T, 2>(m, d, x, c, k, cfg, st);
  } else {
    byMode<T, 1>(m, d, x, c, k, cfg, st);
  }
}

template <int T>
void launchGather(const Csr &m, const Device &d, const float *x, float *c,
                  int k, int rowsPerCta, cudaStream_t st) {
  constexpr int NT = 512;
  const int parts = partsFor(NT / T, rowsPerCta);
  const size_t shared =
      parts > 1 ? size_t(rowsPerCta) * (T + 1) * sizeof(float) : 0;
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + T - 1) / T);
  xgather<T, NT><<<grid, NT, shared, st>>>(m.rows, m.cols, rowsPerCta, parts,
                                           d.order, d.rowPtr, d.col, d.val, x,
                                           c, k);
}

void launch(const Csr &m, const Device &d, const float *x, float *c, int k,
            const Config &cfg, cudaStream_t st) {
  if (cfg.v == 0) { // xgather
    if (cfg.t == 8)
      return launchGather<8>(m, d, x, c, k, cfg.rowsPerCta, st);
    if (cfg.t == 16)
      return launchGather<16>(m, d, x, c, k, cfg.rowsPerCta, st);
    return launchGather<32>(m, d, x, c, k, cfg.rowsPerCta, st);
  }
  switch (cfg.t) {
  case 4:
    return byV<4>(m, d, x, c, k, cfg, st);
  case 8:
    return byV<8>(m, d, x, c, k, cfg, st);
  case 16:
    return byV<16>(m, d, x, c, k, cfg, st);
  case 64:
    return byV<64>(m, d, x, c, k, cfg, st);
  default:
    return byV<32>(m, d, x, c, k, cfg, st);
  }
}

/// The configurations worth timing for a layer and K: those whose shared
/// memory fits.
std::vector<Config> configs(const Csr &m, int k) {
  std::vector<Config> out;
  for (int t : {4, 8, 16, 32, 64}) {
    if (t > k)
      continue;
    for (int v : {8, 4, 2, 1}) {
      if ((v == 8) != (t == 64) && !(t == 64 && v == 4))
        continue;
      for (int threads : {512}) // 256 was never the best
        for (int rpc : {8, 16, 32, 64, 128, 256, 1024, 4096}) {
          if (rpc / 2 >= m.rows)
            continue;
          // The shared C tile, as launchXtile sizes it.
          const bool parts = partsFor(threads / (t / v), rpc) > 1;
          const size_t shared =
              (size_t(m.cols) * t + (parts ? size_t(rpc) * (t + 1) : 0)) * 4;
          if (shared <= 227 * 1024)
            out.push_back({t, v, threads, rpc});
        }
    }
  }
  // xgather (v = 0) where K is small.
  if (k <= 128)
    for (int t : {8, 16, 32})
      for (int rpc : {8, 16, 32, 64, 128})
        if (t <= k && rpc / 2 < m.rows)
          out.push_back({t, 0, 512, rpc});
  return out;
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<int> ks = envInts("XTILE_KS", {32, 128, 512});
  // XTILE_ONLY=LABEL: that configuration alone, run once and checked (for
  // profilers), no timing.
  const char *onlyEnv = std::getenv("XTILE_ONLY");
  const std::string only = onlyEnv ? onlyEnv : "";
  const bool once = !only.empty();
  // XTILE_CONFIGS=LABEL,...: those configurations alone, each also with its
  // staging alone and its multiply alone.
  const char *chosenEnv = std::getenv("XTILE_CONFIGS");
  const std::string chosen = chosenEnv ? chosenEnv : "";
  int status = 0;
  for (int a = 1; a < argc; ++a) {
    Csr m;
    std::string path = argv[a];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "xtile_proto: %s: cannot read\n", path.c_str());
      return 1;
    }
    std::string name = path.substr(path.find_last_of('/') + 1);
    // Rows longest first (XTILE_ORDER=0: as stored): the CSR permuted.
    std::vector<int> order(m.rows);
    const char *orderEnv = std::getenv("XTILE_ORDER");
    Csr pm;
    if (orderEnv && std::string(orderEnv) == "0") {
      pm = m;
      std::iota(order.begin(), order.end(), 0);
    } else {
      pm = permuted(m, order);
    }
    Device d{upload(order), upload(pm.rowPtr), upload(pm.col), upload(pm.val)};
    for (int k : ks) {
      Reference ref(m, k);
      const std::vector<float> xh = ref.x();
      float *x = upload(xh), *bt = upload(ref.B);
      float *c = nullptr;
      CHECK(cudaMalloc(&c, size_t(m.rows) * k * sizeof(float)));
      float best = 1e30f;
      std::string bestLabel;
      auto report = [&](const std::string &label, bool check, auto run) {
        CHECK(cudaMemset(c, 0xff, size_t(m.rows) * k * sizeof(float)));
        run(cudaStream_t(0));
        CHECK(cudaDeviceSynchronize());
        const double err = check ? ref.error(c) : 0.0;
        const bool wrong = check && !(err <= 1e-5);
        if (once) {
          std::printf("xtile layer=%s k=%d kernel=%s err=%.1e%s\n",
                      name.c_str(), k, label.c_str(), err,
                      wrong ? " WRONG" : "");
          status |= wrong;
          return;
        }
        for (int i = 0; i < 100; ++i)
          run(cudaStream_t(0));
        const float ms = medianMs(21, true, [&] { run(cudaStream_t(0)); });
        const float graph = graphUs(run);
        std::printf("xtile layer=%s rows=%d cols=%d nnz=%zu k=%d kernel=%s "
                    "us=%.2f graph_us=%.2f err=%.1e%s\n",
                    name.c_str(), m.rows, m.cols, m.col.size(), k,
                    label.c_str(), ms * 1e3, graph, err,
                    wrong ? " WRONG" : "");
        if (wrong)
          status = 1;
        if (check && !wrong && graph < best) {
          best = graph;
          bestLabel = label;
        }
      };
      if (!once)
        report("tr", false, [&](cudaStream_t st) {
          transpose<<<dim3((m.cols + 31) / 32, (k + 31) / 32), dim3(32, 8), 0,
                      st>>>(x, bt, k, m.cols);
        });
      for (const Config &cfg : configs(m, k)) {
        char label[64];
        if (cfg.v == 0)
          std::snprintf(label, sizeof label, "g%d.n%d.r%d", cfg.t, cfg.threads,
                        cfg.rowsPerCta);
        else
          std::snprintf(label, sizeof label, "t%d.v%d.n%d.r%d", cfg.t, cfg.v,
                        cfg.threads, cfg.rowsPerCta);
        if (!only.empty() && only != label)
          continue;
        if (!chosen.empty() &&
            ("," + chosen + ",").find("," + std::string(label) + ",") ==
                std::string::npos)
          continue;
        report(label, true,
               [&](cudaStream_t st) { launch(m, d, x, c, k, cfg, st); });
        if (!chosen.empty() && cfg.v != 0) // xgather has no halves
          for (int mode : {1, 2}) {
            Config half = cfg;
            half.mode = mode;
            report(std::string(mode == 1 ? "stage:" : "multiply:") + label,
                   false,
                   [&](cudaStream_t st) { launch(m, d, x, c, k, half, st); });
          }
      }
      if (!once)
        std::printf("best layer=%s k=%d kernel=%s graph_us=%.2f\n",
                    name.c_str(), k, bestLabel.c_str(), best);
      std::fflush(stdout);
      CHECK(cudaFree(x));
      CHECK(cudaFree(bt));
      CHECK(cudaFree(c));
    }
  }
  return status;
}
