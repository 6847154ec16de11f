//===- tile_proto.cu - Blocked-ELL tiles with register reuse: a prototype -===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// An experiment, not part of the product (docs/results/perf-notes.md, the
// bell-tile prototype; tools/lab/README.md). The fp32 bell kernel multiplies a row's tau values of each
// dense tile with tau rows of B, row by row: every 16-byte load of B feeds 4
// multiply-adds, as in the csr kernel, so dense tiles buy nothing but the
// column indices. Here a slice of R rows of a tile shares each load of B
// (R x 4 multiply-adds per load), the tile's values read as R-vectors:
//  * `row`: the csr kernel's shape — a group of K / 4 lanes per row, entries
//    broadcast by shuffle, batches of 8 B loads in flight;
//  * `tile`: the CSR residual by `row` (stores C), then a CTA per block row
//    (or BRPC block rows when K is small), TAU / R slices of R rows, each a
//    group of K / 4 lanes; per stored tile and column c of it, one B row
//    load and the R values of column c (a float4 per 4 rows: `cm` reads
//    them from a column-major copy of the tile values in global memory,
//    `smem` stages the row-major tile in shared memory, transposed, with
//    an XOR swizzle of 4-float chunks); the slice adds its R rows into C;
//  * `unit` (TAU = 16): the residual by `row`, then units of G lanes, each
//    all 16 rows of a block row for 4G columns of C, sharing the block
//    row's tiles among P parts (red.global.add.v4.f32 when P > 1), the
//    tile staged like `smem` (what the code generator's bell-tile does).
// By default the second recorded run's variants run (delta 0.25: `tile`
// R = 16 smem at TAU = 32, `unit` with P = 1 .. 16 at TAU = 16); with
// SLICES set, the first run's (`tile` R = 8, 16 x cm, smem at TAU = 16, 32
// and delta 0.1, 0.25, 0.5): docs/results/bell-tile-2026-11-21-s9.
// Matrices: FILE.smtx (plain), or generated: banded:N:HALFWIDTH,
// block:ROWS:COLS:B:DENSITY (B x B tiles present with that probability).
// Every variant is checked against a float64 reference (C poisoned first)
// and timed like spperm-verify --bench (events, median of 20, queued).
//
//   nvcc -O3 -arch=sm_90 -o tile_proto tile_proto.cu
//   ./tile_proto MATRIX...
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

__device__ inline void fma4(float4 &acc, float a, float4 b) {
  acc.x += a * b.x;
  acc.y += a * b.y;
  acc.z += a * b.z;
  acc.w += a * b.w;
}

/// A group of K / 4 lanes per row; ADD adds into C instead of storing.
template <int K, bool ADD>
__global__ void __launch_bounds__(256)
    rowKernel(int rows, const int *rowPtr, const int *col, const float *val,
              const float4 *B, float4 *C) {
  constexpr int G = K / 4;
  int row = (blockIdx.x * 256 + threadIdx.x) / G, lane = threadIdx.x % G;
  if (row >= rows)
    return;
  unsigned mask =
      G == 32 ? ~0u : ((1u << G) - 1) << (threadIdx.x % 32 / G * G);
  float4 acc = make_float4(0, 0, 0, 0);
  for (int base = rowPtr[row], end = rowPtr[row + 1]; base < end; base += G) {
    int c = 0;
    float v = 0;
    if (base + lane < end) {
      c = col[base + lane];
      v = val[base + lane];
    }
    int n = min(G, end - base);
    for (int j0 = 0; j0 < n; j0 += 8) {
      float4 b[8];
      float a[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        int cj = __shfl_sync(mask, c, (j0 + j) % G, G);
        a[j] = __shfl_sync(mask, v, (j0 + j) % G, G);
        b[j] = j0 + j < n ? B[size_t(cj) * G + lane] : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j)
        fma4(acc, j0 + j < n ? a[j] : 0.0f, b[j]);
    }
  }
  float4 *out = &C[size_t(row) * G + lane];
  if (ADD) {
    float4 o = *out;
    acc.x += o.x;
    acc.y += o.y;
    acc.z += o.z;
    acc.w += o.w;
  }
  *out = acc;
}

/// Dense tiles, R rows per slice sharing each B load. Tile values: `cm`
/// column-major per tile (SMEM = false), or row-major staged in shared
/// memory (SMEM = true).
template <int K, int TAU, int R, int BRPC, bool SMEM, int U>
__global__ void __launch_bounds__(BRPC *(TAU / R) * (K / 4))
    tileKernel(int rows, int cols, int blockRows, const int *brPtr,
               const int *bcol, const float *vals, const float4 *B,
               float4 *C) {
  constexpr int G = K / 4, SL = TAU / R, GT = SL * G, MASKC = TAU / 4 - 1;
  static_assert(BRPC == 1 || GT <= 32, "block rows of a CTA share a warp");
  __shared__ __align__(16) float As[SMEM ? BRPC : 1][SMEM ? TAU * TAU : 4];
  int t = threadIdx.x, sub = t / GT, s = (t % GT) / G, lane = t % G;
  int br = blockIdx.x * BRPC + sub;
  if (br >= blockRows)
    return;
  unsigned mask = GT >= 32 ? ~0u : ((1u << GT) - 1) << (t % 32 / GT * GT);
  auto sync = [&] {
    if (BRPC == 1)
      __syncthreads();
    else
      __syncwarp(mask);
  };
  float4 acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    acc[r] = make_float4(0, 0, 0, 0);
  const int r0 = s * R;
  for (int blk = brPtr[br], end = brPtr[br + 1]; blk < end; ++blk) {
    int bc = bcol[blk];
    const float *v = vals + size_t(blk) * TAU * TAU;
    float *as = As[SMEM ? sub : 0];
    if (SMEM) {
      sync();
      for (int i = t % GT; i < TAU * TAU; i += GT) {
        int r = i / TAU, c = i % TAU;
        as[c * TAU + (r ^ ((c & MASKC) << 2))] = v[i];
      }
      sync();
    }
#pragma unroll 2
    for (int c0 = 0; c0 < TAU; c0 += U) {
      float4 b[U];
      float4 a[U][R / 4];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        int c = c0 + u, brow = bc * TAU + c;
        b[u] = brow < cols ? B[size_t(brow) * G + lane]
                           : make_float4(0, 0, 0, 0);
#pragma unroll
        for (int q = 0; q < R / 4; ++q)
          a[u][q] = SMEM ? *reinterpret_cast<const float4 *>(
                               &as[c * TAU + ((r0 + 4 * q) ^ ((c & MASKC) << 2))])
                         : *reinterpret_cast<const float4 *>(
                               &v[c * TAU + r0 + 4 * q]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int q = 0; q < R / 4; ++q) {
          fma4(acc[4 * q + 0], a[u][q].x, b[u]);
          fma4(acc[4 * q + 1], a[u][q].y, b[u]);
          fma4(acc[4 * q + 2], a[u][q].z, b[u]);
          fma4(acc[4 * q + 3], a[u][q].w, b[u]);
        }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = br * TAU + r0 + r;
    if (row < rows) {
      float4 *out = &C[size_t(row) * G + lane];
      float4 o = *out;
      o.x += acc[r].x;
      o.y += acc[r].y;
      o.z += acc[r].z;
      o.w += acc[r].w;
      *out = o;
    }
  }
}

__device__ __forceinline__ void redAdd(float4 *p, float4 v) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

/// Units of G lanes (4 columns each): unit u = (br * P + p) * S + ks takes
/// the tiles p, p + P, ... of block row br for columns [ks * 4G, +4G) of C,
/// all TAU rows of the block row in registers; the tile is staged in the
/// unit's shared memory, transposed (XOR swizzle). Adds into C: a plain
/// read-modify-write when P = 1, else red.global.add.v4.f32.
template <int K, int G, int TAU, int U>
__global__ void __launch_bounds__(128)
    unitKernel(int rows, int cols, int blockRows, int P, const int *brPtr,
               const int *bcol, const float *vals, const float4 *B,
               float4 *C) {
  constexpr int S = K / (4 * G), UNITS = 128 / G, MASKC = TAU / 4 - 1;
  __shared__ __align__(16) float As[UNITS][TAU * TAU];
  int t = threadIdx.x, local = t / G, lane = t % G;
  long long u = (long long)blockIdx.x * UNITS + local;
  int ks = int(u % S);
  long long bp = u / S;
  int p = int(bp % P), br = int(bp / P);
  if (br >= blockRows)
    return;
  unsigned mask = G == 32 ? ~0u : ((1u << G) - 1) << (t % 32 / G * G);
  float4 acc[TAU];
#pragma unroll
  for (int r = 0; r < TAU; ++r)
    acc[r] = make_float4(0, 0, 0, 0);
  float *as = As[local];
  const float4 *Bs = B + ks * G + lane;
  for (int blk = brPtr[br] + p, end = brPtr[br + 1]; blk < end; blk += P) {
    int bc = bcol[blk];
    const float *v = vals + size_t(blk) * TAU * TAU;
    __syncwarp(mask);
    for (int i = lane; i < TAU * TAU; i += G) {
      int r = i / TAU, c = i % TAU;
      as[c * TAU + (r ^ ((c & MASKC) << 2))] = v[i];
    }
    __syncwarp(mask);
#pragma unroll 2
    for (int c0 = 0; c0 < TAU; c0 += U) {
      float4 b[U];
#pragma unroll
      for (int j = 0; j < U; ++j) {
        int brow = bc * TAU + c0 + j;
        b[j] = brow < cols ? Bs[size_t(brow) * (K / 4)] : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < U; ++j) {
        int c = c0 + j;
#pragma unroll
        for (int q = 0; q < TAU / 4; ++q) {
          float4 a = *reinterpret_cast<const float4 *>(
              &as[c * TAU + ((4 * q) ^ ((c & MASKC) << 2))]);
          fma4(acc[4 * q + 0], a.x, b[j]);
          fma4(acc[4 * q + 1], a.y, b[j]);
          fma4(acc[4 * q + 2], a.z, b[j]);
          fma4(acc[4 * q + 3], a.w, b[j]);
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < TAU; ++r) {
    int row = br * TAU + r;
    if (row < rows) {
      float4 *out = &C[size_t(row) * (K / 4) + ks * G + lane];
      if (P == 1) {
        float4 o = *out;
        o.x += acc[r].x;
        o.y += acc[r].y;
        o.z += acc[r].z;
        o.w += acc[r].w;
        *out = o;
      } else {
        redAdd(out, acc[r]);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Host
//===----------------------------------------------------------------------===//

/// banded:N:HW or block:ROWS:COLS:B:DENSITY.
static bool generate(const std::string &spec, Csr &m) {
  std::vector<std::string> f;
  std::stringstream ss(spec);
  for (std::string x; std::getline(ss, x, ':');)
    f.push_back(x);
  m.rowPtr.assign(1, 0);
  if (f[0] == "banded" && f.size() == 3) {
    int n = std::stoi(f[1]), hw = std::stoi(f[2]);
    m.rows = m.cols = n;
    for (int r = 0; r < n; ++r) {
      for (int c = std::max(0, r - hw); c <= std::min(n - 1, r + hw); ++c)
        m.col.push_back(c);
      m.rowPtr.push_back(int(m.col.size()));
    }
  } else if (f[0] == "block" && f.size() == 5) {
    m.rows = std::stoi(f[1]);
    m.cols = std::stoi(f[2]);
    int b = std::stoi(f[3]);
    double p = std::stod(f[4]);
    int brs = (m.rows + b - 1) / b, bcs = (m.cols + b - 1) / b;
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> d(0, 1);
    for (int br = 0; br < brs; ++br) {
      std::vector<int> present;
      for (int bc = 0; bc < bcs; ++bc)
        if (d(rng) < p)
          present.push_back(bc);
      for (int r = br * b; r < std::min(m.rows, br * b + b); ++r) {
        for (int bc : present)
          for (int c = bc * b; c < std::min(m.cols, bc * b + b); ++c)
            m.col.push_back(c);
        m.rowPtr.push_back(int(m.col.size()));
      }
    }
  } else {
    return false;
  }
  randomValues(m);
  return true;
}

/// Blocked-ELL with TAU x TAU tiles kept when count >= delta * TAU^2
/// (identity order), as a CSR of tiles, and the residual.
struct Bell {
  int tau = 0, blockRows = 0;
  std::vector<int> brPtr, bcol;
  std::vector<float> rowMajor, colMajor;
  Csr residual;
  long long denseNnz = 0;
};

static Bell makeBell(const Csr &m, int tau, double delta) {
  Bell b;
  b.tau = tau;
  b.blockRows = (m.rows + tau - 1) / tau;
  int bcs = (m.cols + tau - 1) / tau;
  std::vector<int> count(bcs, 0), slot(bcs, -1);
  b.brPtr.push_back(0);
  b.residual.rows = m.rows;
  b.residual.cols = m.cols;
  b.residual.rowPtr.push_back(0);
  for (int br = 0; br < b.blockRows; ++br) {
    int r1 = std::min(m.rows, br * tau + tau);
    std::vector<int> touched;
    for (int r = br * tau; r < r1; ++r)
      for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
        if (count[m.col[e] / tau]++ == 0)
          touched.push_back(m.col[e] / tau);
    std::sort(touched.begin(), touched.end());
    for (int bc : touched)
      if (count[bc] >= delta * tau * tau) {
        slot[bc] = int(b.bcol.size());
        b.bcol.push_back(bc);
      }
    b.brPtr.push_back(int(b.bcol.size()));
    b.rowMajor.resize(b.bcol.size() * tau * tau, 0.0f);
    b.colMajor.resize(b.bcol.size() * tau * tau, 0.0f);
    for (int r = br * tau; r < r1; ++r) {
      for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
        int bc = m.col[e] / tau;
        if (slot[bc] >= 0) {
          size_t base = size_t(slot[bc]) * tau * tau;
          int lr = r - br * tau, lc = m.col[e] - bc * tau;
          b.rowMajor[base + lr * tau + lc] = m.val[e];
          b.colMajor[base + lc * tau + lr] = m.val[e];
          ++b.denseNnz;
        } else {
          b.residual.col.push_back(m.col[e]);
          b.residual.val.push_back(m.val[e]);
        }
      }
      b.residual.rowPtr.push_back(int(b.residual.col.size()));
    }
    for (int bc : touched) {
      count[bc] = 0;
      slot[bc] = -1;
    }
  }
  return b;
}

struct DevCsr {
  int rows;
  int *rp, *ci;
  float *vv;
  explicit DevCsr(const Csr &m)
      : rows(m.rows), rp(upload(m.rowPtr)), ci(upload(m.col)),
        vv(upload(m.val)) {}
  ~DevCsr() {
    CHECK(cudaFree(rp));
    CHECK(cudaFree(ci));
    CHECK(cudaFree(vv));
  }
};

template <int K> static void runMatrix(const char *name, const Csr &m) {
  constexpr int G = K / 4;
  const long long nnz = m.rowPtr.back();
  Reference ref(m, K);
  float *dB = upload(ref.B), *dC = nullptr;
  CHECK(cudaMalloc(&dC, size_t(m.rows) * K * sizeof(float)));
  const float4 *B4 = reinterpret_cast<const float4 *>(dB);
  float4 *C4 = reinterpret_cast<float4 *>(dC);
  // Poisons C, runs `launch` once and checks it, then times it.
  auto measure = [&](const std::string &what, auto launch) {
    CHECK(cudaMemset(dC, 0xff, size_t(m.rows) * K * 4));
    launch();
    CHECK(cudaDeviceSynchronize());
    double err = ref.error(dC);
    if (!(err < 1e-5)) {
      std::fprintf(stderr, "tile_proto: %s K=%d %s: relative error %g\n", name,
                   K, what.c_str(), err);
      std::exit(1);
    }
    return medianMs(20, /*queued=*/true, launch);
  };
  auto rowLaunch = [&](const DevCsr &a) {
    rowKernel<K, false><<<(size_t(m.rows) * G + 255) / 256, 256>>>(
        m.rows, a.rp, a.ci, a.vv, B4, C4);
    CHECK(cudaGetLastError());
  };

  DevCsr all(m);
  float rowMs = measure("row", [&] { rowLaunch(all); });
  std::printf("%s K=%d rows=%d cols=%d nnz=%lld variant=row ms=%.4f\n", name,
              K, m.rows, m.cols, nnz, rowMs);
  float best = rowMs;
  std::string bestName = "row";
  const bool slices = std::getenv("SLICES") != nullptr;

  auto tryTau = [&](auto tauTag) {
    constexpr int TAU = decltype(tauTag)::value;
    for (double delta : {0.1, 0.25, 0.5}) {
      if (!slices && delta != 0.25)
        continue;
      Bell b = makeBell(m, TAU, delta);
      if (b.bcol.empty())
        continue;
      DevCsr res(b.residual);
      int *brp = upload(b.brPtr), *bcl = upload(b.bcol);
      float *rm = upload(b.rowMajor), *cm = upload(b.colMajor);
      int maxTiles = 0;
      for (int i = 0; i < b.blockRows; ++i)
        maxTiles = std::max(maxTiles, b.brPtr[i + 1] - b.brPtr[i]);
      // Checks and times the residual's row kernel followed by `tiles`,
      // and `tiles` alone.
      auto run = [&](std::string what, const std::string &extra, auto tiles) {
        what += " tau=" + std::to_string(TAU) +
                " delta=" + std::to_string(delta).substr(0, 4);
        float ms = measure(what, [&] {
          rowLaunch(res);
          tiles();
        });
        float tileMs = medianMs(20, true, tiles);
        std::printf("%s K=%d variant=%s dense_share=%.3f fill=%.3f tiles=%zu%s "
                    "ms=%.4f tile_only_ms=%.4f vs_row=%.2f\n",
                    name, K, what.c_str(), double(b.denseNnz) / nnz,
                    double(b.denseNnz) / (double(b.bcol.size()) * TAU * TAU),
                    b.bcol.size(), extra.c_str(), ms, tileMs, rowMs / ms);
        if (ms < best) {
          best = ms;
          bestName = what;
        }
      };
      // `tile` with R-row slices, values from `cm` or shared memory.
      auto tile = [&](auto rTag, auto smemTag, auto uTag) {
        constexpr int R = decltype(rTag)::value;
        constexpr bool SMEM = decltype(smemTag)::value;
        constexpr int U = decltype(uTag)::value;
        constexpr int GT = (TAU / R) * G;
        constexpr int BRPC = GT >= 64 ? 1 : 128 / GT;
        int ctas = (b.blockRows + BRPC - 1) / BRPC;
        run("tile R=" + std::to_string(R) + " U=" + std::to_string(U) +
                (SMEM ? " smem" : " cm"),
            "", [&] {
              tileKernel<K, TAU, R, BRPC, SMEM, U><<<ctas, BRPC * GT>>>(
                  m.rows, m.cols, b.blockRows, brp, bcl, SMEM ? rm : cm, B4,
                  C4);
              CHECK(cudaGetLastError());
            });
      };
      // `unit` with G lanes and P parts (TAU = 16).
      auto unit = [&](auto gTag, int P) {
        constexpr int GG = decltype(gTag)::value;
        constexpr int S = K / (4 * GG);
        long long units = (long long)b.blockRows * P * S;
        int ctas = int((units + 128 / GG - 1) / (128 / GG));
        run("unit G=" + std::to_string(GG) + " P=" + std::to_string(P),
            " units=" + std::to_string(units), [&] {
              unitKernel<K, GG, 16, 4><<<ctas, 128>>>(m.rows, m.cols,
                                                     b.blockRows, P, brp, bcl,
                                                     rm, B4, C4);
              CHECK(cudaGetLastError());
            });
      };
      using Cm = std::false_type;
      using Smem = std::true_type;
      using I2 = std::integral_constant<int, 2>;
      using I4 = std::integral_constant<int, 4>;
      using I8 = std::integral_constant<int, 8>;
      using I16 = std::integral_constant<int, 16>;
      if (slices) {
        tile(I8{}, Cm{}, I4{});
        tile(I8{}, Smem{}, I4{});
        tile(I16{}, Cm{}, I2{});
        tile(I16{}, Smem{}, I2{});
      } else if constexpr (TAU == 32) {
        tile(I16{}, Smem{}, I2{});
      } else {
        for (int P = 1; P <= 16 && (P == 1 || P <= maxTiles); P *= 2) {
          unit(std::integral_constant<int, G>{}, P);
          if (K == 128)
            unit(I8{}, P);
        }
      }
      CHECK(cudaFree(brp));
      CHECK(cudaFree(bcl));
      CHECK(cudaFree(rm));
      CHECK(cudaFree(cm));
    }
  };
  tryTau(std::integral_constant<int, 16>{});
  tryTau(std::integral_constant<int, 32>{});
  std::printf("BEST %s K=%d nnz=%lld row_ms=%.4f best_ms=%.4f gain=%.2f %s\n",
              name, K, nnz, rowMs, best, rowMs / best, bestName.c_str());
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tile_proto MATRIX...\n");
    return 2;
  }
  for (int f = 1; f < argc; ++f) {
    Csr m;
    std::string arg = argv[f];
    bool ok = arg.find(':') != std::string::npos ? generate(arg, m)
                                                 : readSmtx(argv[f], m);
    if (!ok) {
      std::fprintf(stderr, "tile_proto: %s: not a matrix\n", argv[f]);
      return 1;
    }
    const char *name = std::strrchr(argv[f], '/') ? std::strrchr(argv[f], '/') + 1
                                                   : argv[f];
    runMatrix<32>(name, m);
    runMatrix<128>(name, m);
    std::fflush(stdout);
  }
  return 0;
}
