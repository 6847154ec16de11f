//===- xs_proto.cu - SpMM on a row-major X as K independent SpMVs --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// torch.nn.Linear's layout: Y = X · Wᵀ with X (K x cols) row-major, i.e.
// C = W · B with B = Xᵀ column-major (docs/Python.md, "SparseLinear"). Read
// that way, sample n of X is one contiguous vector x_n and Y's row n is
// W · x_n: K SpMVs over contiguous vectors. This program asks whether one
// kernel built on that reading runs as fast as the generated row-major
// kernels do with B row-major (third attempt after xt_proto.cu and
// xtile_proto.cu, docs/results/xtile-2026-11-27-s32/).
//
// The kernel (`xs`): a CTA owns a chunk of T samples and a block of W's
// rows. It copies the chunk's T rows of X — one contiguous stretch of
// T · cols floats — into shared memory with `cp.async` (16 bytes a copy,
// every copy in flight at once, no registers held), and meanwhile loads its
// first row's bounds. Then G lanes per row walk the row's entries, G apart,
// four at a time (the column and value loads of the four issued before
// their shared-memory reads), each lane gathering x_n[c] for its T samples
// from shared memory, with no shuffles in the walk. The G lanes' partial
// sums meet in a transposing butterfly (T (1 - 1/G) shuffles when T >= G:
// each step halves the sums a lane holds), so that every lane ends with
// T / G samples of the row (or one, when G > T), and store them:
//   * `c` output: C row-major (rows x K), T consecutive floats a row, what
//     SparseLinear returns today as Yᵀ's transposed view;
//   * `y` output: Y = Cᵀ row-major (K x rows), contiguous as torch makes it.
// The loop over a CTA's rows is warp-uniform, so the butterfly's shuffles
// take the full mask. Other forms, for comparison: `xsp`, xs with its entry
// loads one batch ahead; `xs-b`, xs on a row-major B (its [cols][T] slice
// staged); `xsl`, lanes over samples (a group of T lanes a row, no
// reduction), on X or on B.
//
// Every configuration is checked against a float64 reference (normwise
// 1e-5) and timed per call from a CUDA graph of 20 launches (`graph_us`,
// as bench_sparse_linear.py's graph columns) and queued (`us`,
// BenchTiming.cuh). `tr` is a tiled transpose of X alone.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o xs_proto xs_proto.cu
//   ./xs_proto FILE.smtx[.gz]|FILE.mtx[.gz] ...
// Prints one `xs` line per layer, K and configuration, then one `best`
// line per layer, K and class. XS_KS (default "32,128,512") picks the K
// values, XS_KINDS the forms (see configs()), XS_Y=1 adds xs with Y out,
// XS_ONLY=LABEL runs one configuration once, checked and untimed (for
// Nsight Compute).
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"
#include "BenchTiming.cuh"

#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

namespace {

__device__ __forceinline__ void copy16(unsigned dst, const float *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst),
               "l"(src));
}

__device__ __forceinline__ void copy4(unsigned dst, const float *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst),
               "l"(src));
}

/// Each lane's T sums of a row reduced over its G-lane group: afterwards
/// acc[0 .. max(T / G, 1)) hold samples lane * T / G + i (T >= G), or
/// sample lane % T (G > T).
template <int T, int G> __device__ __forceinline__ void reduce(float *acc,
                                                               int lane) {
  // Offsets G/2 .. T (G > T): a plain butterfly.
#pragma unroll
  for (int off = G / 2; off >= T && off >= 1; off /= 2)
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], off);
  // The rest: each step keeps half of the sums, adding the partner's.
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

/// Stages the CTA's T samples in shared memory with cp.async (committed,
/// not waited for). BROW = false: x is X (k x cols, row-major), staged as
/// [T][stride] (stride >= cols; 16-byte copies when stride == cols and the
/// chunk is aligned). BROW = true: x is B (cols x k, row-major), staged as
/// [cols][T] (B's rows' T-sample pieces, 16 bytes a copy; T % 4 == 0 and k %
/// 4 == 0).
template <int T, int NT, bool BROW>
__device__ __forceinline__ void stage(float *sx, const float *x, int cols,
                                      int stride, int k, int k0, int tc) {
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(sx));
  if constexpr (BROW) {
    const int n = cols * (T / 4);
    for (int i = threadIdx.x; i < n; i += NT) {
      const int c = i / (T / 4), q = i % (T / 4);
      if (4 * q < tc)
        copy16(base + 16u * i, x + size_t(c) * k + k0 + 4 * q);
    }
  } else {
    const float *src = x + size_t(k0) * cols;
    if (stride == cols) {
      const int n = tc * cols;
      int tail = 0;
      if ((reinterpret_cast<uintptr_t>(src) & 15) == 0) {
        const int n4 = n / 4;
        for (int i = threadIdx.x; i < n4; i += NT)
          copy16(base + 16u * i, src + 4 * i);
        tail = 4 * n4;
      }
      for (int i = tail + threadIdx.x; i < n; i += NT)
        copy4(base + 4u * i, src + i);
    } else {
      for (int j = 0; j < tc; ++j)
        for (int i = threadIdx.x; i < cols; i += NT)
          copy4(base + 4u * (j * stride + i), src + size_t(j) * cols + i);
    }
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

/// Sample j of column c in the staged tile.
template <int T, bool BROW>
__device__ __forceinline__ float at(const float *sx, int stride, int c,
                                    int j) {
  return BROW ? sx[c * T + j] : sx[j * stride + c];
}

/// Stores a row's sums after reduce<T, G>: the lane's T / G samples (or
/// its one, lane % T, when G > T; lanes past T store nothing), those below
/// `tc`, into C (rows x k) or, with YOUT, into Y = Cᵀ (k x rows).
template <int T, int G, bool YOUT>
__device__ __forceinline__ void storeRow(float *__restrict__ out,
                                         const float *acc, int lane, int row,
                                         int rows, int k, int k0, int tc) {
  constexpr int per = T >= G ? T / G : 1;
#pragma unroll
  for (int i = 0; i < per; ++i) {
    const int j = T >= G ? lane * per + i : lane;
    if (j < tc) {
      if constexpr (YOUT)
        out[size_t(k0 + j) * rows + row] = acc[i];
      else
        out[size_t(row) * k + k0 + j] = acc[i];
    }
  }
}

template <int T, int G, int NT, bool YOUT, bool BROW>
__global__ void __launch_bounds__(NT)
    xs(int rows, int cols, int rowsPerCta, const int *__restrict__ rowPtr,
       const int *__restrict__ col, const float *__restrict__ val,
       const float *__restrict__ x, float *__restrict__ out, int k) {
  extern __shared__ __align__(16) float sx[];
  const int k0 = blockIdx.y * T;
  const int tc = min(T, k - k0);
  stage<T, NT, BROW>(sx, x, cols, cols, k, k0, tc);

  const int r0 = blockIdx.x * rowsPerCta;
  const int r1 = min(rows, r0 + rowsPerCta);
  const int lane = threadIdx.x % G, group = threadIdx.x / G;
  constexpr int groups = NT / G;
  int r = r0 + group;
  int start = 0, end = 0;
  if (r < r1) {
    start = rowPtr[r];
    end = rowPtr[r + 1];
  }
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();

  for (int rb = r0; rb < r1; rb += groups) {
    float acc[T];
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] = 0.f;
    int e = start + lane;
    for (; e + 3 * G < end; e += 4 * G) {
      int c[4];
      float v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        c[u] = col[e + u * G];
        v[u] = val[e + u * G];
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int j = 0; j < T; ++j)
          acc[j] += v[u] * at<T, BROW>(sx, cols, c[u], j);
    }
    for (; e < end; e += G) {
      const int c = col[e];
      const float v = val[e];
#pragma unroll
      for (int j = 0; j < T; ++j)
        acc[j] += v * at<T, BROW>(sx, cols, c, j);
    }
    // The next row's bounds before the butterfly.
    const int row = r;
    r += groups;
    if (r < r1) {
      start = rowPtr[r];
      end = rowPtr[r + 1];
    } else {
      start = end = 0;
    }
    reduce<T, G>(acc, lane);
    if (row < r1)
      storeRow<T, G, YOUT>(out, acc, lane, row, rows, k, k0, tc);
  }
}

/// The first four entries of a lane from `e` on (G apart), or column 0 and
/// value 0 past `end`.
template <int G>
__device__ __forceinline__ void loadBatch(int *c, float *v,
                                          const int *__restrict__ col,
                                          const float *__restrict__ val, int e,
                                          int end) {
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const bool in = e + u * G < end;
    c[u] = in ? col[e + u * G] : 0;
    v[u] = in ? val[e + u * G] : 0.f;
  }
}

/// xs (X, C out) with its entry loads one batch ahead: the first row's
/// first batch is loaded before the wait for the staged X, each batch's
/// successor before its multiply-adds, and the next row's first batch
/// before the butterfly and the store.
template <int T, int G, int NT>
__global__ void __launch_bounds__(NT)
    xsp(int rows, int cols, int rowsPerCta, const int *__restrict__ rowPtr,
        const int *__restrict__ col, const float *__restrict__ val,
        const float *__restrict__ x, float *__restrict__ out, int k) {
  extern __shared__ __align__(16) float sx[];
  const int k0 = blockIdx.y * T;
  const int tc = min(T, k - k0);
  stage<T, NT, false>(sx, x, cols, cols, k, k0, tc);
  const int r0 = blockIdx.x * rowsPerCta;
  const int r1 = min(rows, r0 + rowsPerCta);
  const int lane = threadIdx.x % G, group = threadIdx.x / G;
  constexpr int groups = NT / G;
  int r = r0 + group;
  int start = 0, end = 0;
  if (r < r1) {
    start = rowPtr[r];
    end = rowPtr[r + 1];
  }
  int e = start + lane;
  int c[4];
  float v[4];
  loadBatch<G>(c, v, col, val, e, end);
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();

  for (int rb = r0; rb < r1; rb += groups) {
    float acc[T];
#pragma unroll
    for (int j = 0; j < T; ++j)
      acc[j] = 0.f;
    while (true) {
      const bool more = e + 4 * G < end;
      int cn[4] = {0, 0, 0, 0};
      float vn[4] = {0.f, 0.f, 0.f, 0.f};
      if (more)
        loadBatch<G>(cn, vn, col, val, e + 4 * G, end);
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (e + u * G < end)
#pragma unroll
          for (int j = 0; j < T; ++j)
            acc[j] += v[u] * sx[j * cols + c[u]];
      if (!more)
        break;
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        c[u] = cn[u];
        v[u] = vn[u];
      }
      e += 4 * G;
    }
    const int row = r;
    r += groups;
    start = end = 0;
    if (r < r1) {
      start = rowPtr[r];
      end = rowPtr[r + 1];
    }
    e = start + lane;
    loadBatch<G>(c, v, col, val, e, end);
    reduce<T, G>(acc, lane);
    if (row < r1)
      storeRow<T, G, false>(out, acc, lane, row, rows, k, k0, tc);
  }
}

/// Lanes over samples: a group of T lanes per row, lane j owning sample j,
/// every lane of a group loading the row's entries (one address a group),
/// eight at a time, and reading its sample of each from the staged tile:
/// conflict-free within a group ([T][stride] with an odd stride, or
/// [cols][T]; groups of one warp read other columns), no reduction. C
/// row-major.
template <int T, int NT, bool BROW>
__global__ void __launch_bounds__(NT)
    xsl(int rows, int cols, int stride, int rowsPerCta,
        const int *__restrict__ rowPtr, const int *__restrict__ col,
        const float *__restrict__ val, const float *__restrict__ x,
        float *__restrict__ out, int k) {
  extern __shared__ __align__(16) float sx[];
  const int k0 = blockIdx.y * T;
  const int tc = min(T, k - k0);
  stage<T, NT, BROW>(sx, x, cols, stride, k, k0, tc);
  const int r0 = blockIdx.x * rowsPerCta;
  const int r1 = min(rows, r0 + rowsPerCta);
  const int j = threadIdx.x % T, group = threadIdx.x / T;
  constexpr int groups = NT / T;
  int r = r0 + group;
  int start = 0, end = 0;
  if (r < r1) {
    start = rowPtr[r];
    end = rowPtr[r + 1];
  }
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  for (; r < r1; r += groups) {
    float acc = 0.f;
    int e = start;
    for (; e + 7 < end; e += 8) {
      int c[8];
      float v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        c[u] = col[e + u];
        v[u] = val[e + u];
      }
#pragma unroll
      for (int u = 0; u < 8; ++u)
        acc += v[u] * at<T, BROW>(sx, stride, c[u], j);
    }
    for (; e < end; ++e)
      acc += val[e] * at<T, BROW>(sx, stride, col[e], j);
    const int row = r;
    if (r + groups < r1) {
      start = rowPtr[r + groups];
      end = rowPtr[r + groups + 1];
    }
    if (j < tc)
      out[size_t(row) * k + k0 + j] = acc;
  }
}

struct Device {
  int *rowPtr, *col;
  float *val;
};

struct Config {
  int t, g, threads, ctas; // ctas: row blocks; g = 0: xsl
  bool y;                  // Y output (xs on X only)
  bool brow;               // B row-major instead of X
  bool pipe = false;       // xsp
};

std::string label(const Config &c) {
  char s[64];
  std::snprintf(s, sizeof s, "%s%s.t%d.g%d.n%d.b%d", c.brow ? "b" : "",
                c.pipe ? "p" : c.g == 0 ? "l" : c.y ? "y" : "c", c.t, c.g,
                c.threads, c.ctas);
  return s;
}

/// Lets `kernel` take up to 227 KB of dynamic shared memory (once each).
template <typename Kernel> void allowShared(Kernel kernel) {
  static std::set<const void *> configured;
  if (configured.insert(reinterpret_cast<const void *>(kernel)).second)
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
}

template <int T, int G, int NT, bool Y, bool BROW>
void launchXs(const Csr &m, const Device &d, const float *x, float *out,
              int k, int ctas, cudaStream_t st) {
  const size_t shared = size_t(T) * m.cols * sizeof(float);
  allowShared(xs<T, G, NT, Y, BROW>);
  const int rowsPerCta = (m.rows + ctas - 1) / ctas;
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + T - 1) / T);
  xs<T, G, NT, Y, BROW><<<grid, NT, shared, st>>>(
      m.rows, m.cols, rowsPerCta, d.rowPtr, d.col, d.val, x, out, k);
}

/// The odd stride of xsl's [T][stride] tile.
int oddStride(int cols) { return cols | 1; }

template <int T, int NT, bool BROW>
void launchXsl(const Csr &m, const Device &d, const float *x, float *out,
               int k, int ctas, cudaStream_t st) {
  const int stride = BROW ? m.cols : oddStride(m.cols);
  const size_t shared = size_t(T) * stride * sizeof(float);
  allowShared(xsl<T, NT, BROW>);
  const int rowsPerCta = (m.rows + ctas - 1) / ctas;
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + T - 1) / T);
  xsl<T, NT, BROW><<<grid, NT, shared, st>>>(m.rows, m.cols, stride,
                                              rowsPerCta, d.rowPtr, d.col,
                                              d.val, x, out, k);
}

template <int T, int G, int NT>
void launchXsp(const Csr &m, const Device &d, const float *x, float *out,
               int k, int ctas, cudaStream_t st) {
  const size_t shared = size_t(T) * m.cols * sizeof(float);
  allowShared(xsp<T, G, NT>);
  const int rowsPerCta = (m.rows + ctas - 1) / ctas;
  dim3 grid((m.rows + rowsPerCta - 1) / rowsPerCta, (k + T - 1) / T);
  xsp<T, G, NT><<<grid, NT, shared, st>>>(m.rows, m.cols, rowsPerCta,
                                         d.rowPtr, d.col, d.val, x, out, k);
}

template <int T, int G, int NT>
void byY(const Csr &m, const Device &d, const float *x, float *out, int k,
         const Config &c, cudaStream_t st) {
  if (c.pipe)
    launchXsp<T, G, NT>(m, d, x, out, k, c.ctas, st);
  else if (c.brow)
    launchXs<T, G, NT, false, true>(m, d, x, out, k, c.ctas, st);
  else if (c.y)
    launchXs<T, G, NT, true, false>(m, d, x, out, k, c.ctas, st);
  else
    launchXs<T, G, NT, false, false>(m, d, x, out, k, c.ctas, st);
}

template <int T, int NT>
void byB(const Csr &m, const Device &d, const float *x, float *out, int k,
         const Config &c, cudaStream_t st) {
  if (c.brow)
    launchXsl<T, NT, true>(m, d, x, out, k, c.ctas, st);
  else
    launchXsl<T, NT, false>(m, d, x, out, k, c.ctas, st);
}

template <int T>
void byLanes(const Csr &m, const Device &d, const float *x, float *out, int k,
             const Config &c, cudaStream_t st) {
  if constexpr (T >= 8) {
    if (c.threads == 256)
      byB<T, 256>(m, d, x, out, k, c, st);
    else
      byB<T, 512>(m, d, x, out, k, c, st);
  }
}

template <int T, int G>
void byThreads(const Csr &m, const Device &d, const float *x, float *out,
               int k, const Config &c, cudaStream_t st) {
  if (c.threads == 128)
    byY<T, G, 128>(m, d, x, out, k, c, st);
  else if (c.threads == 256)
    byY<T, G, 256>(m, d, x, out, k, c, st);
  else
    byY<T, G, 512>(m, d, x, out, k, c, st);
}

template <int T>
void byG(const Csr &m, const Device &d, const float *x, float *out, int k,
         const Config &c, cudaStream_t st) {
  switch (c.g) {
  case 0:
    return byLanes<T>(m, d, x, out, k, c, st);
  case 1:
    return byThreads<T, 1>(m, d, x, out, k, c, st);
  case 2:
    return byThreads<T, 2>(m, d, x, out, k, c, st);
  case 4:
    return byThreads<T, 4>(m, d, x, out, k, c, st);
  case 8:
    return byThreads<T, 8>(m, d, x, out, k, c, st);
  case 16:
    return byThreads<T, 16>(m, d, x, out, k, c, st);
  default:
    return byThreads<T, 32>(m, d, x, out, k, c, st);
  }
}

void launch(const Csr &m, const Device &d, const float *x, float *out, int k,
            const Config &c, cudaStream_t st) {
  switch (c.t) {
  case 4:
    return byG<4>(m, d, x, out, k, c, st);
  case 8:
    return byG<8>(m, d, x, out, k, c, st);
  case 16:
    return byG<16>(m, d, x, out, k, c, st);
  default:
    return byG<32>(m, d, x, out, k, c, st);
  }
}

int pow2Ceil(double v) {
  int p = 1;
  while (p < v)
    p *= 2;
  return p;
}

/// The configurations worth timing: G within a factor 8 below and 2 above
/// the mean row's length, shared memory that fits, at least half a row a
/// group, and between 66 and 2,112 CTAs (the H100's and H200's 132
/// multiprocessors).
std::vector<Config> configs(const Csr &m, int k) {
  const double mean = m.rows ? double(m.col.size()) / m.rows : 0;
  const int gHigh = std::min(32, 2 * pow2Ceil(std::max(mean, 1.0)));
  std::vector<Config> out;
  // Kinds: X with C out, X with Y out, B row-major (xs); lanes over
  // samples (xsl) on X and on B.
  // XS_Y=1 adds xs with Y out (0.98-1.05x of C out's time in session 41's
  // first run).
  const bool withY = std::getenv("XS_Y") && std::string(std::getenv("XS_Y")) == "1";
  // XS_KINDS (default "0,1,2,3,4,5"; 1 also needs XS_Y=1): 0 xs on X, 1
  // xs with Y out, 2 xs on B, 3 xsl on X, 4 xsl on B, 5 xsp.
  const std::string kinds =
      std::string(",") +
      (std::getenv("XS_KINDS") ? std::getenv("XS_KINDS") : "0,1,2,3,4,5") + ",";
  for (int kind = 0; kind < 6; ++kind)
    for (int t : {4, 8, 16, 32}) {
      if ((kind == 1 && !withY) ||
          kinds.find("," + std::to_string(kind) + ",") == std::string::npos)
        continue;
      const bool lanes = kind == 3 || kind == 4, brow = kind == 2 || kind == 4;
      if (t > k || size_t(t) * oddStride(m.cols) * 4 > 227 * 1024)
        continue;
      if ((lanes || brow) && t < 8 && !(brow && !lanes && t == 4))
        continue;
      // B's rows are staged 16 bytes a copy: K a multiple of 4.
      if (brow && k % 4 != 0)
        continue;
      for (int g = lanes ? 0 : 1; g <= 32; g = g ? 2 * g : 33) {
        if (!lanes && (g > gHigh || 8 * g < gHigh))
          continue;
        for (int threads : {128, 256, 512}) {
          if (lanes && threads == 128)
            continue;
          for (int ctas : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
            const int rowsPerCta = (m.rows + ctas - 1) / ctas;
            if (ctas > 1 && rowsPerCta < threads / (lanes ? t : g) / 2)
              continue;
            // Between half a CTA and 16 CTAs a multiprocessor (132).
            const int total = (k + t - 1) / t * ctas;
            if (total < 66 || total > 16 * 132)
              continue;
            out.push_back({t, g, threads, ctas, kind == 1, brow, kind == 5});
          }
        }
      }
    }
  return out;
}

/// The normwise relative error of Y (k x rows, row-major) against the
/// reference's C (rows x k).
double errorY(const Reference &ref, const float *deviceY) {
  std::vector<float> h(ref.C.size());
  CHECK(cudaMemcpy(h.data(), deviceY, h.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  double err = 0;
  for (int r = 0; r < ref.rows; ++r)
    for (int j = 0; j < ref.k; ++j) {
      const double d = h[size_t(j) * ref.rows + r] - ref.C[size_t(r) * ref.k + j];
      err += d * d;
    }
  return std::sqrt(err) / ref.norm;
}

const char *const kClasses[] = {"xs-c",  "xs-y",  "xs-b",
                                "xsl-x", "xsl-b", "xsp"};

} // namespace

int main(int argc, char **argv) {
  const std::vector<int> ks = envInts("XS_KS", {32, 128, 512});
  const char *onlyEnv = std::getenv("XS_ONLY");
  const std::string only = onlyEnv ? onlyEnv : "";
  int status = 0;
  for (int a = 1; a < argc; ++a) {
    Csr m;
    std::string path = argv[a];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "xs_proto: %s: cannot read\n", path.c_str());
      return 1;
    }
    std::string name = path.substr(path.find_last_of('/') + 1);
    Device d{upload(m.rowPtr), upload(m.col), upload(m.val)};
    for (int k : ks) {
      Reference ref(m, k);
      const std::vector<float> xh = ref.x();
      float *x = upload(xh), *bt = upload(ref.B);
      float *out = nullptr;
      CHECK(cudaMalloc(&out, size_t(m.rows) * k * sizeof(float)));
      // Best per class: xs on X (C out), xs on X (Y out), xs on B, xsl on
      // X, xsl on B, xsp.
      float best[6] = {1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f};
      std::string bestLabel[6];
      auto report = [&](const std::string &lab, int check, int cls, auto run) {
        CHECK(cudaMemset(out, 0xff, size_t(m.rows) * k * sizeof(float)));
        run(cudaStream_t(0));
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        const double err =
            check == 1 ? ref.error(out) : check == 2 ? errorY(ref, out) : 0.0;
        const bool wrong = check && !(err <= 1e-5);
        status |= wrong;
        if (!only.empty() || wrong) {
          std::printf("xs layer=%s k=%d kernel=%s err=%.1e%s\n", name.c_str(),
                      k, lab.c_str(), err, wrong ? " WRONG" : "");
          return;
        }
        for (int i = 0; i < 50; ++i)
          run(cudaStream_t(0));
        const float ms = medianMs(21, true, [&] { run(cudaStream_t(0)); });
        const float graph = graphUs(run);
        std::printf("xs layer=%s rows=%d cols=%d nnz=%zu k=%d kernel=%s "
                    "us=%.2f graph_us=%.2f err=%.1e%s\n",
                    name.c_str(), m.rows, m.cols, m.col.size(), k, lab.c_str(),
                    ms * 1e3, graph, err, wrong ? " WRONG" : "");
        const int slot = cls == 5   ? 5
                         : cls == 3 ? 3 + (lab[0] == 'b')
                         : cls == 2 ? 2
                                    : check - 1;
        if (check && !wrong && graph < best[slot]) {
          best[slot] = graph;
          bestLabel[slot] = lab;
        }
      };
      if (only.empty())
        report("tr", 0, 0, [&](cudaStream_t st) {
          transpose<<<dim3((m.cols + 31) / 32, (k + 31) / 32), dim3(32, 8), 0,
                      st>>>(x, bt, k, m.cols);
        });
      for (const Config &cfg : configs(m, k)) {
        const std::string lab = label(cfg);
        if (!only.empty() && only != lab)
          continue;
        const float *in = cfg.brow ? bt : x;
        report(lab, cfg.y ? 2 : 1,
               cfg.pipe ? 5 : cfg.g == 0 ? 3 : cfg.brow ? 2 : 0,
               [&](cudaStream_t st) { launch(m, d, in, out, k, cfg, st); });
      }
      if (only.empty())
        for (int o = 0; o < 6; ++o)
          std::printf("best layer=%s k=%d class=%s kernel=%s graph_us=%.2f\n",
                      name.c_str(), k,
                      kClasses[o],
                      bestLabel[o].c_str(), best[o]);
      std::fflush(stdout);
      CHECK(cudaFree(x));
      CHECK(cudaFree(bt));
      CHECK(cudaFree(out));
    }
  }
  return status;
}
