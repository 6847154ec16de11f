//===- xe_proto.cu - SpMM on a row-major X with X and the entries staged --===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// torch.nn.Linear's layout: Y = X · Wᵀ with X (K x cols) row-major, i.e.
// C = W · B with B = Xᵀ column-major (docs/Python.md, "SparseLinear"). The
// in-place kernels of docs/Kernels.md ("In-place column-major B") read it as
// K SpMVs over X's contiguous samples: a CTA stages a chunk of T samples in
// shared memory and walks a block of W's rows, loading each row's bounds and
// entries from global memory. On the graphs (a few thousand columns, 3–4
// entries a row) they lost to the transposing kernel: a CTA stages all of
// X's columns for its samples, and to keep the walk's chains of dependent
// global loads short the sweep took many row blocks (b = 8–32), each staging
// the chunk again (docs/results/xs-2026-12-02-s41/).
//
// This prototype (`xe`) stages the CTA's entries too. A CTA owns a chunk of
// T samples and a block of rows (the blocks cut so that each holds about the
// same entries plus rows); it copies, with `cp.async` 16 bytes a copy, the
// chunk's T rows of X (each from its 16-byte aligned start: a row of X need
// not be aligned when cols % 4 != 0), the block's row pointers, column
// indices and values (one contiguous stretch each in CSR), then one barrier.
// The walk then reads shared memory only, so few blocks — X staged once or
// twice in all — cost no chain of global round trips.
//
// Two walks over the staged block:
//   * `xe`  (lanes over samples): L = T / S lanes a row, lane l owning
//     samples l, l + L, ... (S of them); every lane of a group reads the
//     row's entries (one shared address: a broadcast) and gathers its
//     samples of each; no reduction; the row's T sums stored as L
//     consecutive floats S times. X's rows are staged with a stride of an
//     odd multiple of 4 floats, so the L <= 8 lanes of a group read 8
//     distinct banks.
//   * `xeg` (lanes over entries): G lanes a row, G entries apart, each lane
//     with all T samples, reduced by xs_proto.cu's transposing butterfly.
//   * `xet`: xeg with X's chunk staged transposed, [cols][T] (loaded 4 x 4
//     through registers, see the kernel), so that a lane reads a column's
//     T samples as T / 4 16-byte loads instead of T 4-byte ones.
// Rows in their own order (`n`) or by length, longest first (`s`, stored
// through the order, as the load-balancing permutations do).
//
// Every configuration is checked against a float64 reference (normwise
// 1e-5) and timed per call from a CUDA graph of 20 launches (`graph_us`,
// as bench_sparse_linear.py's graph columns).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o xe_proto xe_proto.cu
//   ./xe_proto FILE.smtx[.gz]|FILE.mtx[.gz] ...
// Prints one `xe` line per layer, K and configuration, then one `best` line
// per layer, K and class. XE_KS (default "32,128,512") picks the K values,
// XE_KINDS ("0,1,2": xe, xeg, xet) the walks, XE_ORDERS ("0,1": own order, by length),
// XE_MODES ("0": bit 0 rotates the entry copies' start by chunk, bit 1
// times the staging alone, unchecked).
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"
#include "BenchTiming.cuh"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace {

__device__ __forceinline__ void copy16(unsigned dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst),
               "l"(src));
}

/// Copies `n` 4-byte elements from `src` into shared memory at `dst` (a
/// 16-byte aligned address) from src's 16-byte aligned start: element i of
/// src lands at dst + 4 * (i + (src % 16) / 4). Returns that offset in
/// elements. Reads up to 3 elements on either side of src[0, n), within
/// the 16-byte chunks that hold its ends.
/// With `rotate`, the CTA's copies start at a point that depends on its
/// chunk (the CTAs of one row block read the same entries).
template <int NT>
__device__ __forceinline__ int stageRun(unsigned dst, const void *src, int n,
                                        int tid, bool rotate) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(src);
  const int off = int((a & 15) / 4);
  const char *base = reinterpret_cast<const char *>(a & ~uintptr_t(15));
  const int copies = (off + n + 3) / 4;
  const int start =
      rotate && copies ? int((blockIdx.y * 37u * NT) % unsigned(copies)) : 0;
  for (int i = tid; i < copies; i += NT) {
    int c = i + start;
    c = c >= copies ? c - copies : c;
    copy16(dst + 16u * c, base + 16 * c);
  }
  return off;
}

/// Each lane's T sums of a row reduced over its G-lane group (xs_proto.cu):
/// afterwards acc[0 .. max(T / G, 1)) hold samples lane * T / G + i
/// (T >= G), or sample lane % T (G > T).
template <int T, int G> __device__ __forceinline__ void reduce(float *acc,
                                                               int lane) {
#pragma unroll
  for (int off = G / 2; off >= T && off >= 1; off /= 2)
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], off);
  constexpr int first = G / 2 < T ? G / 2 : T / 2;
  int count = T;
#pragma unroll
  for (int off = first; off >= 1; off /= 2) {
    const bool upper = lane & off;
    count /= 2;
#pragma unroll
    for (int i = 0; i < T / 2; ++i) {
      if (i >= count)
        break;
      const float send = upper ? acc[i] : acc[i + count];
      const float keep = upper ? acc[i + count] : acc[i];
      acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, off);
    }
  }
}

/// The shared-memory layout of a CTA: X's T rows (stride floats each), then
/// the block's row pointers, columns and values (each `span` 4-byte slots,
/// span a multiple of 4).
struct Layout {
  int stride, rowSpan, entrySpan;
  __host__ __device__ size_t floats(int t) const {
    return size_t(t) * stride + rowSpan + 2 * size_t(entrySpan);
  }
};

/// Stages X's chunk and the block; returns (through the references) where
/// row r0's pointer, entry p0 and each sample's row start in shared memory.
template <int T, int NT>
__device__ __forceinline__ void stageAll(float *smem, const Layout &lay,
                                         const float *__restrict__ x, int cols,
                                         int k0, const int *__restrict__ rowPtr,
                                         const int *__restrict__ col,
                                         const float *__restrict__ val, int r0,
                                         int r1, int p0, int p1, int *xOff,
                                         int &rOff, int &eOff, int mode) {
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int tid = threadIdx.x;
#pragma unroll
  for (int j = 0; j < T; ++j)
    xOff[j] = stageRun<NT>(base + 4u * j * lay.stride,
                           x + size_t(k0 + j) * cols, cols, tid, false);
  const unsigned rBase = base + 4u * T * lay.stride;
  const bool rotate = mode & 1;
  rOff = stageRun<NT>(rBase, rowPtr + r0, r1 + 1 - r0, tid, rotate);
  const unsigned cBase = rBase + 4u * lay.rowSpan;
  eOff = stageRun<NT>(cBase, col + p0, p1 - p0, tid, rotate);
  stageRun<NT>(cBase + 4u * lay.entrySpan, val + p0, p1 - p0, tid, rotate);
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
}

/// Lanes over samples: L = T / S lanes a row, lane l owning samples l + i L.
template <int T, int S, int NT>
__global__ void __launch_bounds__(NT)
    xe(int cols, Layout lay, const int *__restrict__ blockRow,
       const int *__restrict__ blockPtr, const int *__restrict__ rowPtr,
       const int *__restrict__ col, const float *__restrict__ val,
       const int *__restrict__ order, const float *__restrict__ x,
       float *__restrict__ out, int k, int mode) {
  extern __shared__ __align__(16) float smem[];
  constexpr int L = T / S;
  const int k0 = blockIdx.y * T;
  const int r0 = blockRow[blockIdx.x], r1 = blockRow[blockIdx.x + 1];
  const int p0 = blockPtr[blockIdx.x], p1 = blockPtr[blockIdx.x + 1];
  int xOff[T], rOff, eOff;
  stageAll<T, NT>(smem, lay, x, cols, k0, rowPtr, col, val, r0, r1, p0, p1,
                  xOff, rOff, eOff, mode);
  // Mode 2: the staging alone (timing only; C is not written).
  if (mode & 2)
    return;
  const int *sRow = reinterpret_cast<const int *>(smem + T * lay.stride) + rOff;
  const int *sCol =
      reinterpret_cast<const int *>(smem + T * lay.stride + lay.rowSpan) + eOff;
  const float *sVal = smem + T * lay.stride + lay.rowSpan + lay.entrySpan + eOff;
  const int lane = threadIdx.x % L;
  const float *sx[S];
#pragma unroll
  for (int i = 0; i < S; ++i) {
    const int j = lane + i * L;
    // xOff is indexed by a lane-dependent j: pick it with a select chain.
    int off = 0;
#pragma unroll
    for (int q = 0; q < T; ++q)
      off = q == j ? xOff[q] : off;
    sx[i] = smem + j * lay.stride + off;
  }
  for (int r = r0 + int(threadIdx.x) / L; r < r1; r += NT / L) {
    const int s = sRow[r - r0] - p0, e = sRow[r - r0 + 1] - p0;
    float acc[S];
#pragma unroll
    for (int i = 0; i < S; ++i)
      acc[i] = 0.f;
    int q = s;
    for (; q + 1 < e; q += 2) {
      const int c0 = sCol[q], c1 = sCol[q + 1];
      const float v0 = sVal[q], v1 = sVal[q + 1];
#pragma unroll
      for (int i = 0; i < S; ++i)
        acc[i] += v0 * sx[i][c0] + v1 * sx[i][c1];
    }
    if (q < e) {
      const int c0 = sCol[q];
      const float v0 = sVal[q];
#pragma unroll
      for (int i = 0; i < S; ++i)
        acc[i] += v0 * sx[i][c0];
    }
    const int row = order ? order[r] : r;
#pragma unroll
    for (int i = 0; i < S; ++i)
      out[size_t(row) * k + k0 + lane + i * L] = acc[i];
  }
}

/// Lanes over entries: G lanes a row, G entries apart, T samples a lane,
/// reduced by the transposing butterfly. The loop over rows is uniform
/// across the CTA (the butterfly's full-mask shuffles).
template <int T, int G, int NT>
__global__ void __launch_bounds__(NT)
    xeg(int cols, Layout lay, const int *__restrict__ blockRow,
        const int *__restrict__ blockPtr, const int *__restrict__ rowPtr,
        const int *__restrict__ col, const float *__restrict__ val,
        const int *__restrict__ order, const float *__restrict__ x,
        float *__restrict__ out, int k, int mode) {
  extern __shared__ __align__(16) float smem[];
  const int k0 = blockIdx.y * T;
  const int r0 = blockRow[blockIdx.x], r1 = blockRow[blockIdx.x + 1];
  const int p0 = blockPtr[blockIdx.x], p1 = blockPtr[blockIdx.x + 1];
  int xOff[T], rOff, eOff;
  stageAll<T, NT>(smem, lay, x, cols, k0, rowPtr, col, val, r0, r1, p0, p1,
                  xOff, rOff, eOff, mode);
  // Mode 2: the staging alone (timing only; C is not written).
  if (mode & 2)
    return;
  const int *sRow = reinterpret_cast<const int *>(smem + T * lay.stride) + rOff;
  const int *sCol =
      reinterpret_cast<const int *>(smem + T * lay.stride + lay.rowSpan) + eOff;
  const float *sVal = smem + T * lay.stride + lay.rowSpan + lay.entrySpan + eOff;
  const float *sx[T];
#pragma unroll
  for (int j = 0; j < T; ++j)
    sx[j] = smem + j * lay.stride + xOff[j];
  const int lane = threadIdx.x % G;
  constexpr int groups = NT / G;
  for (int rb = r0; rb < r1; rb += groups) {
    const int r = rb + int(threadIdx.x) / G;
    int s = 0, e = 0;
    if (r < r1) {
      s = sRow[r - r0] - p0;
      e = sRow[r - r0 + 1] - p0;
    }
    float acc[T];
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] = 0.f;
    for (int q = s + lane; q < e; q += G) {
      const int c = sCol[q];
      const float v = sVal[q];
#pragma unroll
      for (int j = 0; j < T; ++j)
        acc[j] += v * sx[j][c];
    }
    reduce<T, G>(acc, lane);
    if (r < r1) {
      const int row = order ? order[r] : r;
      constexpr int per = T >= G ? T / G : 1;
#pragma unroll
      for (int i = 0; i < per; ++i) {
        const int j = T >= G ? lane * per + i : lane;
        if (j < T)
          out[size_t(row) * k + k0 + j] = acc[i];
      }
    }
  }
}

/// X's chunk staged transposed, as [cols][T] (`xet`): each thread loads a
/// 4 x 4 block of X (4 samples of 4 columns; 16-byte loads where X's rows
/// are aligned), transposes it in registers and stores each column's 4
/// samples as one 16-byte vector, the 4 stores rotated by the column quad
/// so that a quarter warp's stores fall in distinct banks (T >= 8) or two
/// to a bank (T = 4). The block's entries are staged by cp.async meanwhile.
/// Then the walk of xeg, reading a column's T samples as T / 4 16-byte
/// loads.
template <int T, int G, int NT>
__global__ void __launch_bounds__(NT)
    xet(int cols, Layout lay, const int *__restrict__ blockRow,
        const int *__restrict__ blockPtr, const int *__restrict__ rowPtr,
        const int *__restrict__ col, const float *__restrict__ val,
        const int *__restrict__ order, const float *__restrict__ x,
        float *__restrict__ out, int k, int mode) {
  extern __shared__ __align__(16) float smem[];
  constexpr int Q = T / 4;
  const int k0 = blockIdx.y * T;
  const int r0 = blockRow[blockIdx.x], r1 = blockRow[blockIdx.x + 1];
  const int p0 = blockPtr[blockIdx.x], p1 = blockPtr[blockIdx.x + 1];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned rBase = base + 4u * T * lay.stride;
  const int rOff = stageRun<NT>(rBase, rowPtr + r0, r1 + 1 - r0, threadIdx.x,
                                false);
  const unsigned cBase = rBase + 4u * lay.rowSpan;
  const int eOff = stageRun<NT>(cBase, col + p0, p1 - p0, threadIdx.x, false);
  stageRun<NT>(cBase + 4u * lay.entrySpan, val + p0, p1 - p0, threadIdx.x,
               false);
  asm volatile("cp.async.commit_group;\n" ::);
  float4 *sx4 = reinterpret_cast<float4 *>(smem);
  const int quads = (cols + 3) / 4;
  const bool aligned = (cols & 3) == 0;
  for (int it = threadIdx.x; it < quads * Q; it += NT) {
    const int cq = it / Q, q = it % Q;
    float a[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const float *src = x + size_t(k0 + 4 * q + r) * cols + 4 * cq;
      if (aligned) {
        const float4 v = *reinterpret_cast<const float4 *>(src);
        a[r][0] = v.x;
        a[r][1] = v.y;
        a[r][2] = v.z;
        a[r][3] = v.w;
      } else {
#pragma unroll
        for (int m = 0; m < 4; ++m)
          a[r][m] = 4 * cq + m < cols ? src[m] : 0.f;
      }
    }
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      const int mm = (m + cq) & 3;
      // a[.][mm] without dynamic register indexing.
      float4 v = make_float4(a[0][0], a[1][0], a[2][0], a[3][0]);
      if (mm == 1)
        v = make_float4(a[0][1], a[1][1], a[2][1], a[3][1]);
      if (mm == 2)
        v = make_float4(a[0][2], a[1][2], a[2][2], a[3][2]);
      if (mm == 3)
        v = make_float4(a[0][3], a[1][3], a[2][3], a[3][3]);
      if (4 * cq + mm < cols)
        sx4[(4 * cq + mm) * Q + q] = v;
    }
  }
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  if (mode & 2)
    return;
  const int *sRow = reinterpret_cast<const int *>(smem + T * lay.stride) + rOff;
  const int *sCol =
      reinterpret_cast<const int *>(smem + T * lay.stride + lay.rowSpan) + eOff;
  const float *sVal = smem + T * lay.stride + lay.rowSpan + lay.entrySpan + eOff;
  const int lane = threadIdx.x % G;
  constexpr int groups = NT / G;
  for (int rb = r0; rb < r1; rb += groups) {
    const int r = rb + int(threadIdx.x) / G;
    int s = 0, e = 0;
    if (r < r1) {
      s = sRow[r - r0] - p0;
      e = sRow[r - r0 + 1] - p0;
    }
    float acc[T];
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] = 0.f;
    for (int q = s + lane; q < e; q += G) {
      const int c = sCol[q];
      const float v = sVal[q];
#pragma unroll
      for (int h = 0; h < Q; ++h) {
        const float4 b = sx4[c * Q + h];
        acc[4 * h] += v * b.x;
        acc[4 * h + 1] += v * b.y;
        acc[4 * h + 2] += v * b.z;
        acc[4 * h + 3] += v * b.w;
      }
    }
    reduce<T, G>(acc, lane);
    if (r < r1) {
      const int row = order ? order[r] : r;
      constexpr int per = T >= G ? T / G : 1;
#pragma unroll
      for (int i = 0; i < per; ++i) {
        const int j = T >= G ? lane * per + i : lane;
        if (j < T)
          out[size_t(row) * k + k0 + j] = acc[i];
      }
    }
  }
}

struct Config {
  int kind;     // 0: xe, 1: xeg, 2: xet
  int t, w;     // w: S (xe) or G (xeg)
  int threads, blocks;
  bool sorted;
  int mode = 0; // bit 0: rotated entry copies; bit 1: staging alone
};

std::string label(const Config &c) {
  char s[64];
  std::snprintf(s, sizeof s, "%s%s.%s.t%d.%s%d.n%d.b%d",
                c.kind == 2 ? "xet" : c.kind ? "xeg" : "xe",
                c.mode == 0 ? "" : c.mode == 1 ? "-r" : c.mode == 2 ? "-so" : "-rso",
                c.sorted ? "s" : "n", c.t, c.kind ? "g" : "s", c.w, c.threads,
                c.blocks);
  return s;
}

template <typename Kernel> void allowShared(Kernel kernel) {
  static std::set<const void *> configured;
  if (configured.insert(reinterpret_cast<const void *>(kernel)).second)
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
}

/// A layer on the device in one row order, cut into `blocks` row blocks.
struct Blocks {
  int count = 0;
  Layout lay{};
  int *row = nullptr, *ptr = nullptr;
};

struct Device {
  Csr m;
  int *rowPtr, *col, *order;
  float *val;
};

/// Row blocks of about equal entries + rows, and the shared memory they
/// need with T samples; count = 0 when it does not fit in 227 KB.
Blocks cut(const Csr &m, int blocks, int t, bool transposed) {
  std::vector<int> row{0};
  const double total = double(m.col.size()) + m.rows;
  for (int b = 1; b < blocks; ++b) {
    const double goal = total * b / blocks;
    int r = row.back();
    while (r < m.rows && m.rowPtr[r] + r < goal)
      ++r;
    row.push_back(r);
  }
  row.push_back(m.rows);
  std::vector<int> ptr;
  int rowSpan = 0, entrySpan = 0;
  for (size_t b = 0; b < row.size(); ++b) {
    ptr.push_back(m.rowPtr[row[b]]);
    if (b + 1 < row.size()) {
      // A run staged from its aligned start: up to 3 more slots, rounded
      // up to whole 16-byte copies.
      const int rows = row[b + 1] + 1 - row[b];
      const int entries = m.rowPtr[row[b + 1]] - m.rowPtr[row[b]];
      rowSpan = std::max(rowSpan, (rows + 3 + 3) / 4 * 4);
      entrySpan = std::max(entrySpan, (entries + 3 + 3) / 4 * 4);
    }
  }
  Blocks out;
  // An odd multiple of 4 floats, room for a row staged from its aligned
  // start.
  int stride = (m.cols + 3 + 3) / 4 * 4;
  if (stride % 8 == 0)
    stride += 4;
  // xet: [cols][T], whole 16-byte columns.
  if (transposed)
    stride = m.cols;
  out.lay = {stride, rowSpan, entrySpan};
  if (out.lay.floats(t) * 4 > 227 * 1024)
    return out;
  out.count = blocks;
  out.row = upload(row);
  out.ptr = upload(ptr);
  return out;
}

template <int T, int W, int NT>
void launchOne(const Config &c, const Device &d, const Blocks &b,
               const float *x, float *out, int k, cudaStream_t st) {
  const size_t shared = b.lay.floats(T) * 4;
  dim3 grid(b.count, k / T);
  const int *order = c.sorted ? d.order : nullptr;
  if (c.kind == 0) {
    if constexpr (W <= T && T / W <= 32) {
      allowShared(xe<T, W, NT>);
      xe<T, W, NT><<<grid, NT, shared, st>>>(d.m.cols, b.lay, b.row, b.ptr,
                                              d.rowPtr, d.col, d.val, order,
                                              x, out, k, c.mode);
    }
  } else if (c.kind == 2) {
    if constexpr (T % 4 == 0 && T <= 16) {
      allowShared(xet<T, W, NT>);
      xet<T, W, NT><<<grid, NT, shared, st>>>(d.m.cols, b.lay, b.row, b.ptr,
                                               d.rowPtr, d.col, d.val, order,
                                               x, out, k, c.mode);
    }
  } else {
    allowShared(xeg<T, W, NT>);
    xeg<T, W, NT><<<grid, NT, shared, st>>>(d.m.cols, b.lay, b.row, b.ptr,
                                             d.rowPtr, d.col, d.val, order, x,
                                             out, k, c.mode);
  }
}

template <int T, int W>
void byThreads(const Config &c, const Device &d, const Blocks &b,
               const float *x, float *out, int k, cudaStream_t st) {
  if (c.threads == 256)
    launchOne<T, W, 256>(c, d, b, x, out, k, st);
  else if (c.threads == 512)
    launchOne<T, W, 512>(c, d, b, x, out, k, st);
  else
    launchOne<T, W, 1024>(c, d, b, x, out, k, st);
}

template <int T>
void byW(const Config &c, const Device &d, const Blocks &b, const float *x,
         float *out, int k, cudaStream_t st) {
  switch (c.w) {
  case 1:
    return byThreads<T, 1>(c, d, b, x, out, k, st);
  case 2:
    return byThreads<T, 2>(c, d, b, x, out, k, st);
  case 4:
    return byThreads<T, 4>(c, d, b, x, out, k, st);
  case 8:
    return byThreads<T, 8>(c, d, b, x, out, k, st);
  case 16:
    return byThreads<T, 16>(c, d, b, x, out, k, st);
  default:
    return byThreads<T, 32>(c, d, b, x, out, k, st);
  }
}

void launch(const Config &c, const Device &d, const Blocks &b, const float *x,
            float *out, int k, cudaStream_t st) {
  switch (c.t) {
  case 4:
    return byW<4>(c, d, b, x, out, k, st);
  case 8:
    return byW<8>(c, d, b, x, out, k, st);
  case 16:
    return byW<16>(c, d, b, x, out, k, st);
  default:
    return byW<32>(c, d, b, x, out, k, st);
  }
}

bool listed(const char *env, const char *fallback, int v) {
  const std::string s = std::string(",") +
                        (std::getenv(env) ? std::getenv(env) : fallback) + ",";
  return s.find("," + std::to_string(v) + ",") != std::string::npos;
}

/// The configurations worth timing: xe with L = T / S of 2 to 8 lanes a
/// row, xeg with G of 1 to 32 lanes up to twice the mean row; 8 to 2,112
/// CTAs.
std::vector<Config> configs(const Csr &m, int k) {
  const double mean = m.rows ? double(m.col.size()) / m.rows : 0;
  int gHigh = 1;
  while (gHigh < 2 * mean && gHigh < 32)
    gHigh *= 2;
  std::vector<Config> out;
  for (int sorted = 0; sorted < 2; ++sorted) {
    if (!listed("XE_ORDERS", "0,1", sorted))
      continue;
    for (int kind = 0; kind < 3; ++kind) {
      if (!listed("XE_KINDS", "0,1,2", kind))
        continue;
      for (int t : {4, 8, 16, 32}) {
        if (k % t != 0)
          continue;
        for (int w : {1, 2, 4, 8, 16, 32}) {
          if (kind == 0 && (w > t || t / w < 2 || t / w > 8))
            continue;
          if (kind == 2 && t > 16)
            continue;
          if (kind >= 1 && (w > gHigh || 8 * w < gHigh))
            continue;
          for (int threads : {256, 512, 1024})
            for (int blocks : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
              const int total = k / t * blocks;
              if (total < 8 || total > 16 * 132 || blocks > m.rows)
                continue;
              for (int mode = 0; mode < 4; ++mode)
                if (listed("XE_MODES", "0", mode))
                  out.push_back({kind, t, w, threads, blocks, sorted == 1, mode});
            }
        }
      }
    }
  }
  return out;
}

const char *const kClasses[] = {"xe", "xeg", "xet"};

} // namespace

int main(int argc, char **argv) {
  const std::vector<int> ks = envInts("XE_KS", {32, 128, 512});
  int status = 0;
  for (int a = 1; a < argc; ++a) {
    Csr m;
    const std::string path = argv[a];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "xe_proto: %s: cannot read\n", path.c_str());
      return 1;
    }
    const std::string name = path.substr(path.find_last_of('/') + 1);
    std::vector<int> order;
    const Csr sortedM = permuted(m, order);
    Device dn{m, upload(m.rowPtr), upload(m.col), nullptr, upload(m.val)};
    Device ds{sortedM, upload(sortedM.rowPtr), upload(sortedM.col),
              upload(order), upload(sortedM.val)};
    for (int k : ks) {
      Reference ref(m, k);
      const std::vector<float> xh = ref.x();
      float *x = upload(xh);
      float *out = nullptr;
      CHECK(cudaMalloc(&out, size_t(m.rows) * k * sizeof(float)));
      float best[3] = {1e30f, 1e30f, 1e30f};
      std::string bestLabel[3];
      std::map<std::pair<int, std::pair<int, int>>, Blocks> cuts;
      std::map<std::pair<int, std::pair<int, int>>, Blocks> cutsT;
      for (const Config &cfg : configs(m, k)) {
        const Device &d = cfg.sorted ? ds : dn;
        Blocks &b = (cfg.kind == 2 ? cutsT : cuts)[{cfg.sorted, {cfg.blocks, cfg.t}}];
        if (!b.row && b.lay.stride == 0)
          b = cut(d.m, cfg.blocks, cfg.t, cfg.kind == 2);
        if (b.count == 0)
          continue;
        const std::string lab = label(cfg);
        auto run = [&](cudaStream_t st) { launch(cfg, d, b, x, out, k, st); };
        CHECK(cudaMemset(out, 0xff, size_t(m.rows) * k * sizeof(float)));
        run(cudaStream_t(0));
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        const double err = cfg.mode & 2 ? 0.0 : ref.error(out);
        const bool wrong = !(err <= 1e-5);
        status |= wrong;
        if (wrong) {
          std::printf("xe layer=%s k=%d kernel=%s err=%.1e WRONG\n",
                      name.c_str(), k, lab.c_str(), err);
          continue;
        }
        const float graph = graphUs(run);
        std::printf("xe layer=%s rows=%d cols=%d nnz=%zu k=%d kernel=%s "
                    "smem=%zu graph_us=%.2f err=%.1e\n",
                    name.c_str(), m.rows, m.cols, m.col.size(), k, lab.c_str(),
                    b.lay.floats(cfg.t) * 4, graph, err);
        if (cfg.mode < 2 && graph < best[cfg.kind]) {
          best[cfg.kind] = graph;
          bestLabel[cfg.kind] = lab;
        }
      }
      for (int o = 0; o < 3; ++o)
        std::printf("best layer=%s k=%d class=%s kernel=%s graph_us=%.2f\n",
                    name.c_str(), k, kClasses[o], bestLabel[o].c_str(),
                    best[o]);
      std::fflush(stdout);
      for (auto *all : {&cuts, &cutsT})
        for (auto &[key, b] : *all)
          if (b.row) {
            CHECK(cudaFree(b.row));
            CHECK(cudaFree(b.ptr));
          }
      CHECK(cudaFree(x));
      CHECK(cudaFree(out));
    }
  }
  return status;
}
