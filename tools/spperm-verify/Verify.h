//===- Verify.h - spperm-verify's checks, shared by its files ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to spperm-verify: the float64 reference, the comparison of C
// with it, and the concurrency check (Concurrency.cpp). What the checks
// need of a package's manifest comes from readPackageManifest (Package.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_SPPERM_VERIFY_VERIFY_H
#define SPPERM_TOOLS_SPPERM_VERIFY_VERIFY_H

#include "spperm/Runtime/SpPermRuntime.h"
#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Package.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace spperm::verify {

/// A dense random B, values in [-1, 1), deterministic in (rows, k).
std::vector<float> makeB(int64_t rows, int64_t k);

/// R = A * B in float64, rows split over the host's threads.
std::vector<double> reference(const CsrMatrix &a, const std::vector<float> &b,
                              int64_t k);

/// The directory part of `path` ("." when it has none).
std::string parentOf(const std::string &path);

/// A layer as the runtime presents it (an index below sprt_layer_count):
/// a whole layer, or the shards of a sharded layer together.
struct CheckedLayer {
  /// Its first manifest entry (a sharded layer's shard 0).
  const PackageLayer *layer = nullptr;
  /// The runtime's index of the layer.
  int64_t index = 0;
  /// Its manifest entries: [first, first + count).
  size_t first = 0, count = 1;
  /// Its shape (a sharded layer's: the whole layer's).
  int64_t rows = 0, cols = 0;

  bool sharded() const { return count > 1; }
};

/// The layers of `pkg` as the runtime presents them, in its order.
std::vector<CheckedLayer> checkedLayers(const Package &pkg);

/// Sets `a` to the reference matrix of `layer` of the package at `path`:
/// its source file when it can be found and is of the layer's shape
/// ("source"; the layer's rows of it, values rounded to the layer's 16-bit
/// values type when it has one), else the package's own arrays ("package",
/// a sharded layer's shards stacked); `from` says which. False (with
/// `error`) when neither can be had.
bool referenceMatrix(const std::string &path, const CheckedLayer &layer,
                     CsrMatrix &a, std::string &from, std::string &error);

/// How C compares with the float64 reference R.
struct Comparison {
  /// ||C - R||_F / ||R||_F (||C - R||_F when R is 0) over the written
  /// elements.
  double error = 0.0;
  /// Elements left NaN where R is finite.
  int64_t unwritten = 0;
  /// 16-bit C (compareRounded): the largest normwise error allowed (the
  /// type's unit roundoff), and the elements outside their bound; a
  /// negative limit means --tolerance.
  double errorLimit = -1.0;
  int64_t outOfBound = 0;

  bool passes(double tolerance) const {
    return unwritten == 0 && outOfBound == 0 && std::isfinite(error) &&
           error <= (errorLimit >= 0 ? errorLimit : tolerance);
  }
};

/// Compares C (rows x K, row-major) with the float64 reference R. Each
/// element's difference counts only beyond its row's `slack` (none when
/// `slack` is empty): the absolute error that fp32's range forces on a sum
/// whose products fall below it (underflowSlack).
Comparison compare(const std::vector<float> &c, const std::vector<double> &r,
                   const std::vector<double> &slack = {});

/// The absolute error an fp32 sum of each row of `a` times B may carry where
/// its products and partial sums fall into fp32's subnormal range
/// (spperm::underflowSlack of the row's entries, Accuracy.h).
std::vector<double> underflowSlack(const CsrMatrix &a);

/// Compares C of the 16-bit type `type` (widened exactly) with R, the
/// float64 product of the rounded operands (docs/Testing.md, "16-bit
/// operands"): the normwise error is limited by the type's unit roundoff u
/// (2^-11 for f16, 2^-8 for bf16), and every element by the rounding of an
/// fp32 sum within `tolerance` of R: |C - R| <= u |R| + (1 + u) tolerance
/// |A||B| + half the type's smallest subnormal, with `rAbs` = |A| |B| in
/// float64. The normwise error counts each element's difference beyond
/// half the type's smallest subnormal and its row's `slack`, as compare
/// does: below the type's normal range its rounding is absolute.
Comparison compareRounded(const std::vector<float> &c,
                          const std::vector<double> &r,
                          const std::vector<double> &rAbs, ValueType type,
                          double tolerance,
                          const std::vector<double> &slack = {});

/// B of layer type `type` for the checks: `b` rounded to the type (kept in
/// `b`, so that the reference multiplies the rounded inputs) and its bit
/// patterns in `bits`; nothing for f32.
void roundOperand(std::vector<float> &b, ValueType type,
                  std::vector<uint16_t> &bits);

/// The runtime's name for `type`.
inline sprt_dtype toDtype(ValueType type) {
  return type == ValueType::F16    ? SPRT_DTYPE_F16
         : type == ValueType::BF16 ? SPRT_DTYPE_BF16
                                   : SPRT_DTYPE_F32;
}

/// The C poison of `type`: a quiet NaN pattern.
uint16_t nanBits(ValueType type);

/// The K values of --k: given on the command line, or the default list.
struct KList {
  std::vector<int64_t> ks;
  bool given = false;

  /// The K values a layer compiled for `layerK` (0: any K) is checked at:
  /// every K of the list; a layer of one K at that K, unless a --k given
  /// does not list it (then none: the caller reports the layer skipped).
  std::vector<int64_t> forLayer(int64_t layerK) const {
    if (layerK == 0)
      return ks;
    if (!given || std::find(ks.begin(), ks.end(), layerK) != ks.end())
      return {layerK};
    return {};
  }
};

/// The counts over every check of a run, and the summary's lines.
struct Totals {
  std::mutex mutex;
  int64_t checks = 0, failures = 0;
  /// Layers of one K that a --k given does not list.
  int64_t skippedLayers = 0;
  /// The calls of the concurrency checks (--threads), and how many of them
  /// gave a wrong C.
  int64_t concurrentCalls = 0, concurrentWrong = 0;
  double maxError = 0.0;
  /// Checks whose error is not a number (NaN or infinite results).
  int64_t nonFinite = 0;
  std::map<std::string, int64_t> perVariant;
};

/// What the concurrency check runs: threads, calls per thread, and how
/// many calls a thread enqueues on its stream before it waits for them.
struct ConcurrencyOptions {
  int64_t threads = 0, calls = 60;
  static constexpr int64_t kDepth = 4;
};

/// Calls every layer of the package at `path` from opt.threads threads at
/// once, each with its own stream (GPU) and C buffers, opt.calls calls per
/// thread with (layer, K) cycling through the layers and `ks` (starting at a
/// different place in each thread), kDepth calls enqueued before each wait;
/// C is poisoned before every call and every result checked against the
/// float64 reference. On the GPU, when every call was right, the same calls
/// are then timed without checks (each thread enqueues all of its calls,
/// then waits; the wall time from their common start to the last one's end
/// over all calls) with one thread and with opt.threads. Prints one line for
/// the package (and one per wrong call, up to 10); returns whether every
/// call was right.
bool checkConcurrency(const std::string &path, sprt_device device,
                      const KList &ks, double tolerance,
                      const ConcurrencyOptions &opt, Totals &totals);

} // namespace spperm::verify

#endif // SPPERM_TOOLS_SPPERM_VERIFY_VERIFY_H
