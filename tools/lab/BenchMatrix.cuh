//===- BenchMatrix.cuh - Matrices and references for the prototypes -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the standalone CUDA prototypes (panel_proto.cu, tile_proto.cu,
// xt_proto.cu, xtile_proto.cu, mma_rows_proto.cu, chain.cu) share besides
// timing (BenchTiming.cuh): a CSR read from a `.smtx` or Matrix Market
// file (plain or gzip'd) with random values, device uploads, and the
// float64 reference every variant is checked against.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_BENCH_BENCHMATRIX_CUH
#define SPPERM_TOOLS_BENCH_BENCHMATRIX_CUH

#include "BenchTiming.cuh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unistd.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

struct Csr {
  int rows = 0, cols = 0;
  std::vector<int> rowPtr, col;
  std::vector<float> val;
};

/// Values uniform in [-1, 1), seeded: the same matrix gets the same values.
static void randomValues(Csr &m) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  m.val.resize(m.col.size());
  for (float &x : m.val)
    x = d(rng);
}

/// A DLMC `.smtx` file (plain, not gzip'd): "rows, cols, nnz", the row
/// pointers, the column indices; values from randomValues.
static bool readSmtx(const char *path, Csr &m) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line))
    return false;
  for (char &ch : line)
    if (ch == ',')
      ch = ' ';
  long long nnz = 0;
  std::istringstream(line) >> m.rows >> m.cols >> nnz;
  m.rowPtr.resize(m.rows + 1);
  m.col.resize(nnz);
  for (int &x : m.rowPtr)
    in >> x;
  for (int &x : m.col)
    in >> x;
  if (!in || m.rowPtr.back() != nnz)
    return false;
  randomValues(m);
  return true;
}

/// A Matrix Market coordinate file (pattern or real, general or
/// symmetric; plain, not gzip'd), values from randomValues; duplicate
/// entries kept once.
static bool readMtx(const char *path, Csr &m) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const bool symmetric = line.find("symmetric") != std::string::npos;
  while (std::getline(in, line) && line[0] == '%') {
  }
  long long nnz = 0;
  std::istringstream(line) >> m.rows >> m.cols >> nnz;
  std::vector<std::pair<int, int>> e;
  for (long long i = 0; i < nnz && std::getline(in, line); ++i) {
    int r, c;
    std::istringstream(line) >> r >> c;
    e.push_back({r - 1, c - 1});
    if (symmetric && r != c)
      e.push_back({c - 1, r - 1});
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  m.rowPtr.assign(m.rows + 1, 0);
  for (auto [r, c] : e) {
    ++m.rowPtr[r + 1];
    m.col.push_back(c);
  }
  for (int r = 0; r < m.rows; ++r)
    m.rowPtr[r + 1] += m.rowPtr[r];
  randomValues(m);
  return true;
}

/// Reads `path` — a DLMC `.smtx` or a Matrix Market `.mtx`, plain or
/// gzip'd (".gz", unpacked with gzip into a file of this process in /tmp)
/// — into `m`.
inline bool readLayer(const std::string &path, Csr &m) {
  std::string plain = path;
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    plain = "/tmp/bench_layer." + std::to_string(getpid());
    std::string cmd = "gzip -dc '" + path + "' > " + plain;
    if (std::system(cmd.c_str()) != 0)
      return false;
  }
  if (path.find(".mtx") != std::string::npos)
    return readMtx(plain.c_str(), m);
  return readSmtx(plain.c_str(), m);
}

/// The rows by length, longest first (a load-balancing order): the
/// permuted CSR and order[i] = the original row of permuted row i.
inline Csr permuted(const Csr &m, std::vector<int> &order) {
  order.resize(m.rows);
  for (int r = 0; r < m.rows; ++r)
    order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return m.rowPtr[a + 1] - m.rowPtr[a] > m.rowPtr[b + 1] - m.rowPtr[b];
  });
  Csr p;
  p.rows = m.rows;
  p.cols = m.cols;
  p.rowPtr.push_back(0);
  for (int r : order) {
    for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e) {
      p.col.push_back(m.col[e]);
      p.val.push_back(m.val[e]);
    }
    p.rowPtr.push_back(int(p.col.size()));
  }
  return p;
}

template <typename T> static T *upload(const std::vector<T> &v) {
  T *p = nullptr;
  CHECK(cudaMalloc(&p, std::max<size_t>(1, v.size()) * sizeof(T)));
  if (!v.empty())
    CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

/// B = Xᵀ: X is k x cols row-major, B cols x k row-major, tiled 32 x 32
/// through shared memory (launch: grid (cols / 32, k / 32) rounded up,
/// block (32, 8)). What a transposing copy costs at best.
__global__ void transpose(const float *__restrict__ x, float *__restrict__ b,
                          int k, int cols) {
  __shared__ float tile[32][33];
  const int c0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
  for (int i = threadIdx.y; i < 32; i += 8)
    if (k0 + i < k && c0 + threadIdx.x < cols)
      tile[i][threadIdx.x] = x[size_t(k0 + i) * cols + c0 + threadIdx.x];
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += 8)
    if (c0 + i < cols && k0 + threadIdx.x < k)
      b[size_t(c0 + i) * k + k0 + threadIdx.x] = tile[threadIdx.x][i];
}

/// The comma-separated integers of environment variable `name`, or
/// `fallback` when it is unset (the K lists of the prototypes).
inline std::vector<int> envInts(const char *name, std::vector<int> fallback) {
  const char *env = std::getenv(name);
  if (!env)
    return fallback;
  std::vector<int> out;
  std::stringstream in(env);
  for (std::string tok; std::getline(in, tok, ',');)
    out.push_back(std::stoi(tok));
  return out;
}

/// A random cols x K B (seeded) and C = A * B in float64.
struct Reference {
  int rows = 0, k = 0;
  std::vector<float> B;
  std::vector<double> C;
  double norm = 0;

  Reference(const Csr &m, int k) : rows(m.rows), k(k) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> d(-1, 1);
    B.resize(size_t(m.cols) * k);
    for (float &x : B)
      x = d(rng);
    C.assign(size_t(m.rows) * k, 0.0);
    for (int r = 0; r < m.rows; ++r)
      for (int e = m.rowPtr[r]; e < m.rowPtr[r + 1]; ++e)
        for (int j = 0; j < k; ++j)
          C[size_t(r) * k + j] += double(m.val[e]) * B[size_t(m.col[e]) * k + j];
    for (double x : C)
      norm += x * x;
    norm = std::sqrt(norm);
  }

  /// X = Bᵀ (k x cols, row-major): torch.nn.Linear's input whose B this is.
  std::vector<float> x() const {
    const size_t cols = B.size() / k;
    std::vector<float> out(B.size());
    for (size_t i = 0; i < cols; ++i)
      for (int j = 0; j < k; ++j)
        out[size_t(j) * cols + i] = B[i * k + j];
    return out;
  }

  /// The normwise relative error of the device's C (rows x k floats).
  double error(const float *deviceC) const {
    std::vector<float> h(C.size());
    CHECK(cudaMemcpy(h.data(), deviceC, h.size() * sizeof(float),
                     cudaMemcpyDeviceToHost));
    double err = 0;
    for (size_t i = 0; i < h.size(); ++i)
      err += (h[i] - C[i]) * (h[i] - C[i]);
    return std::sqrt(err) / norm;
  }
};

#endif // SPPERM_TOOLS_BENCH_BENCHMATRIX_CUH
