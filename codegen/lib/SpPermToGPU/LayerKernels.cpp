//===- LayerKernels.cpp - Which kernels a layer gets ----------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The plan of a layer's kernels (docs/Kernels.md):
//  * variants by K: K = 1 (SpMV), multiples of 4 by size class (a group of
//    2, 8, 16 or 32 lanes per row, 4 columns per lane, so that one group
//    covers K), and a scalar fallback; a package compiled for one K gets
//    exactly that K's kernels with K baked in;
//  * SpMV: contiguous row ranges of similar row length (as a load-sorting
//    permutation produces) get their own group size;
//  * SpMM rows shared by several groups of a CTA (parts) when the rows are
//    too few to fill the GPU; broadcast batches straight-line (few rows) or
//    in a loop (many rows, fewer registers);
//  * long rows (planLongRows: against the mean, and for SpMM layers that
//    do not fill the GPU against 4 batches of loads) get a CTA each in the
//    row kernel's own launch (SpMM, when one CTA walks them quickly), or
//    are cut into chunks that a split kernel's groups add into C
//    atomically, so a power-law row does not serialize on one warp.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/SpPermToGPU.h"

#include "KernelBuilder.h"
#include "Kernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::spperm;
using namespace mlir::spperm::codegen;
using ::spperm::FormatKind;
using ::spperm::FormattedMatrix;
using ::spperm::KernelInfo;

std::optional<Precision> mlir::spperm::parsePrecision(StringRef name) {
  if (name == "fp32")
    return Precision::F32;
  if (name == "tf32")
    return Precision::TF32;
  if (name == "f16")
    return Precision::F16;
  return std::nullopt;
}

StringRef mlir::spperm::getPrecisionName(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "fp32";
  case Precision::TF32:
    return "tf32";
  case Precision::F16:
    return "f16";
  }
  llvm_unreachable("unknown precision");
}

StringRef mlir::spperm::getLongRowModeName(LongRowMode mode) {
  switch (mode) {
  case LongRowMode::Auto:
    return "auto";
  case LongRowMode::Cta:
    return "cta";
  case LongRowMode::Split:
    return "split";
  }
  llvm_unreachable("unknown long-row mode");
}

std::optional<LongRowMode> mlir::spperm::parseLongRowMode(StringRef name) {
  if (name == "auto")
    return LongRowMode::Auto;
  if (name == "cta")
    return LongRowMode::Cta;
  if (name == "split")
    return LongRowMode::Split;
  return std::nullopt;
}

gpu::GPUModuleOp mlir::spperm::getOrCreateKernelModule(ModuleOp module) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    if (m.getName() == kKernelModuleName)
      return m;
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

namespace {

/// A range of K the layer gets one variant for.
struct KClass {
  std::string variant;
  int64_t kMin, kMax, kAlign;
  /// Lanes per row (0 for SpMV: chosen per row range) and columns per lane.
  int64_t lanes, vec;
  bool spmv;
  /// K baked in (0: read at run time).
  int64_t k;
};

int64_t pow2Ceil(int64_t v) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(v, 1)));
}

std::vector<KClass> kClasses(int64_t k) {
  if (k == 1)
    return {{"k1", 1, 1, 1, 0, 1, true, 1}};
  if (k > 0) {
    int64_t vec = k % 4 == 0 ? 4 : 1;
    int64_t lanes = std::min<int64_t>(32, pow2Ceil((k + vec - 1) / vec));
    return {{"k" + std::to_string(k), k, k, 1, lanes, vec, false, k}};
  }
  return {{"spmv", 1, 1, 1, 0, 1, true, 1},
          {"vec4.g2", 4, 8, 4, 2, 4, false, 0},
          {"vec4.g8", 12, 32, 4, 8, 4, false, 0},
          {"vec4.g16", 36, 64, 4, 16, 4, false, 0},
          {"vec4.g32", 68, 0, 4, 32, 4, false, 0},
          {"scalar.g32", 2, 0, 1, 32, 1, false, 0}};
}

/// The CSR arrays a row kernel walks (the matrix's, or bell's residual).
struct RowMatrix {
  const std::vector<int32_t> *rowPtr = nullptr;
  std::string_view rowPtrName, colIdxName, valuesName;
  DenseBlocks dense;
  std::string_view family;
};

/// A contiguous range of rows and the group size for it, with the entries
/// and the longest row of the range (long rows, left to the split kernel,
/// count as empty).
struct RowRange {
  int64_t begin, end, lanes;
  int64_t nnz = 0, maxLength = 0;

  int64_t rows() const { return end - begin; }
  double meanLength() const {
    return rows() > 0 ? static_cast<double>(nnz) / static_cast<double>(rows())
                      : 0.0;
  }
};

/// The length of row `r`, 0 for rows longer than `longThreshold`.
int64_t shortLength(const std::vector<int32_t> &rowPtr, int64_t r,
                    int64_t longThreshold) {
  const int64_t n = rowPtr[r + 1] - rowPtr[r];
  return n > longThreshold ? 0 : n;
}

/// Fills `range`'s nnz and longest row.
void measure(RowRange &range, const std::vector<int32_t> &rowPtr,
             int64_t longThreshold) {
  range.nnz = range.maxLength = 0;
  for (int64_t r = range.begin; r < range.end; ++r) {
    const int64_t n = shortLength(rowPtr, r, longThreshold);
    range.nnz += n;
    range.maxLength = std::max(range.maxLength, n);
  }
}

/// a / b rounded up, for a >= 0 and b > 0.
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The largest power of 2 that divides threads / lanes: at most that many
/// groups share a row, so that a CTA holds whole rows.
int64_t maxParts(int64_t threads, int64_t lanes) {
  const int64_t groups = std::max<int64_t>(1, threads / lanes);
  return groups & -groups;
}

/// Groups per row for SpMM: enough that the rows fill the GPU (about 32
/// warps per multiprocessor) when there are few of them, no more than a
/// mean row has steps of `lanes` entries (rounded up to a power of 2), and
/// the row within one CTA.
int64_t partsFor(int64_t rows, double meanLength, int64_t lanes,
                 int64_t threads, int64_t multiprocessors) {
  if (rows <= 0)
    return 1;
  const int64_t targetGroups =
      multiprocessors * 32 * std::max<int64_t>(1, kWarpSize / lanes);
  const int64_t steps = pow2Ceil(static_cast<int64_t>(
      std::ceil(meanLength / static_cast<double>(lanes))));
  int64_t parts = std::min<int64_t>(
      {static_cast<int64_t>(
           llvm::bit_floor(static_cast<uint64_t>(targetGroups / rows))),
       steps, maxParts(threads, lanes)});
  return std::max<int64_t>(parts, 1);
}

/// Where a layer's long rows go.
struct LongRowPlan {
  /// Rows with more entries than this are long.
  int64_t threshold = 0;
  /// One CTA of the row kernel each (all its groups share the row) instead
  /// of chunks of threshold / 2 in a split kernel.
  bool inRowKernel = false;
};

/// The batches of 8 loads per group within which one CTA (of `threads`
/// threads, groups of `lanes`) walks a long row in the row kernel (mode
/// auto): about what the split kernel's launch costs (~3 µs, ~9 batches at
/// the H100's latency) plus its own walk.
constexpr int64_t kCtaBatches = 12;

/// The batches of 8 loads per group that the longest row of a layer whose
/// groups all run at once must take before its long rows get CTAs of their
/// own (mode auto): shorter walks gained nothing on the H100 and lost up to
/// 9 % (the CTAs' reduction through shared memory and their two barriers;
/// docs/Kernels.md, "Families", long rows).
constexpr int64_t kCtaMinBatches = 6;

/// Rows longer than the threshold are long (`longest`: the longest row of
/// `rowPtr`; SpMM groups of `lanes` lanes,
/// `parts` groups per row of the mean; `ranged`: the row ranges already
/// give rows of different lengths their own groups per row, as after a
/// length sort; `fixedThreshold` > 0 fixes the threshold):
///  * SpMV: max(1024, 8 x mean), in a split kernel;
///  * SpMM whose groups all run at once (at most 2,048 threads per
///    multiprocessor), when the rows are not ranged and those longer than
///    the threshold are outliers (at most 1 in 16): max(4 x mean, 4
///    batches of 8 per group). Such a layer takes as long as its longest
///    walk. In CTAs of the row kernel when one CTA walks the longest row
///    within kCtaBatches batches per group and its own group would take
///    kCtaMinBatches or more; in a split kernel only when the
///    longest row is 24 batches of 8 or more per group, since its launch
///    costs ~3 µs (docs/Kernels.md, "Families", long rows: a 2,048-row
///    pruned layer with 10 entries a row and one of 298 went from 17.5 to
///    10.7 µs at K = 128 split, and layers whose longest row was 33-104
///    entries went from ~6 to ~10 µs);
///  * otherwise: max(8 x mean, 16 steps of `lanes` entries per group), where
///    the other rows' groups hide a row that is long only against the mean;
///    in CTAs of the row kernel under the same bound.
LongRowPlan planLongRows(const std::vector<int32_t> &rowPtr, int64_t longest,
                         bool spmv, int64_t lanes, int64_t parts, bool ranged,
                         int64_t threads, int64_t multiprocessors,
                         int64_t fixedThreshold, LongRowMode mode) {
  const int64_t rows = rowPtr.empty() ? 0 : rowPtr.size() - 1;
  const int64_t nnz = rowPtr.empty() ? 0 : rowPtr.back();
  const double mean = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
  if (spmv)
    return {fixedThreshold > 0
                ? fixedThreshold
                : std::max<int64_t>(1024, static_cast<int64_t>(8 * mean)),
            false};
  constexpr int64_t kBatch = 8;
  // A CTA's groups take a step of groups x lanes entries together; each
  // group's step is ceil(lanes / 8) batches.
  const int64_t ctaEntries = maxParts(threads, lanes) * lanes;
  const int64_t ctaLimit =
      kCtaBatches * ctaEntries / ceilDiv(lanes, kBatch);
  const bool cta = !ranged && mode != LongRowMode::Split &&
                   (mode == LongRowMode::Cta || longest <= ctaLimit);
  if (fixedThreshold > 0)
    return {fixedThreshold, cta};
  constexpr int64_t kResidentThreads = 2048;
  if (!ranged && rows * parts * lanes <= multiprocessors * kResidentThreads) {
    const int64_t threshold = std::max<int64_t>(
        4 * kBatch * parts, static_cast<int64_t>(4 * mean));
    int64_t longRows = 0;
    for (int64_t r = 0; r < rows; ++r)
      longRows += rowPtr[r + 1] - rowPtr[r] > threshold;
    // The longest row's walk in its own group of the row kernel, in
    // batches of 8 loads per group.
    const int64_t walk =
        ceilDiv(longest, lanes * parts) * ceilDiv(lanes, kBatch);
    if (16 * longRows <= rows && longest > threshold) {
      if (cta && walk >= kCtaMinBatches)
        return {threshold, true};
      if (longest >= 24 * kBatch * parts)
        return {threshold, false};
    }
  }
  return {std::max<int64_t>(16 * lanes * parts,
                            static_cast<int64_t>(8 * mean)),
          cta};
}

/// The K slices of `lanes` x `vec` columns that cover `k` columns.
int64_t sliceCount(int64_t k, int64_t lanes, int64_t vec) {
  return ceilDiv(k, lanes * vec);
}

/// How a range of `rows` rows (of `meanLength` entries on average) of an
/// SpMM variant with K baked in covers K: lanes per group and K slices
/// ({kc.lanes, 1}: one group covers K, looping over its tiles).
/// `requested` slices become slices of a power-of-2 lanes times vec
/// columns. Chosen (`requested` 0), from the H100 measurements in
/// docs/results/perf-notes.md: slices of 32 columns (8 lanes of 4, a
/// 128-byte line of B per entry) for 64 <= K <= 128 when the range's warps
/// without slices (rows x groups per row) are at most 8 per multiprocessor
/// and slicing shortens each group's walk (more groups per row): a layer
/// that cannot fill the GPU then runs its rows' entries as more, shorter
/// chains of loads. Ranges with more warps lose more to re-reading A per
/// slice than they gain.
std::pair<int64_t, int64_t> kSlicing(const KClass &kc, int64_t rows,
                                     double meanLength, int64_t requested,
                                     int64_t threads,
                                     int64_t multiprocessors) {
  if (kc.spmv || kc.k <= 0 || requested == 1)
    return {kc.lanes, 1};
  int64_t lanes = kc.lanes;
  if (requested > 1) {
    const int64_t width = ceilDiv(kc.k, requested);
    lanes = std::min(kc.lanes, pow2Ceil(ceilDiv(width, kc.vec)));
  } else {
    constexpr int64_t kSliceLanes = 8;
    if (kc.vec != 4 || kc.k < 64 || kc.k > 128 || rows <= 0)
      return {kc.lanes, 1};
    const int64_t parts =
        partsFor(rows, meanLength, kc.lanes, threads, multiprocessors);
    const int64_t warps = rows * parts * kc.lanes / kWarpSize;
    const int64_t slicedParts =
        partsFor(rows * sliceCount(kc.k, kSliceLanes, kc.vec), meanLength,
                 kSliceLanes, threads, multiprocessors);
    // Entries a group walks: meanLength / parts without slices, and
    // meanLength / slicedParts with them.
    if (warps > 8 * multiprocessors || slicedParts <= parts)
      return {kc.lanes, 1};
    lanes = kSliceLanes;
  }
  const int64_t slices = sliceCount(kc.k, lanes, kc.vec);
  // The launch has at most rows x slices CTAs: keep it a valid grid.
  if (rows > std::numeric_limits<int32_t>::max() / slices)
    return {kc.lanes, 1};
  return {lanes, slices};
}

int64_t lanesForLength(double length) {
  return std::min<int64_t>(32, pow2Ceil(static_cast<int64_t>(length + 0.5)));
}

/// Runs of consecutive rows whose length falls in the same class (`classOf`
/// of the length; rows longer than `longThreshold`, left to the split
/// kernel, count as empty), runs shorter than `minRows` merged into their
/// neighbours; at most `maxRanges` ranges, else one. Each range is
/// measured; lanes is left 0.
std::vector<RowRange>
lengthRanges(const std::vector<int32_t> &rowPtr, int64_t longThreshold,
             llvm::function_ref<int64_t(int64_t)> classOf, int64_t minRows,
             size_t maxRanges) {
  const int64_t rows = static_cast<int64_t>(rowPtr.size()) - 1;
  auto length = [&](int64_t r) { return shortLength(rowPtr, r, longThreshold); };
  std::vector<RowRange> ranges;
  for (int64_t r = 0; r < rows;) {
    int64_t cls = classOf(length(r));
    int64_t e = r + 1;
    while (e < rows && classOf(length(e)) == cls)
      ++e;
    if (!ranges.empty() && (e - r < minRows ||
                            ranges.back().end - ranges.back().begin < minRows))
      ranges.back().end = e;
    else
      ranges.push_back({r, e, 0});
    r = e;
  }
  if (ranges.size() > maxRanges)
    ranges = {{0, rows, 0}};
  if (ranges.empty())
    ranges = {{0, 0, 0}};
  for (RowRange &range : ranges)
    measure(range, rowPtr, longThreshold);
  return ranges;
}

/// SpMV row ranges: runs of rows whose length asks for the same group size
/// (at least 2048 rows each, at most 8 ranges), each with the group size
/// of its mean row.
std::vector<RowRange> spmvRanges(const std::vector<int32_t> &rowPtr,
                                 int64_t longThreshold) {
  std::vector<RowRange> ranges = lengthRanges(
      rowPtr, longThreshold,
      [](int64_t n) { return lanesForLength(static_cast<double>(n)); }, 2048,
      8);
  for (RowRange &range : ranges)
    range.lanes = range.rows() > 0 ? lanesForLength(range.meanLength()) : 1;
  return ranges;
}

/// SpMM row ranges for a group of `lanes`: where rows sorted by length (as
/// the load-balancing permutations leave them) need very different numbers
/// of groups per row (parts 4x apart or more), up to 4 runs of at least 256
/// rows, each its own launch with its own parts; otherwise one range. Only
/// for layers of at least 100,000 entries (a launch costs ~1 us).
std::vector<RowRange> spmmRanges(const std::vector<int32_t> &rowPtr,
                                 int64_t longThreshold, int64_t lanes,
                                 int64_t threads) {
  const int64_t rows = static_cast<int64_t>(rowPtr.size()) - 1;
  std::vector<RowRange> single = {{0, std::max<int64_t>(rows, 0), lanes}};
  measure(single.front(), rowPtr, longThreshold);
  if (rows <= 0 || rowPtr.back() < 100000)
    return single;
  auto partsOf = [&](double length) {
    return std::min<int64_t>(
        maxParts(threads, lanes),
        pow2Ceil(static_cast<int64_t>(
            std::ceil(length / static_cast<double>(lanes)))));
  };
  std::vector<RowRange> ranges = lengthRanges(
      rowPtr, longThreshold,
      [&](int64_t n) { return partsOf(static_cast<double>(n)); }, 256, 4);
  int64_t lo = INT64_MAX, hi = 0;
  for (RowRange &range : ranges) {
    range.lanes = lanes;
    if (range.rows() == 0)
      continue;
    int64_t p = partsOf(range.meanLength());
    lo = std::min(lo, p);
    hi = std::max(hi, p);
  }
  return ranges.size() > 1 && hi >= 4 * lo ? ranges : single;
}

/// Where a bell layer's dense blocks are multiplied.
enum class DenseKernel {
  /// In the row kernel, row by row, before the residual (and for csr).
  InRowKernel,
  /// A tensor-core kernel after the row kernel (opt-in precisions).
  TensorCores,
  /// An fp32 register-tile kernel after the row kernel.
  Tiles,
};

class LayerPlanner {
public:
  LayerPlanner(gpu::GPUModuleOp module, const FormattedMatrix &m,
               const KernelGenOptions &options)
      : module(module), m(m), options(options) {}

  std::vector<KernelInfo> plan() {
    assert(options.batch >= 0 && options.batch <= 8 && "batch out of range");
    if (m.kind == FormatKind::Hbp)
      planHbp();
    else
      planRowFormats();
    // Every kernel after the first of its variant waits for the ones before
    // it (griddepcontrol.wait) before it touches C, so it may be launched
    // while they run.
    if (options.gridDependencies) {
      std::set<std::string> started;
      for (KernelInfo &k : kernels)
        k.dependentLaunch = !started.insert(k.variant).second;
    }
    return kernels;
  }

private:
  /// The kernels of a csr or bell layer: row kernels over the CSR (or the
  /// residual), with the dense blocks in them or in their own kernel.
  void planRowFormats() {
    RowMatrix rm;
    if (m.kind == FormatKind::Csr) {
      rm = {&m.csr.rowPtr, ::spperm::buffer::kCsrRowPtr, ::spperm::buffer::kCsrColIdx, ::spperm::buffer::kCsrValues,
            DenseBlocks(), ::spperm::format_name::kCsr};
    } else {
      rm = {&m.bell.residual.rowPtr, ::spperm::buffer::kBellResidualRowPtr,
            ::spperm::buffer::kBellResidualColIdx, ::spperm::buffer::kBellResidualValues,
            DenseBlocks{m.bell.block, m.bell.width, m.cols},
            ::spperm::format_name::kBell};
    }
    const bool tensorCores = m.kind == FormatKind::Bell &&
                             options.precision != Precision::F32 &&
                             (m.bell.block == 16 || m.bell.block == 32) &&
                             m.bell.width > 0;
    if (tensorCores) {
      // The tensor-core variants come first, so that they are chosen for
      // every K they accept (multiples of 8); other K use the fp32 ones.
      const char *suffix = options.precision == Precision::TF32 ? "tf32"
                                                                : "f16";
      for (KClass kc : kClasses(options.k)) {
        if (kc.spmv || kc.vec != 4 || (kc.k > 0 && kc.k % 8 != 0))
          continue;
        kc.kMin = (std::max<int64_t>(kc.kMin, 8) + 7) / 8 * 8;
        if (kc.kMax != 0 && kc.kMax < kc.kMin)
          continue;
        kc.kAlign = 8;
        kc.variant += std::string(".") + suffix;
        planRows(rm, kc, DenseKernel::TensorCores);
      }
    }
    // fp32: the dense blocks of SpMM variants with 16-byte columns and
    // groups of at least 8 lanes (K >= 12) in register tiles (tau >= 4);
    // SpMV, the scalar variant and K <= 8 (whose lanes would spend more on
    // staging a block than on multiplying it) keep them in the row kernel.
    const bool tiles = m.kind == FormatKind::Bell && m.bell.block >= 4 &&
                       m.bell.width > 0;
    for (const KClass &kc : kClasses(options.k))
      planRows(rm, kc,
               tiles && !kc.spmv && kc.vec == 4 && kc.lanes >= 8
                   ? DenseKernel::Tiles
                   : DenseKernel::InRowKernel);
  }

  std::string symbol(const std::string &what) {
    return options.prefix + "_" + what + "_" + std::to_string(counter++);
  }

  static std::string sanitize(std::string s) {
    for (char &c : s)
      if (!isalnum(static_cast<unsigned char>(c)))
        c = '_';
    return s;
  }

  /// The manifest entry of a kernel launched on `ctas` CTAs of `threads`
  /// threads (0: the options' block size).
  KernelInfo launch(const std::string &name, const std::string &family,
                    const KClass &kc, std::vector<std::string> args,
                    int64_t ctas, int64_t threads = 0) {
    KernelInfo k;
    k.name = name;
    k.family = family;
    k.variant = kc.variant;
    k.kMin = kc.kMin;
    k.kMax = kc.kMax;
    k.kAlign = kc.kAlign;
    k.args = std::move(args);
    k.gridX = std::max<int64_t>(1, ctas);
    k.blockX = threads > 0 ? threads : options.threads;
    return k;
  }

  /// The constant table of (row, begin, end) chunks of the rows longer than
  /// `threshold`, `chunk` entries each; returns its symbol and size.
  std::pair<std::string, int64_t> chunkTable(const std::vector<int32_t> &rowPtr,
                                             int64_t threshold, int64_t chunk) {
    std::vector<int32_t> table;
    for (size_t r = 0; r + 1 < rowPtr.size(); ++r) {
      int64_t begin = rowPtr[r], end = rowPtr[r + 1];
      if (end - begin <= threshold)
        continue;
      for (int64_t p = begin; p < end; p += chunk) {
        table.push_back(static_cast<int32_t>(r));
        table.push_back(static_cast<int32_t>(p));
        table.push_back(static_cast<int32_t>(std::min(end, p + chunk)));
      }
    }
    if (table.empty())
      return {"", 0};
    // One planner sees one CSR (the matrix's or the residual), so the split
    // parameters identify a table.
    return constantTable(
        "chunks", std::to_string(threshold) + "/" + std::to_string(chunk),
        table, static_cast<int64_t>(table.size() / 3));
  }

  /// The constant table of the rows longer than `threshold` (row indices);
  /// returns its symbol and size.
  std::pair<std::string, int64_t>
  rowTable(const std::vector<int32_t> &rowPtr, int64_t threshold) {
    std::vector<int32_t> rows;
    for (size_t r = 0; r + 1 < rowPtr.size(); ++r)
      if (rowPtr[r + 1] - rowPtr[r] > threshold)
        rows.push_back(static_cast<int32_t>(r));
    return constantTable("long_rows", "rows/" + std::to_string(threshold),
                         rows, static_cast<int64_t>(rows.size()));
  }

  /// A private constant i32 global holding `values` (16-byte aligned), made
  /// once per `key`: returns its symbol and `entries`.
  std::pair<std::string, int64_t> constantTable(const std::string &what,
                                                const std::string &key,
                                                ArrayRef<int32_t> values,
                                                int64_t entries) {
    auto it = tables.find(key);
    if (it != tables.end())
      return it->second;
    std::string name = symbol(what);
    OpBuilder b(module.getContext());
    b.setInsertionPointToStart(module.getBody());
    auto type = MemRefType::get({static_cast<int64_t>(values.size())},
                                b.getI32Type());
    memref::GlobalOp::create(
        b, module.getLoc(), name, b.getStringAttr("private"), type,
        DenseIntElementsAttr::get(
            RankedTensorType::get(type.getShape(), b.getI32Type()), values),
        /*constant=*/true, b.getI64IntegerAttr(16));
    return tables[key] = {name, entries};
  }

  /// The kernels of variant `kc`: the row kernel(s), the long-row split,
  /// and, unless `dense` is InRowKernel, the dense blocks' own kernel (the
  /// row kernels then walk only the residual).
  void planRows(const RowMatrix &rm, const KClass &kc, DenseKernel dense) {
    const std::vector<int32_t> &rowPtr = *rm.rowPtr;
    const int64_t rows = m.rows;
    const int64_t nnz = rowPtr.empty() ? 0 : rowPtr.back();
    const double mean = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
    // Long rows go to the split kernel: a group walks its row serially, so
    // a long row would be the kernel's critical path.
    const int64_t rowParts =
        kc.spmv ? 1
                : partsFor(rows, mean, kc.lanes, options.threads,
                           options.multiprocessors);
    int64_t longest = 0;
    for (size_t r = 0; r + 1 < rowPtr.size(); ++r)
      longest = std::max<int64_t>(longest, rowPtr[r + 1] - rowPtr[r]);
    const LongRowPlan longPlan = planLongRows(
        rowPtr, longest, kc.spmv, kc.lanes, rowParts,
        !kc.spmv &&
            spmmRanges(rowPtr, INT64_MAX, kc.lanes, options.threads).size() >
                1,
        options.threads, options.multiprocessors, options.splitRows,
        options.longRows);
    const int64_t threshold = longPlan.threshold;
    const bool hasLong = longest > threshold;
    std::vector<RowRange> ranges =
        kc.spmv ? spmvRanges(rowPtr, hasLong ? threshold : INT64_MAX)
                : spmmRanges(rowPtr, hasLong ? threshold : INT64_MAX,
                             kc.lanes, options.threads);
    // Long rows in CTAs of the row kernel need it to be one launch.
    const bool longInRowKernel =
        hasLong && longPlan.inRowKernel && ranges.size() == 1;
    const int64_t chunk = std::max<int64_t>(1, threshold / 2);
    auto [table, chunks] = hasLong && !longInRowKernel
                               ? chunkTable(rowPtr, threshold, chunk)
                               : std::make_pair(std::string(), int64_t(0));

    RowKernelSpec spec;
    spec.vectorReductions = options.vectorReductions;
    spec.gridDependencies = options.gridDependencies;
    spec.threads = options.threads;
    spec.vec = kc.vec;
    spec.k = kc.k;
    spec.spmv = kc.spmv;
    spec.dense =
        dense == DenseKernel::InRowKernel ? rm.dense : DenseBlocks();
    spec.order = ::spperm::buffer::kOrder;
    spec.rowPtr = rm.rowPtrName;
    spec.colIdx = rm.colIdxName;
    spec.values = rm.valuesName;
    spec.blockCol = ::spperm::buffer::kBellBlockCol;
    spec.blockValues = ::spperm::buffer::kBellBlockValues;
    spec.source.longThreshold = hasLong ? threshold : 0;
    spec.source.dropLongRows = longInRowKernel;
    std::string family = kc.spmv ? std::string(rm.family) +
                                       std::string(::spperm::family::kSpmvSuffix)
                                 : std::string(rm.family);
    for (const RowRange &range : ranges) {
      spec.lanes = range.lanes;
      spec.kSlices = 1;
      if (!kc.spmv)
        std::tie(spec.lanes, spec.kSlices) =
            kSlicing(kc, range.rows(), range.meanLength(), options.kSlices,
                     spec.threads, options.multiprocessors);
      // The groups of the launch: every row once per K slice.
      const int64_t items = range.rows() * spec.kSlices;
      // SpMV over many rows that fit in one step of the group: four rows
      // per group, loads in flight together.
      spec.rowsPerGroup =
          kc.spmv && spec.dense.tau == 0 && range.maxLength <= range.lanes &&
                  range.rows() >=
                      options.multiprocessors * 64 * (kWarpSize / range.lanes)
              ? 4
              : 1;
      const double rangeMean = range.meanLength();
      spec.parts = kc.spmv ? 1
                           : partsFor(items, rangeMean, spec.lanes,
                                      spec.threads, options.multiprocessors);
      // Few rows (shared by parts, or too few groups for the GPU): every
      // load in flight counts, straight-line batches of 8. Many rows: the
      // warps hide latency, registers (occupancy) count, a loop over
      // batches of 2.
      const bool fewRows = spec.parts > 1 ||
                           items < options.multiprocessors * 32 *
                                       (kWarpSize / std::min(kWarpSize,
                                                             spec.lanes));
      spec.batch = options.batch > 0 ? options.batch : (fewRows ? 8 : 2);
      spec.dynamicBatches = options.batch > 0 || !fewRows;
      // Rows shorter on average than the group: skip its empty batches.
      spec.skipEmptyBatches =
          !kc.spmv && rangeMean < static_cast<double>(spec.lanes);
      const int64_t rowsPerCta =
          spec.threads / (spec.lanes * spec.parts) * spec.rowsPerGroup;
      spec.ctasPerSlice =
          std::max<int64_t>(1, ceilDiv(range.rows(), rowsPerCta));
      spec.source.rowBegin = range.begin;
      spec.source.rowEnd = range.end;
      spec.name = symbol(sanitize(family + "_" + kc.variant));
      if (!longInRowKernel) {
        std::vector<std::string> args = emitRowKernel(module, spec);
        kernels.push_back(launch(spec.name, family, kc, std::move(args),
                                 spec.ctasPerSlice * spec.kSlices));
        continue;
      }
      // The long rows first, a CTA each, all its groups on the row (whole
      // K per group, the main spec's batches), then the other rows.
      RowKernelSpec longSpec = spec;
      longSpec.lanes = kc.lanes;
      longSpec.kSlices = 1;
      longSpec.ctasPerSlice = 1;
      longSpec.parts = maxParts(spec.threads, kc.lanes);
      longSpec.skipEmptyBatches = true;
      longSpec.source = RowSource();
      std::tie(longSpec.source.rowTable, longSpec.source.tableRows) =
          rowTable(rowPtr, threshold);
      std::vector<std::string> args = emitRowKernel(module, spec, &longSpec);
      kernels.push_back(launch(spec.name, family + std::string(::spperm::family::kLongSuffix), kc,
                               std::move(args),
                               longRowCtas(longSpec) +
                                   spec.ctasPerSlice * spec.kSlices));
    }
    if (chunks > 0) {
      // The long rows' chunks, after the row kernel wrote their dense part
      // (or zero).
      RowKernelSpec split = spec;
      split.dense = DenseBlocks();
      split.kSlices = 1;
      split.lanes = kc.spmv ? 32 : kc.lanes;
      split.rowsPerGroup = 1;
      split.batch = options.batch > 0 ? options.batch : 8;
      split.dynamicBatches = options.batch > 0;
      split.skipEmptyBatches = false;
      // A chunk is long by construction: several groups share it too.
      split.parts = kc.spmv ? 1
                            : partsFor(chunks, static_cast<double>(chunk),
                                       split.lanes, split.threads,
                                       options.multiprocessors);
      split.source = RowSource();
      split.source.chunkTable = table;
      split.source.chunks = chunks;
      split.name = symbol(sanitize(family + "_split_" + kc.variant));
      std::vector<std::string> args = emitRowKernel(module, split);
      kernels.push_back(
          launch(split.name, family + std::string(::spperm::family::kSplitSuffix), kc, std::move(args),
                 ceilDiv(chunks, split.threads / (split.lanes * split.parts))));
    }
    if (dense == DenseKernel::Tiles)
      planTiles(kc);
    if (dense != DenseKernel::TensorCores)
      return;
    MmaKernelSpec mma;
    mma.precision = options.precision == Precision::TF32 ? MmaPrecision::TF32
                                                         : MmaPrecision::F16;
    setBlockShape(mma, kc);
    mma.gridDependencies = options.gridDependencies;
    mma.name = symbol(sanitize(std::string("bell_mma_") + kc.variant));
    std::vector<std::string> mmaArgs = emitMmaKernel(module, mma);
    kernels.push_back(launch(mma.name,
                             mma.precision == MmaPrecision::TF32
                                 ? std::string(::spperm::family::kBellTf32)
                                 : std::string(::spperm::family::kBellF16),
                             kc, std::move(mmaArgs),
                             ceilDiv(mma.blockRows * (mma.tau / 16),
                                     mma.threads / kWarpSize),
                             mma.threads));
  }

  /// The bell layer's block geometry and variant `kc`'s K in a dense-block
  /// kernel spec (MmaKernelSpec, TileKernelSpec).
  template <typename Spec>
  void setBlockShape(Spec &spec, const KClass &kc) const {
    spec.k = kc.k;
    spec.tau = m.bell.block;
    spec.width = m.bell.width;
    spec.blockRows = m.bell.blockRows;
    spec.rows = m.rows;
    spec.cols = m.cols;
  }

  /// The fp32 tile kernel of variant `kc` (docs/Kernels.md, "bell-tile").
  void planTiles(const KClass &kc) {
    TileKernelSpec tile;
    tile.vectorReductions = options.vectorReductions;
    tile.gridDependencies = options.gridDependencies;
    setBlockShape(tile, kc);
    tile.lanes = kc.lanes;
    tile.sliceRows = std::min<int64_t>(tile.tau, 16);
    tile.unroll = 4;
    // Units per CTA: 128 threads' worth, as long as their transposed
    // slices fit in 32 KiB of shared memory.
    const int64_t unitsPerCta = std::max<int64_t>(
        1, std::min<int64_t>(128 / tile.lanes,
                             32 * 1024 / (tile.sliceRows * tile.tau * 4)));
    tile.threads = unitsPerCta * tile.lanes;
    // Parts: a block row's W slots shared by up to 16 units, doubling
    // while the units make fewer than 32 warps per SM.
    const int64_t units = tile.blockRows * (tile.tau / tile.sliceRows);
    const int64_t warps = ceilDiv(units * tile.lanes, kWarpSize);
    tile.parts = 1;
    while (tile.parts < 16 && tile.parts < tile.width &&
           warps * tile.parts < options.multiprocessors * 32)
      tile.parts *= 2;
    tile.name = symbol(sanitize(std::string("bell_tile_") + kc.variant));
    std::vector<std::string> args = emitTileKernel(module, tile);
    kernels.push_back(launch(tile.name, std::string(::spperm::family::kBellTile), kc, std::move(args),
                             ceilDiv(units * tile.parts, unitsPerCta),
                             tile.threads));
  }

  void planHbp() {
    const ::spperm::HbpStorage &h = m.hbp;
    std::vector<KClass> classes;
    if (options.k == 1)
      classes = {{"k1", 1, 1, 1, 32, 1, false, 1}};
    else if (options.k > 0)
      classes = {{"k" + std::to_string(options.k), options.k, options.k, 1, 32,
                  options.k % 4 == 0 ? 4 : 1, false, options.k}};
    else
      classes = {{"spmv", 1, 1, 1, 32, 1, false, 1},
                 {"vec4", 4, 0, 4, 32, 4, false, 0},
                 {"scalar", 2, 0, 1, 32, 1, false, 0}};
    const int64_t warps =
        std::max<int64_t>(1, static_cast<int64_t>(h.fixedBlockPtr.size()) - 1);
    for (const KClass &kc : classes) {
      HbpKernelSpec spec;
      spec.name = symbol(sanitize("hbp_" + kc.variant));
      spec.threads = options.threads;
      spec.vec = kc.vec;
      spec.k = kc.k;
      spec.rowBlock = h.rowBlock;
      spec.blockCols = std::max<int32_t>(1, h.blockCols);
      spec.warps = warps;
      spec.competitive = static_cast<int64_t>(h.competitiveBlocks.size());
      spec.colBlock = h.colBlock;
      spec.cols = m.cols;
      // The B tile: colBlock x vec floats per warp, as many warps per CTA as
      // fit in 48 KiB of static shared memory (at most 8); none when one
      // warp's tile does not fit.
      const int64_t tileBytes = int64_t(h.colBlock) * kc.vec * 4;
      const int64_t tileWarps =
          std::min<int64_t>(8, (48 * 1024) / std::max<int64_t>(tileBytes, 1));
      spec.sharedTile = tileWarps >= 1;
      if (spec.sharedTile)
        spec.threads = 32 * tileWarps;
      std::vector<std::string> args = emitHbpKernel(module, spec);
      // The B tile is static shared memory: sharedBytes stays 0.
      KernelInfo k = launch(spec.name, std::string(::spperm::family::kHbp), kc, std::move(args),
                            ceilDiv(warps * kWarpSize, spec.threads),
                            spec.threads);
      k.zeroOutput = true;
      kernels.push_back(std::move(k));
    }
  }

  gpu::GPUModuleOp module;
  const FormattedMatrix &m;
  const KernelGenOptions &options;
  std::vector<KernelInfo> kernels;
  std::map<std::string, std::pair<std::string, int64_t>> tables;
  int64_t counter = 0;
};

} // namespace

std::vector<KernelInfo>
mlir::spperm::generateLayerKernels(gpu::GPUModuleOp kernels,
                                   const FormattedMatrix &matrix,
                                   const KernelGenOptions &options) {
  return LayerPlanner(kernels, matrix, options).plan();
}
