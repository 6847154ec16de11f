//===- cublas_workspace.cu - cublasSgemm and its workspace ---*- CUDA -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The dense fp32 candidate of the library check (docs/RuntimeABI.md, "The
// library check") runs cublasSgemm on one process-wide handle, its stream
// set before each call. This program asks, on the shapes the candidate
// meets (rows x cols densified, K columns of B):
//
//   time   whether cublasSgemm uses a workspace there: its median time with
//          cuBLAS's default workspace pool, with none (cublasSetWorkspace
//          with no buffer: the algorithms without one), and with a buffer
//          of the caller's of 4 and 32 MiB;
//   race   whether two streams of one handle may share a workspace: 32
//          calls on each of two non-blocking streams, back to back with the
//          stream set before each (as the runtime does), every call writing
//          its own C, each C checked against a call made alone; with the
//          default pool, with one 32 MiB buffer of the caller's bound for
//          both streams (the control: a shared buffer races where split-K
//          uses it), and with a buffer per stream;
//   graph  what a captured call adds to the graph: the node types of one
//          call captured in the global mode, with the default pool and with
//          a buffer of the caller's.
//
// Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o /tmp/cublas_workspace \
//        tools/lab/cublas_workspace.cu -lcublas && /tmp/cublas_workspace
//
//===----------------------------------------------------------------------===//

#include "BenchTiming.cuh"

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#define CHECK_BLAS(call)                                                       \
  do {                                                                         \
    cublasStatus_t st = (call);                                                \
    if (st != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call,      \
                   static_cast<int>(st));                                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

struct Shape {
  int rows, cols, k;
};

/// Where a call's workspace comes from.
enum class Workspace { Default, None, Small, Large };

const char *nameOf(Workspace w) {
  switch (w) {
  case Workspace::Default:
    return "default";
  case Workspace::None:
    return "none";
  case Workspace::Small:
    return "4MiB";
  case Workspace::Large:
    return "32MiB";
  }
  return "?";
}

constexpr size_t kSmall = 4u << 20, kLarge = 32u << 20;

/// Row-major C (rows x k) = A (rows x cols) * B (cols x k) on the handle's
/// stream: column-major C^T = B^T * A^T.
void sgemm(cublasHandle_t h, const Shape &s, const float *a, const float *b,
           float *c) {
  const float one = 1.0f, zero = 0.0f;
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.k, s.rows, s.cols,
                         &one, b, s.k, a, s.cols, &zero, c, s.k));
}

/// Sets the handle's stream, then its workspace as `w` says (`buffer` is
/// the caller's, at least kLarge bytes).
void bind(cublasHandle_t h, cudaStream_t stream, Workspace w, void *buffer) {
  CHECK_BLAS(cublasSetStream(h, stream));
  switch (w) {
  case Workspace::Default:
    return;
  case Workspace::None:
    CHECK_BLAS(cublasSetWorkspace(h, nullptr, 0));
    return;
  case Workspace::Small:
    CHECK_BLAS(cublasSetWorkspace(h, buffer, kSmall));
    return;
  case Workspace::Large:
    CHECK_BLAS(cublasSetWorkspace(h, buffer, kLarge));
    return;
  }
}

std::vector<float> randomFloats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = uni(rng);
  return v;
}

float *upload(const std::vector<float> &host) {
  float *d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float),
                   cudaMemcpyDefault));
  return d;
}

std::vector<float> download(const float *d, size_t n) {
  std::vector<float> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDefault));
  return h;
}

double normwise(const std::vector<float> &got, const std::vector<float> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    num += d * d;
    den += static_cast<double>(want[i]) * want[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

void timeShape(cublasHandle_t h, const Shape &s, const float *a,
               const float *b, float *c, void *buffer) {
  std::printf("time %dx%d k=%d", s.rows, s.cols, s.k);
  for (Workspace w : {Workspace::Default, Workspace::None, Workspace::Small,
                      Workspace::Large}) {
    bind(h, nullptr, w, buffer);
    const float ms = medianMs(30, true, [&] { sgemm(h, s, a, b, c); });
    std::printf("  %s %.2f us", nameOf(w), 1000.0f * ms);
  }
  std::printf("\n");
}

/// 32 calls on each of two streams, back to back; returns how many of the
/// 64 Cs are further than 1e-5 normwise from the calls made alone.
int race(cublasHandle_t h, const Shape &s, const float *a,
         const std::vector<float *> &bs, const std::vector<float> *want,
         Workspace w, bool bufferPerStream, void *buffers[2]) {
  constexpr int kCalls = 32;
  cudaStream_t streams[2];
  for (cudaStream_t &st : streams)
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::vector<float *> cs(2 * kCalls);
  const size_t cSize = size_t(s.rows) * s.k;
  for (float *&c : cs)
    CHECK(cudaMalloc(&c, cSize * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < kCalls; ++i)
    for (int j = 0; j < 2; ++j) {
      bind(h, streams[j], w, buffers[bufferPerStream ? j : 0]);
      sgemm(h, s, a, bs[j], cs[2 * i + j]);
    }
  CHECK(cudaDeviceSynchronize());
  int wrong = 0;
  double worst = 0;
  for (int i = 0; i < 2 * kCalls; ++i) {
    const double e = normwise(download(cs[i], cSize), want[i % 2]);
    worst = std::max(worst, e);
    wrong += e > 1e-5;
  }
  for (float *c : cs)
    CHECK(cudaFree(c));
  for (cudaStream_t st : streams)
    CHECK(cudaStreamDestroy(st));
  std::printf("race %dx%d k=%d %-7s %-10s wrong %d of %d (worst %.2g)\n",
              s.rows, s.cols, s.k, nameOf(w),
              w == Workspace::Default ? "-"
              : bufferPerStream      ? "per-stream"
                                     : "shared",
              wrong, 2 * kCalls, worst);
  return wrong;
}

void raceShape(cublasHandle_t h, const Shape &s, const float *a,
               void *buffers[2]) {
  std::vector<float *> bs;
  std::vector<float> want[2];
  const size_t cSize = size_t(s.rows) * s.k;
  float *c = nullptr;
  CHECK(cudaMalloc(&c, cSize * sizeof(float)));
  for (int j = 0; j < 2; ++j) {
    bs.push_back(upload(randomFloats(size_t(s.cols) * s.k, 100 + j)));
    bind(h, nullptr, Workspace::Large, buffers[0]);
    sgemm(h, s, a, bs[j], c);
    CHECK(cudaDeviceSynchronize());
    want[j] = download(c, cSize);
  }
  race(h, s, a, bs, want, Workspace::Default, false, buffers);
  race(h, s, a, bs, want, Workspace::Large, false, buffers);
  race(h, s, a, bs, want, Workspace::Large, true, buffers);
  for (float *b : bs)
    CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

void graphShape(cublasHandle_t h, const Shape &s, const float *a,
                const float *b, float *c, void *buffer) {
  for (Workspace w : {Workspace::Default, Workspace::Large}) {
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    bind(h, st, w, buffer);
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    sgemm(h, s, a, b, c);
    CHECK(cudaStreamEndCapture(st, &graph));
    size_t n = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
    std::map<int, int> types;
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType t;
      CHECK(cudaGraphNodeGetType(node, &t));
      ++types[static_cast<int>(t)];
    }
    std::printf("graph %dx%d k=%d %-7s nodes %zu:", s.rows, s.cols, s.k,
                nameOf(w), n);
    for (auto [t, count] : types)
      std::printf(" %s=%d",
                  t == cudaGraphNodeTypeKernel    ? "kernel"
                  : t == cudaGraphNodeTypeMemAlloc ? "mem-alloc"
                  : t == cudaGraphNodeTypeMemFree  ? "mem-free"
                  : t == cudaGraphNodeTypeMemset   ? "memset"
                                                   : "other",
                  count);
    std::printf("\n");
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(st));
  }
}

} // namespace

int main() {
  // DLMC-like layers (transformer and ResNet-50 shapes), graphs' small
  // adjacency blocks, and long reductions (few rows, many columns) where
  // split-K is likeliest.
  const std::vector<Shape> base = {{512, 512, 0},   {2048, 512, 0},
                                   {512, 2048, 0},  {64, 576, 0},
                                   {256, 2304, 0},  {1024, 4096, 0},
                                   {64, 8192, 0},   {128, 16384, 0},
                                   {2708, 2708, 0}, {32, 32768, 0}};
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  void *buffers[2];
  for (void *&p : buffers)
    CHECK(cudaMalloc(&p, kLarge));
  for (int k : {1, 32, 128, 512})
    for (Shape s : base) {
      s.k = k;
      float *a = upload(randomFloats(size_t(s.rows) * s.cols, 1));
      float *b = upload(randomFloats(size_t(s.cols) * s.k, 2));
      float *c = nullptr;
      CHECK(cudaMalloc(&c, size_t(s.rows) * s.k * sizeof(float)));
      timeShape(h, s, a, b, c, buffers[0]);
      raceShape(h, s, a, buffers);
      if (k == 32 || k == 512)
        graphShape(h, s, a, b, c, buffers[0]);
      CHECK(cudaFree(a));
      CHECK(cudaFree(b));
      CHECK(cudaFree(c));
    }
  CHECK_BLAS(cublasDestroy(h));
  for (void *p : buffers)
    CHECK(cudaFree(p));
  return 0;
}
