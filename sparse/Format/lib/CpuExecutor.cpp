//===- CpuExecutor.cpp - The CPU executor of the formats --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// spmmCpu: C = A * B on the host for any format, walking its segments
// (FormatTraversal.h) and adding each segment's sum to C's row of the
// segment's original position. The reference the GPU kernels are checked
// against; with 16-bit B and C, it widens B, accumulates in fp32 and rounds
// each element of C once. As the tile kernels do, a bell tile's zeros
// multiply B too, which only a NaN or infinity in B's row can tell
// (docs/Formats.md, "Non-finite B").
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatTraversal.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

using namespace spperm;

namespace {

/// out[0..k) += v * in[0..k).
inline void axpy(float *out, const float *in, float v, int64_t k) {
  for (int64_t j = 0; j < k; ++j)
    out[j] += v * in[j];
}

/// Accumulates products into one row of C (k floats), in the order given;
/// for K = 1 (kOne) in a register, which adds in the same order, so the
/// result has the same bits.
template <bool kOne>
class RowSum {
public:
  RowSum(const float *b, int64_t k) : b(b), k(k) {}

  /// Starts a row written to `row` (zeroed now, or at finish for K = 1).
  void begin(float *row) {
    out = row;
    if (kOne)
      scalar = 0.0f;
    else
      std::fill(out, out + k, 0.0f);
  }
  /// Adds v * B[col].
  void add(int64_t col, float v) {
    if (kOne)
      scalar += v * b[col];
    else
      axpy(out, b + col * k, v, k);
  }
  /// Stores the row (K = 1).
  void finish() {
    if (kOne)
      *out = scalar;
  }

private:
  const float *b;
  int64_t k;
  float *out = nullptr;
  float scalar = 0.0f;
};

/// Sums each segment (FormatTraversal.h) into a partial row and adds it to
/// C's row of the segment's ORIGINAL position; C starts zeroed, so a
/// position with one segment (csr, bell) gets exactly its sum.
template <bool kOne>
class SpmmVisitor {
public:
  SpmmVisitor(const FormattedMatrix &a, const float *b, int64_t k, float *c)
      : order(a.order), k(k), c(c), sum(b, k), partial(static_cast<size_t>(k)) {
    if (a.kind != FormatKind::Bell)
      return;
    nonFinite.assign(static_cast<size_t>(a.cols), 0);
    for (int64_t col = 0; col < a.cols; ++col)
      for (int64_t x = 0; x < k; ++x)
        if (!std::isfinite(b[col * k + x])) {
          nonFinite[col] = 1;
          break;
        }
  }

  void begin(int32_t position) {
    row = c + static_cast<int64_t>(order[position]) * k;
    sum.begin(partial.data());
  }
  void add(int32_t col, float v) { sum.add(col, v); }
  /// 0 * B[col]: NaN where B's row holds a NaN or infinity, else nothing.
  void addZero(int32_t col) {
    if (nonFinite[col])
      sum.add(col, 0.0f);
  }
  void end() {
    sum.finish();
    for (int64_t x = 0; x < k; ++x)
      row[x] += partial[x];
  }

private:
  const std::vector<int32_t> &order;
  int64_t k;
  float *c;
  RowSum<kOne> sum;
  std::vector<float> partial;
  /// Per column of A (bell): whether B's row holds a NaN or infinity.
  std::vector<char> nonFinite;
  float *row = nullptr;
};

template <bool kOne>
void runSpmm(const FormattedMatrix &a, const float *b, int64_t k, float *c) {
  std::fill(c, c + static_cast<int64_t>(a.rows) * k, 0.0f);
  SpmmVisitor<kOne> visitor(a, b, k, c);
  detail::forEachSegment(a, visitor);
}

} // namespace

void spperm::spmmCpu(const FormattedMatrix &a, const float *b, int64_t k,
                     float *c) {
  if (k == 1) {
    runSpmm<true>(a, b, k, c);
    return;
  }
  if (k > 1)
    runSpmm<false>(a, b, k, c);
}

void spperm::spmmCpu(const FormattedMatrix &a, const uint16_t *b,
                     ValueType type, int64_t k, uint16_t *c) {
  assert(type != ValueType::F32 && "16-bit B and C");
  if (k <= 0)
    return;
  std::vector<float> bWide(static_cast<size_t>(a.cols) * k);
  widenArray(b, bWide.size(), type, bWide.data());
  std::vector<float> cWide(static_cast<size_t>(a.rows) * k);
  spmmCpu(a, bWide.data(), k, cWide.data());
  narrowArray(cWide.data(), cWide.size(), type, c);
}
