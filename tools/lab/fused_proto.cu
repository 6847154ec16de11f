//===- fused_proto.cu - The transposing copy and the SpMM in one launch ---===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SparseLinear's first layer gets X (K x cols) row-major, B = Xᵀ
// column-major. The runtime's transposing path copies X into a row-major
// B and then runs the row kernel, two launches (docs/Kernels.md,
// "Column-major B"); on small layers the second launch's wait costs about
// 1.5 µs, which is what keeps issue 28's graphs at 1.4-1.5x the row-major
// call. This program asks what one launch doing both would cost.
//
// The fused kernel (`fused.t<N>`): every CTA draws a ticket (one 64-bit
// atomic add on a counter that only grows, so that calls need no reset:
// ticket / gridDim.x is the call, ticket % gridDim.x the CTA's part of
// it). The first tickets transpose X into B, N tiles of 32 x 32 a CTA,
// then count themselves done (barrier, fence, atomic add); the rest run
// the row kernel's rows: they load their rows' bounds and first entries,
// then wait (one thread spins on an acquire load of the done counter,
// then a barrier) until every tile of this call is done. A CTA that
// waits was given its ticket after every transposing CTA had its own, so
// those are running: no deadlock, whatever the scheduler's order.
//
// Against:
//  * `rm`: the row kernel alone on a row-major B (the row-major call);
//  * `tr`: the tiled transpose alone;
//  * `tr+rm`: both in stream order; `tr+rm.pdl`: the row kernel launched
//    as the transpose's programmatic dependent (griddepcontrol.wait at its
//    start), as the runtime does;
//  * `fused.t1.sleep`: the spin sleeps 64 ns a turn; `fused.t1.nowait`:
//    no wait at all (B as the previous call left it, same values): the
//    launch's cost without its dependency;
//  * `fused.bid.t<N>`: parts by blockIdx instead of tickets, the counter
//    cleared by a memset node before each launch (`memset+rm` times that
//    node in front of the row kernel alone).
// The row kernel is the same in every arm: G lanes a row, K / (4 G)
// float4 columns a lane, entries four at a time, identity row order.
// Every arm is checked against a float64 reference (normwise 1e-5) and
// timed per call from a CUDA graph of 20 launches (BenchTiming.cuh).
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o fused_proto fused_proto.cu
//   ./fused_proto FILE.smtx[.gz]|FILE.mtx[.gz] ...
// FUSED_KS (default "32,128,512") picks the K values (multiples of 32).
// Prints one `fused` line per layer, K and arm.
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cstdio>
#include <string>

namespace {

__device__ __forceinline__ void launchDependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void waitPrimary() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

__device__ __forceinline__ unsigned long long
loadAcquire(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
               : "=l"(v)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void addRelease(unsigned long long *p,
                                           unsigned long long v) {
  asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v)
               : "memory");
}

constexpr int kThreads = 256;

/// One 32 x 32 tile of B = Xᵀ (X: k x cols row-major), tile (cx, ky).
__device__ __forceinline__ void transposeTile(const float *__restrict__ x,
                                              float *b, int k, int cols,
                                              int cx, int ky,
                                              float (*tile)[33]) {
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int c0 = cx * 32, k0 = ky * 32;
  for (int i = ty; i < 32; i += kThreads / 32)
    if (k0 + i < k && c0 + tx < cols)
      tile[i][tx] = x[size_t(k0 + i) * cols + c0 + tx];
  __syncthreads();
  for (int i = ty; i < 32; i += kThreads / 32)
    if (c0 + i < cols && k0 + tx < k)
      b[size_t(c0 + i) * k + k0 + tx] = tile[tx][i];
  __syncthreads();
}

/// A row's bounds and its first four entries, loaded before B is ready.
struct RowStart {
  int e = 0, end = 0;
  int col[4];
  float val[4];
};

template <int G>
__device__ __forceinline__ RowStart rowStart(const int *rowPtr,
                                             const int *col, const float *val,
                                             int row, int rows) {
  RowStart s;
  if (row < rows) {
    s.e = rowPtr[row];
    s.end = rowPtr[row + 1];
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const bool in = s.e + u < s.end;
    s.col[u] = in ? col[s.e + u] : 0;
    s.val[u] = in ? val[s.e + u] : 0.0f;
  }
  return s;
}

/// The row kernel's body: G lanes over row `row`, KV float4 each.
template <int G, int KV>
__device__ __forceinline__ void rowBody(RowStart s, const int *col,
                                        const float *val, const float *b,
                                        float *c, int row, int rows, int k) {
  if (row >= rows)
    return;
  const int lane = threadIdx.x % G;
  const float4 *b4 = reinterpret_cast<const float4 *>(b);
  const int k4 = k / 4;
  float4 acc[KV];
#pragma unroll
  for (int j = 0; j < KV; ++j)
    acc[j] = make_float4(0, 0, 0, 0);
  int e = s.e;
  int cs[4];
  float vs[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    cs[u] = s.col[u];
    vs[u] = s.val[u];
  }
  while (e < s.end) {
    float4 bv[4][KV];
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
      for (int j = 0; j < KV; ++j)
        bv[u][j] = b4[size_t(cs[u]) * k4 + lane + j * G];
    const int next = e + 4;
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const bool in = next + u < s.end;
      cs[u] = in ? col[next + u] : 0;
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
      for (int j = 0; j < KV; ++j) {
        acc[j].x += vs[u] * bv[u][j].x;
        acc[j].y += vs[u] * bv[u][j].y;
        acc[j].z += vs[u] * bv[u][j].z;
        acc[j].w += vs[u] * bv[u][j].w;
      }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const bool in = next + u < s.end;
      vs[u] = in ? val[next + u] : 0.0f;
    }
    e = next;
  }
  float4 *c4 = reinterpret_cast<float4 *>(c);
#pragma unroll
  for (int j = 0; j < KV; ++j)
    c4[size_t(row) * k4 + lane + j * G] = acc[j];
}

/// The row kernel; kWait: launched as a programmatic dependent.
template <int G, int KV, bool kWait>
__global__ void __launch_bounds__(kThreads)
    rowKernel(const int *rowPtr, const int *col, const float *val,
              const float *b, float *c, int rows, int k) {
  const int row = (blockIdx.x * kThreads + threadIdx.x) / G;
  RowStart s = rowStart<G>(rowPtr, col, val, row, rows);
  if (kWait)
    waitPrimary();
  rowBody<G, KV>(s, col, val, b, c, row, rows, k);
}

/// The tiled transpose; launches its dependents at its start.
__global__ void __launch_bounds__(kThreads)
    transposeKernel(const float *x, float *b, int k, int cols) {
  launchDependents();
  __shared__ float tile[32][33];
  transposeTile(x, b, k, cols, blockIdx.x, blockIdx.y, tile);
}

/// Both in one launch (the header): `transposers` CTAs of `perCta` tiles,
/// then the row CTAs. counters[0]: tickets; counters[1]: tiles done.
template <int G, int KV>
__global__ void __launch_bounds__(kThreads)
    fusedKernel(const float *x, float *b, const int *rowPtr, const int *col,
                const float *val, float *c, int rows, int k, int cols,
                int transposers, int perCta, unsigned long long *counters,
                bool byBlock, int wait) {
  __shared__ float tile[32][33];
  __shared__ unsigned long long ticketShared;
  if (threadIdx.x == 0 && !byBlock)
    ticketShared = atomicAdd(&counters[0], 1ull);
  __syncthreads();
  const unsigned long long ticket = byBlock ? blockIdx.x : ticketShared;
  const unsigned long long call = ticket / gridDim.x;
  const int part = int(ticket % gridDim.x);
  if (part < transposers) {
    const int colTiles = (cols + 31) / 32, kTiles = k / 32;
    for (int i = 0; i < perCta; ++i) {
      const int t = part * perCta + i;
      if (t >= colTiles * kTiles)
        break;
      transposeTile(x, b, k, cols, t % colTiles, t / colTiles, tile);
    }
    if (threadIdx.x == 0) {
      __threadfence();
      addRelease(&counters[1], 1ull);
    }
    return;
  }
  const int row = ((part - transposers) * kThreads + threadIdx.x) / G;
  RowStart s = rowStart<G>(rowPtr, col, val, row, rows);
  if (threadIdx.x == 0 && wait) {
    const unsigned long long target = (call + 1) * transposers;
    while (loadAcquire(&counters[1]) < target)
      if (wait > 1)
        __nanosleep(wait);
  }
  __syncthreads();
  rowBody<G, KV>(s, col, val, b, c, row, rows, k);
}

struct Device {
  int *rowPtr, *col;
  float *val, *x, *b, *c;
  unsigned long long *counters;
};

template <int G, int KV>
void runK(const std::string &name, const Csr &m, int k) {
  Reference ref(m, k);
  Device d;
  d.rowPtr = upload(m.rowPtr);
  d.col = upload(m.col);
  d.val = upload(m.val);
  d.x = upload(ref.x());
  CHECK(cudaMalloc(&d.b, ref.B.size() * sizeof(float)));
  CHECK(cudaMalloc(&d.c, ref.C.size() * sizeof(float)));
  CHECK(cudaMalloc(&d.counters, 2 * sizeof(unsigned long long)));
  float *bRowMajor = upload(ref.B);

  const int rowCtas = (m.rows * G + kThreads - 1) / kThreads;
  const dim3 tGrid((m.cols + 31) / 32, k / 32);
  auto poison = [&] {
    CHECK(cudaMemset(d.c, 0xff, ref.C.size() * sizeof(float)));
    CHECK(cudaMemset(d.b, 0xff, ref.B.size() * sizeof(float)));
  };
  auto report = [&](const char *arm, float us, double err) {
    std::printf("fused %s k=%d %s graph_us=%.2f error=%.1e%s\n", name.c_str(),
                k, arm, us, err, err > 1e-5 ? " WRONG" : "");
    std::fflush(stdout);
  };
  auto rm = [&](cudaStream_t s, const float *b) {
    rowKernel<G, KV, false><<<rowCtas, kThreads, 0, s>>>(
        d.rowPtr, d.col, d.val, b, d.c, m.rows, k);
  };
  auto tr = [&](cudaStream_t s) {
    transposeKernel<<<tGrid, dim3(kThreads), 0, s>>>(d.x, d.b, k, m.cols);
  };
  auto pdl = [&](cudaStream_t s) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(rowCtas);
    config.blockDim = dim3(kThreads);
    config.stream = s;
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, rowKernel<G, KV, true>,
                             (const int *)d.rowPtr, (const int *)d.col,
                             (const float *)d.val, (const float *)d.b, d.c,
                             m.rows, k));
  };

  poison();
  rm(0, bRowMajor);
  CHECK(cudaDeviceSynchronize());
  report("rm", graphUs([&](cudaStream_t s) { rm(s, bRowMajor); }),
         ref.error(d.c));

  poison();
  tr(0);
  CHECK(cudaDeviceSynchronize());
  {
    std::vector<float> h(ref.B.size());
    CHECK(cudaMemcpy(h.data(), d.b, h.size() * 4, cudaMemcpyDeviceToHost));
    double err = 0;
    for (size_t i = 0; i < h.size(); ++i)
      err += h[i] != ref.B[i];
    report("tr", graphUs(tr), err);
  }

  poison();
  tr(0);
  rm(0, d.b);
  CHECK(cudaDeviceSynchronize());
  report("memset+rm", graphUs([&](cudaStream_t s) {
           CHECK(cudaMemsetAsync(d.counters, 0, 16, s));
           rm(s, d.b);
         }),
         ref.error(d.c));
  report("tr+rm", graphUs([&](cudaStream_t s) {
           tr(s);
           rm(s, d.b);
         }),
         ref.error(d.c));

  poison();
  tr(0);
  pdl(0);
  CHECK(cudaDeviceSynchronize());
  report("tr+rm.pdl", graphUs([&](cudaStream_t s) {
           tr(s);
           pdl(s);
         }),
         ref.error(d.c));

  const int tiles = int(tGrid.x * tGrid.y);
  for (int arm = 0; arm < 6; ++arm) {
    const int perCta = arm < 4 ? 1 << (arm % 2) : 1;
    const bool byBlock = arm == 2 || arm == 3;
    // arm 4: no wait (B as the previous call left it: the timing of the
    // launch without its dependency); arm 5: the spin sleeps 64 ns.
    const int wait = arm == 4 ? 0 : arm == 5 ? 64 : 1;
    const int transposers = (tiles + perCta - 1) / perCta;
    auto fused = [&](cudaStream_t s) {
      if (byBlock)
        CHECK(cudaMemsetAsync(d.counters, 0, 2 * sizeof(unsigned long long),
                              s));
      fusedKernel<G, KV><<<transposers + rowCtas, kThreads, 0, s>>>(
          d.x, d.b, d.rowPtr, d.col, d.val, d.c, m.rows, k, m.cols,
          transposers, perCta, d.counters, byBlock, wait);
    };
    CHECK(cudaMemset(d.counters, 0, 2 * sizeof(unsigned long long)));
    if (wait)
      poison();
    fused(0);
    CHECK(cudaDeviceSynchronize());
    const double err = ref.error(d.c);
    const float us = graphUs(fused);
    // The timed replays must have left a right C too.
    const double after = ref.error(d.c);
    std::string label = std::string(byBlock ? "fused.bid.t" : "fused.t") +
                        std::to_string(perCta) +
                        (wait == 0 ? ".nowait" : wait > 1 ? ".sleep" : "");
    report(label.c_str(), us, std::max(err, after));
  }
  for (void *p : {(void *)d.rowPtr, (void *)d.col, (void *)d.val,
                  (void *)d.x, (void *)d.b, (void *)d.c, (void *)d.counters,
                  (void *)bRowMajor})
    CHECK(cudaFree(p));
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<int> ks = envInts("FUSED_KS", {32, 128, 512});
  for (int a = 1; a < argc; ++a) {
    Csr m;
    std::string path = argv[a];
    if (!readLayer(path, m)) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 1;
    }
    std::string name = path.substr(path.find_last_of('/') + 1);
    for (int k : ks) {
      if (k == 32)
        runK<8, 1>(name, m, k);
      else if (k == 64)
        runK<16, 1>(name, m, k);
      else if (k == 128)
        runK<32, 1>(name, m, k);
      else if (k == 256)
        runK<32, 2>(name, m, k);
      else if (k == 512)
        runK<32, 4>(name, m, k);
      else
        std::fprintf(stderr, "K = %d: not one of 32, 64, 128, 256, 512\n", k);
    }
  }
  return 0;
}
