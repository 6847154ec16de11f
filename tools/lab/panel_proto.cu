//===- panel_proto.cu - B reuse through column panels: a prototype -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// An experiment, not part of the product (docs/results/perf-notes.md, the
// B-reuse prototypes; tools/lab/README.md). DLMC layers at K = 128 are bound by the L2 -> SM traffic of B:
// the row kernel fetches B's row for every entry (nnz x K x 4 bytes). This
// measures what staging B in shared memory buys, on real matrices, before
// the code generator gets such a family:
//  * `row`: a warp per row, 32 lanes x 4 columns, entries broadcast by
//    shuffle, 8 B loads in flight (the shape of spperm's csr kernel without
//    parts);
//  * `panel`: the matrix cut into tasks of R rows x CP columns (non-empty
//    ones only); a CTA per task and K chunk of KC columns copies B's CP x KC
//    tile into shared memory once, then groups of KC / 4 lanes walk the
//    task's rows reading B from the tile, and add their partial rows into C
//    with red.global.add.v4.f32 (C cleared first, timed with the kernel);
//  * `panel-l1`: the same tasks without the copy (B from global memory, so
//    only L1 gives reuse);
//  * `window`: windows of R rows with the union of their columns and an
//    R-vector of values per union column (zeros included), so one 16-byte
//    load of B feeds R rows' multiply-adds (windowKernel: a warp of 32 lanes
//    x 4 columns per part; windowKernel2: groups of 8 lanes, a CTA per
//    window and 32-column slice of C, every group a part).
// Only R = 16, CP = 128 panels run unless PANELS is set.
// Every variant is checked against a float64 CPU reference with random
// values and B (C poisoned first), and timed like spperm-verify --bench:
// events around each run, median of 20, the runs queued behind a host flag.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o panel_proto panel_proto.cu
//   ./panel_proto FILE.smtx [FILE.smtx ...]     (plain, not gzip'd)
// Prints one line per matrix and variant.
//
//===----------------------------------------------------------------------===//

#include "BenchMatrix.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

constexpr int K = 128;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

__global__ void __launch_bounds__(256)
    rowKernel(int rows, const int *rowPtr, const int *col, const float *val,
              const float4 *B, float4 *C) {
  int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows)
    return;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int base = rowPtr[row], end = rowPtr[row + 1]; base < end; base += 32) {
    int c = 0;
    float v = 0;
    if (base + lane < end) {
      c = col[base + lane];
      v = val[base + lane];
    }
    int n = min(32, end - base);
    for (int j0 = 0; j0 < n; j0 += 8) {
      float4 b[8];
      float a[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        int cj = __shfl_sync(~0u, c, j0 + j);
        a[j] = __shfl_sync(~0u, v, j0 + j);
        b[j] = j0 + j < n ? B[size_t(cj) * (K / 4) + lane]
                          : make_float4(0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        acc.x += a[j] * b[j].x;
        acc.y += a[j] * b[j].y;
        acc.z += a[j] * b[j].z;
        acc.w += a[j] * b[j].w;
      }
    }
  }
  C[size_t(row) * (K / 4) + lane] = acc;
}

__device__ __forceinline__ void redAdd(float4 *p, float4 v) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

/// Tasks: task t covers rows [taskRow[t], +R) and columns
/// [taskCol[t], +CP); its row r's entries are entries
/// [taskPtr[t * (R + 1) + r], taskPtr[t * (R + 1) + r + 1]) with columns
/// local to the panel.
template <int KC, bool Stage>
__global__ void __launch_bounds__(256)
    panelKernel(int R, int CP, int cols, const int *taskRow,
                const int *taskCol, const int *taskPtr, const int *lcol,
                const float *val, const float4 *B, float4 *C) {
  constexpr int G = KC / 4;       // lanes per row
  constexpr int Groups = 256 / G; // row groups per CTA
  extern __shared__ float4 tile[]; // CP x (KC / 4)
  int t = blockIdx.x, kc = blockIdx.y;
  int col0 = taskCol[t], row0 = taskRow[t];
  int lane = threadIdx.x % G, group = threadIdx.x / G;
  if (Stage) {
    int width = min(CP, cols - col0);
    for (int i = threadIdx.x; i < width * G; i += 256) {
      int c = i / G, l = i % G;
      tile[i] = B[size_t(col0 + c) * (K / 4) + kc * G + l];
    }
    __syncthreads();
  }
  const int *ptr = taskPtr + size_t(t) * (R + 1);
  unsigned mask = G == 32 ? ~0u : (((1u << G) - 1) << (threadIdx.x % 32 / G * G));
  for (int r = group; r < R; r += Groups) {
    int begin = ptr[r], end = ptr[r + 1];
    if (begin == end)
      continue;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int base = begin; base < end; base += G) {
      int c = 0;
      float v = 0;
      if (base + lane < end) {
        c = lcol[base + lane];
        v = val[base + lane];
      }
      int n = min(G, end - base);
      for (int j0 = 0; j0 < n; j0 += 8) {
        float4 b[8];
        float a[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          int src = (threadIdx.x % 32 / G * G) + j0 + j;
          int cj = __shfl_sync(mask, c, src);
          a[j] = __shfl_sync(mask, v, src);
          if (j0 + j < n)
            b[j] = Stage ? tile[cj * G + lane]
                         : B[size_t(col0 + cj) * (K / 4) + kc * G + lane];
          else
            b[j] = make_float4(0, 0, 0, 0);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          acc.x += a[j] * b[j].x;
          acc.y += a[j] * b[j].y;
          acc.z += a[j] * b[j].z;
          acc.w += a[j] * b[j].w;
        }
      }
    }
    redAdd(&C[size_t(row0 + r) * (K / 4) + kc * G + lane], acc);
  }
}


/// Row windows: window w holds rows [w * R, w * R + R) and the union of
/// their columns, entries [winPtr[w], winPtr[w + 1]) of `ucol`, each with
/// an R-vector of values (0 where a row lacks the column). A CTA of P warps
/// per window; warp p takes union columns p, p + P, ... (4 at a time): one
/// 16-byte load of B serves R rows. The P partial sums meet in shared
/// memory; one plain store per element of C.
template <int R>
__global__ void __launch_bounds__(512)
    windowKernel(int rows, const int *winPtr, const int *ucol,
                 const float *uval, const float4 *B, float4 *C) {
  extern __shared__ float4 part[]; // P x R x 32
  int w = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int P = blockDim.x / 32;
  float4 acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    acc[r] = make_float4(0, 0, 0, 0);
  int begin = winPtr[w], end = winPtr[w + 1];
  for (int u = begin + warp; u < end; u += 4 * P) {
    float4 b[4];
    float a[4][R];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int uu = u + j * P;
      bool ok = uu < end;
      int c = ok ? ucol[uu] : 0;
      b[j] = ok ? B[size_t(c) * (K / 4) + lane] : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int r = 0; r < R; r += 2) {
        float2 v = ok ? *reinterpret_cast<const float2 *>(&uval[size_t(uu) * R + r])
                      : make_float2(0, 0);
        a[j][r] = v.x;
        a[j][r + 1] = v.y;
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int r = 0; r < R; ++r) {
        acc[r].x += a[j][r] * b[j].x;
        acc[r].y += a[j][r] * b[j].y;
        acc[r].z += a[j][r] * b[j].z;
        acc[r].w += a[j][r] * b[j].w;
      }
  }
#pragma unroll
  for (int r = 0; r < R; ++r)
    part[(warp * R + r) * 32 + lane] = acc[r];
  __syncthreads();
  for (int i = threadIdx.x; i < R * 32; i += blockDim.x) {
    float4 sum = make_float4(0, 0, 0, 0);
    for (int p = 0; p < P; ++p) {
      float4 v = part[p * R * 32 + i];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    int row = w * R + i / 32;
    if (row < rows)
      C[size_t(row) * (K / 4) + i % 32] = sum;
  }
}

/// windowKernel with groups of G lanes (G * 4 columns of C): CTA (window,
/// K slice of G * 4 columns); its 32 / G * warps groups are the parts, each
/// taking union columns part, part + parts, ... 8 at a time.
template <int R, int G>
__global__ void __launch_bounds__(512)
    windowKernel2(int rows, const int *winPtr, const int *ucol,
                  const float *uval, const float4 *B, float4 *C) {
  extern __shared__ float4 part[]; // parts x R x G
  int w = blockIdx.x, slice = blockIdx.y;
  int lane = threadIdx.x % G, p = threadIdx.x / G, parts = blockDim.x / G;
  float4 acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    acc[r] = make_float4(0, 0, 0, 0);
  int begin = winPtr[w], end = winPtr[w + 1];
  const float4 *Bs = B + slice * G + lane;
  for (int u = begin + p; u < end; u += 8 * parts) {
    float4 b[8];
    float a[8][R];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int uu = u + j * parts;
      bool ok = uu < end;
      int c = ok ? ucol[uu] : 0;
      b[j] = ok ? Bs[size_t(c) * (K / 4)] : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int r = 0; r < R; r += 2) {
        float2 v = ok ? *reinterpret_cast<const float2 *>(&uval[size_t(uu) * R + r])
                      : make_float2(0, 0);
        a[j][r] = v.x;
        a[j][r + 1] = v.y;
      }
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int r = 0; r < R; ++r) {
        acc[r].x += a[j][r] * b[j].x;
        acc[r].y += a[j][r] * b[j].y;
        acc[r].z += a[j][r] * b[j].z;
        acc[r].w += a[j][r] * b[j].w;
      }
  }
#pragma unroll
  for (int r = 0; r < R; ++r)
    part[(p * R + r) * G + lane] = acc[r];
  __syncthreads();
  for (int i = threadIdx.x; i < R * G; i += blockDim.x) {
    float4 sum = make_float4(0, 0, 0, 0);
    for (int q = 0; q < parts; ++q) {
      float4 v = part[q * R * G + i];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    int row = w * R + i / G;
    if (row < rows)
      C[size_t(row) * (K / 4) + slice * G + i % G] = sum;
  }
}

//===----------------------------------------------------------------------===//
// Host
//===----------------------------------------------------------------------===//

struct Tasks {
  int R = 0, CP = 0, count = 0;
  std::vector<int> row, col, ptr, lcol;
  std::vector<float> val;
};

static Tasks makeTasks(const Csr &m, int R, int CP) {
  Tasks t;
  t.R = R;
  t.CP = CP;
  int panels = (m.cols + CP - 1) / CP;
  for (int r0 = 0; r0 < m.rows; r0 += R) {
    int first = int(t.row.size());
    // Per panel, the entries of rows [r0, r0 + R) in it.
    std::vector<std::vector<int>> per(panels);
    std::vector<std::vector<int>> rowsOf(panels, std::vector<int>(R + 1, 0));
    for (int r = 0; r < R && r0 + r < m.rows; ++r)
      for (int e = m.rowPtr[r0 + r]; e < m.rowPtr[r0 + r + 1]; ++e)
        ++rowsOf[m.col[e] / CP][r + 1];
    for (int p = 0; p < panels; ++p) {
      int total = 0;
      for (int r = 1; r <= R; ++r)
        total += rowsOf[p][r];
      if (!total)
        continue;
      t.row.push_back(r0);
      t.col.push_back(p * CP);
      int base = int(t.lcol.size());
      int acc = base;
      for (int r = 0; r <= R; ++r) {
        if (r)
          acc += rowsOf[p][r];
        t.ptr.push_back(acc);
      }
      t.lcol.resize(acc);
      t.val.resize(acc);
    }
    // Fill the tasks of this window (appended from `first` on).
    std::vector<int> taskOf(panels, -1);
    for (int i = first; i < int(t.row.size()); ++i)
      taskOf[t.col[i] / CP] = i;
    std::vector<int> fill(panels * (R + 1), 0);
    for (int r = 0; r < R && r0 + r < m.rows; ++r)
      for (int e = m.rowPtr[r0 + r]; e < m.rowPtr[r0 + r + 1]; ++e) {
        int p = m.col[e] / CP, task = taskOf[p];
        int at = t.ptr[size_t(task) * (R + 1) + r] + fill[p * (R + 1) + r]++;
        t.lcol[at] = m.col[e] - p * CP;
        t.val[at] = m.val[e];
      }
  }
  t.count = int(t.row.size());
  return t;
}


struct Windows {
  std::vector<int> ptr, col;
  std::vector<float> val;
};

static Windows makeWindows(const Csr &m, int R) {
  Windows w;
  w.ptr.push_back(0);
  std::vector<int> slot(m.cols, -1);
  for (int r0 = 0; r0 < m.rows; r0 += R) {
    std::vector<int> cols;
    for (int r = r0; r < std::min(m.rows, r0 + R); ++r)
      for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
        if (slot[m.col[e]] < 0) {
          slot[m.col[e]] = 0;
          cols.push_back(m.col[e]);
        }
    std::sort(cols.begin(), cols.end());
    int base = int(w.col.size());
    for (size_t i = 0; i < cols.size(); ++i)
      slot[cols[i]] = base + int(i);
    w.col.insert(w.col.end(), cols.begin(), cols.end());
    w.val.resize(w.col.size() * R, 0.0f);
    for (int r = r0; r < std::min(m.rows, r0 + R); ++r)
      for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
        w.val[size_t(slot[m.col[e]]) * R + (r - r0)] = m.val[e];
    for (int c : cols)
      slot[c] = -1;
    w.ptr.push_back(int(w.col.size()));
  }
  return w;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: panel_proto FILE.smtx...\n");
    return 2;
  }
  for (int f = 1; f < argc; ++f) {
    Csr m;
    if (!readSmtx(argv[f], m)) {
      std::fprintf(stderr, "panel_proto: %s: not a readable .smtx\n", argv[f]);
      return 1;
    }
    long long nnz = m.rowPtr.back();
    Reference ref(m, K);
    float *dB = upload(ref.B), *dC = nullptr;
    CHECK(cudaMalloc(&dC, size_t(m.rows) * K * sizeof(float)));
    auto check = [&](const char *what) {
      double err = ref.error(dC);
      if (!(err < 1e-5)) {
        std::fprintf(stderr, "panel_proto: %s %s: relative error %g\n",
                     argv[f], what, err);
        std::exit(1);
      }
    };
    const char *name = std::strrchr(argv[f], '/') ? std::strrchr(argv[f], '/') + 1
                                                   : argv[f];
    double density = double(nnz) / m.rows / m.cols;

    int *rp = upload(m.rowPtr), *ci = upload(m.col);
    float *vv = upload(m.val);
    auto row = [&] {
      rowKernel<<<(m.rows + 7) / 8, 256>>>(m.rows, rp, ci, vv,
                                           (const float4 *)dB, (float4 *)dC);
      CHECK(cudaGetLastError());
    };
    CHECK(cudaMemset(dC, 0xff, size_t(m.rows) * K * 4));
    row();
    CHECK(cudaDeviceSynchronize());
    check("row");
    float rowMs = medianMs(20, /*queued=*/true, row);
    std::printf("%s rows=%d cols=%d nnz=%lld density=%.3f variant=row ms=%.4f\n",
                name, m.rows, m.cols, nnz, density, rowMs);

    float best = 1e30f, bestWin = 1e30f;
    std::string bestName, bestWinName;
    // Poisons C, runs `launch` once and checks it, times it; `kernel`
    // (any of the templates' instances) first gets `smem` bytes of dynamic
    // shared memory when that exceeds the default 48 KiB.
    auto measure = [&](const std::string &what, const std::string &extra,
                       const void *kernel, size_t smem, auto launch) {
      if (smem > 48 * 1024)
        CHECK(cudaFuncSetAttribute(kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(smem)));
      CHECK(cudaMemset(dC, 0xff, size_t(m.rows) * K * 4));
      launch();
      CHECK(cudaDeviceSynchronize());
      check(what.c_str());
      float ms = medianMs(20, /*queued=*/true, launch);
      std::printf("%s variant=%s%s ms=%.4f vs_row=%.2f\n", name, what.c_str(),
                  extra.c_str(), ms, rowMs / ms);
      if (ms < best) {
        best = ms;
        bestName = what;
      }
      if (what.rfind("window", 0) == 0 && ms < bestWin) {
        bestWin = ms;
        bestWinName = what;
      }
    };
    const float4 *B4 = reinterpret_cast<const float4 *>(dB);
    float4 *C4 = reinterpret_cast<float4 *>(dC);
    bool panels = std::getenv("PANELS") != nullptr;
    for (int R : {16, 32, 64, 128, 256})
      for (int CP : {64, 128, 256, 512}) {
        if (!panels && !(R == 16 && CP == 128))
          continue;
        if (R > m.rows * 2)
          continue;
        Tasks t = makeTasks(m, R, CP);
        int *tr = upload(t.row), *tc = upload(t.col), *tp = upload(t.ptr),
            *tl = upload(t.lcol);
        float *tv = upload(t.val);
        for (int KC : {32, 64, 128})
          for (int stage = 0; stage < 2; ++stage) {
            size_t smem = stage ? size_t(CP) * KC * 4 : 0;
            if (smem > 200 * 1024)
              continue;
            auto *kernel =
                KC == 32 ? (stage ? panelKernel<32, true> : panelKernel<32, false>)
                : KC == 64
                    ? (stage ? panelKernel<64, true> : panelKernel<64, false>)
                    : (stage ? panelKernel<128, true> : panelKernel<128, false>);
            // Rows past the end have no entries, so no task writes them.
            measure(
                (stage ? "panel R=" : "panel-l1 R=") + std::to_string(R) +
                    " CP=" + std::to_string(CP) + " KC=" + std::to_string(KC),
                " tasks=" + std::to_string(t.count),
                reinterpret_cast<const void *>(kernel), smem, [&] {
                  CHECK(cudaMemsetAsync(dC, 0, size_t(m.rows) * K * 4));
                  kernel<<<dim3(t.count, K / KC), 256, smem>>>(
                      R, CP, m.cols, tr, tc, tp, tl, tv, B4, C4);
                  CHECK(cudaGetLastError());
                });
          }
        CHECK(cudaFree(tr));
        CHECK(cudaFree(tc));
        CHECK(cudaFree(tp));
        CHECK(cudaFree(tl));
        CHECK(cudaFree(tv));
      }

    for (int R : {2, 4, 8}) {
      Windows win = makeWindows(m, R);
      int *wp = upload(win.ptr), *wc = upload(win.col);
      float *wv = upload(win.val);
      int windows = int(win.ptr.size()) - 1;
      auto *warpKernel = R == 2   ? windowKernel<2>
                         : R == 4 ? windowKernel<4>
                                  : windowKernel<8>;
      for (int P : {2, 4, 8, 16}) {
        size_t smem = size_t(P) * R * 32 * 16;
        measure("window R=" + std::to_string(R) + " P=" + std::to_string(P),
                " union=" + std::to_string(win.col.size()),
                reinterpret_cast<const void *>(warpKernel), smem, [&] {
                  warpKernel<<<windows, P * 32, smem>>>(m.rows, wp, wc, wv, B4,
                                                        C4);
                  CHECK(cudaGetLastError());
                });
      }
      constexpr int G = 8;
      auto *groupKernel = R == 2   ? windowKernel2<2, G>
                          : R == 4 ? windowKernel2<4, G>
                                   : windowKernel2<8, G>;
      for (int threads : {128, 256, 512}) {
        size_t smem = size_t(threads / G) * R * G * 16;
        measure("window8 R=" + std::to_string(R) +
                    " threads=" + std::to_string(threads),
                "", reinterpret_cast<const void *>(groupKernel), smem, [&] {
                  groupKernel<<<dim3(windows, K / (4 * G)), threads, smem>>>(
                      m.rows, wp, wc, wv, B4, C4);
                  CHECK(cudaGetLastError());
                });
      }
      CHECK(cudaFree(wp));
      CHECK(cudaFree(wc));
      CHECK(cudaFree(wv));
    }
    std::printf("WIN %s density=%.3f best_window_ms=%.4f %s\n", name, density,
                bestWin, bestWinName.c_str());
    std::printf("BEST %s rows=%d cols=%d nnz=%lld density=%.3f row_ms=%.4f "
                "best_ms=%.4f gain=%.2f %s\n",
                name, m.rows, m.cols, nnz, density, rowMs, best, rowMs / best,
                bestName.c_str());
    CHECK(cudaFree(rp));
    CHECK(cudaFree(ci));
    CHECK(cudaFree(vv));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
  }
  return 0;
}
