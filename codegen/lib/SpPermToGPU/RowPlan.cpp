//===- RowPlan.cpp - How a layer's rows are split among kernels -----------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "RowPlan.h"

#include "KernelBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

using namespace mlir::spperm;
using namespace mlir::spperm::codegen;

namespace mlir::spperm::codegen {

int64_t pow2Ceil(int64_t v) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(v, 1)));
}

std::vector<KClass> kClasses(int64_t k, ArrayRef<int64_t> buckets,
                             int64_t maxVec) {
  if (k == 1)
    return {{"k1", 1, 1, 1, 0, 1, true, 1}};
  if (k > 0) {
    int64_t vec = maxVec >= 8 && k % 8 == 0 ? 8 : k % 4 == 0 ? 4 : 1;
    int64_t lanes = std::min<int64_t>(32, pow2Ceil((k + vec - 1) / vec));
    return {{"k" + std::to_string(k), k, k, 1, lanes, vec, false, k}};
  }
  // The buckets first: the runtime takes the first variant that accepts K.
  std::vector<KClass> out;
  for (int64_t bucket : buckets)
    if (bucket > 1)
      out.push_back(kClasses(bucket, {}, maxVec).front());
  // The range classes, after every bucket (which takes its own K).
  std::vector<int64_t> sorted(buckets.begin(), buckets.end());
  llvm::sort(sorted);
  int64_t below = 0;
  for (int64_t bucket : sorted) {
    if (bucket < kRangeMinK) {
      below = std::max(below, bucket);
      continue;
    }
    KClass range = kClasses(bucket, {}, maxVec).front();
    const int64_t lo = std::max(below, bucket / 2);
    below = std::max(below, bucket);
    if (range.vec < 4)
      continue;
    range.variant = "r" + std::to_string(bucket);
    range.kMin = (lo + range.vec) / range.vec * range.vec;
    range.kAlign = range.vec;
    range.k = 0;
    range.shapeK = bucket;
    // The largest bucket's range has no top of its own (boundRunTimeK
    // gives it the launch's).
    range.kMax = bucket == sorted.back() ? 0 : bucket;
    if (range.kMin < bucket)
      out.push_back(range);
  }
  out.push_back({"spmv", 1, 1, 1, 0, 1, true, 1});
  // 16-byte columns of 2-byte elements: the same column ranges as vec4's
  // groups, with half the lanes.
  if (maxVec >= 8)
    out.insert(out.end(), {{"vec8.g1", 8, 8, 8, 1, 8, false, 0},
                           {"vec8.g4", 16, 32, 8, 4, 8, false, 0},
                           {"vec8.g8", 40, 64, 8, 8, 8, false, 0},
                           {"vec8.g16", 72, 0, 8, 16, 8, false, 0}});
  out.insert(out.end(), {
                         {"vec4.g2", 4, 8, 4, 2, 4, false, 0},
                         {"vec4.g8", 12, 32, 4, 8, 4, false, 0},
                         {"vec4.g16", 36, 64, 4, 16, 4, false, 0},
                         {"vec4.g32", 68, 0, 4, 32, 4, false, 0},
                         {"scalar.g32", 2, 0, 1, 32, 1, false, 0}});
  return out;
}

int64_t manyRowsBatch(int64_t lanes, double meanLength, int64_t maxLength,
                      int64_t items, int64_t multiprocessors) {
  const bool uneven =
      lanes >= kUnevenRowsBatch && lanes <= kUnevenRowsMaxLanes &&
      meanLength > 0.0 &&
      static_cast<double>(maxLength) >= kUnevenRowsRatio * meanLength &&
      items <= kUnevenRowsMaxItemsPerSM * multiprocessors;
  return uneven ? kUnevenRowsBatch : 2;
}

bool directEntriesPay(::spperm::ValueType operandType, int64_t rows,
                      double meanLength, int64_t maxLength) {
  return operandType != ::spperm::ValueType::F32 &&
         rows >= kDirectEntriesMinRows && meanLength > 0.0 &&
         meanLength <= kDirectEntriesMaxMean &&
         static_cast<double>(maxLength) < kUnevenRowsRatio * meanLength;
}

int64_t directEntriesBatch(double meanLength) {
  return meanLength > kDirectEntriesShortMean ? kDirectEntriesLongBatch
                                               : kDirectEntriesShortBatch;
}

bool widenSplitGroups(int64_t k, int64_t lanes, int64_t vec, int64_t parts,
                      int64_t threads) {
  return k > 0 && vec == 8 && lanes >= 8 && 2 * lanes <= kWarpSize &&
         threads % (2 * lanes * parts) == 0;
}

int64_t maxRunTimeK(int64_t elementBytes) {
  constexpr int64_t kStrideLimit = (int64_t{1} << 32) - 1;
  return std::min<int64_t>(::spperm::kMaxIndex,
                           kStrideLimit / std::max<int64_t>(1, elementBytes));
}

void boundRunTimeK(std::vector<::spperm::KernelInfo> &kernels,
                   int64_t elementBytes) {
  std::map<std::string, int64_t> bound;
  for (const ::spperm::KernelInfo &k : kernels) {
    if (k.kMin == k.kMax)
      continue;
    const int64_t most = std::min(maxRunTimeK(elementBytes), k.gridReachK());
    // A valid grid_k (gridKProblem) reaches at least one slice.
    assert(most >= 1 && "a grid that grows with K reaches no K");
    auto [it, fresh] = bound.try_emplace(k.variant, most);
    if (!fresh)
      it->second = std::min(it->second, most);
  }
  for (::spperm::KernelInfo &k : kernels) {
    auto it = bound.find(k.variant);
    if (it == bound.end() || it->second >= ::spperm::kMaxIndex)
      continue;
    k.kMax = k.kMax == 0 ? it->second : std::min(k.kMax, it->second);
  }
}

int64_t kChunkGroups(const KClass &kc, int64_t chunkCols) {
  const int64_t k =
      kc.planK() > 0 ? kc.planK() : (kc.kMax > 0 ? kc.kMax : 128);
  return (k + chunkCols - 1) / chunkCols;
}

int64_t shortLength(const std::vector<int32_t> &rowPtr, int64_t r,
                    int64_t longThreshold) {
  const int64_t n = rowPtr[r + 1] - rowPtr[r];
  return n > longThreshold ? 0 : n;
}

void measure(RowRange &range, const std::vector<int32_t> &rowPtr,
             int64_t longThreshold) {
  range.nnz = range.maxLength = 0;
  for (int64_t r = range.begin; r < range.end; ++r) {
    const int64_t n = shortLength(rowPtr, r, longThreshold);
    range.nnz += n;
    range.maxLength = std::max(range.maxLength, n);
  }
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t maxParts(int64_t threads, int64_t lanes) {
  const int64_t groups = std::max<int64_t>(1, threads / lanes);
  return groups & -groups;
}

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

int64_t sliceCount(int64_t k, int64_t lanes, int64_t vec) {
  return ceilDiv(k, lanes * vec);
}

double estimateMissShare(const std::vector<int32_t> &rowPtr,
                         const std::vector<int32_t> &colIdx, int64_t cols,
                         double residentRows) {
  const int64_t nnz = rowPtr.empty() ? 0 : rowPtr.back();
  if (nnz <= 0 || cols <= 0)
    return 0.0;
  // last[c]: the position of column c's previous entry, -1 before its first.
  std::vector<int64_t> last(static_cast<size_t>(cols), -1);
  int64_t misses = 0;
  for (int64_t p = 0; p < nnz; ++p) {
    int64_t &prev = last[static_cast<size_t>(colIdx[p])];
    misses += prev < 0 || static_cast<double>(p - prev) > residentRows;
    prev = p;
  }
  return static_cast<double>(misses) / static_cast<double>(nnz);
}

double l2ResidentRows(int64_t k, int64_t l2Bytes) {
  return kL2ResidentShare * static_cast<double>(l2Bytes) /
         (static_cast<double>(std::max<int64_t>(k, 1)) * sizeof(float));
}

bool usesL2Panels(int64_t rows, int64_t cols, int64_t nnz, int64_t k,
                  double missShare, int64_t l2Bytes,
                  int64_t multiprocessors) {
  const double bytesPerColumn = static_cast<double>(cols) * sizeof(float);
  const double meanLength =
      rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  const double inFlight = static_cast<double>(multiprocessors) *
                          kL2PanelWarpsInFlight * meanLength;
  return k > kL2PanelColumns && k % 4 == 0 &&
         inFlight < static_cast<double>(cols) &&
         bytesPerColumn * static_cast<double>(k) >
             static_cast<double>(l2Bytes) &&
         bytesPerColumn * kL2PanelColumns <=
             kL2PanelMaxOvercommit * static_cast<double>(l2Bytes) &&
         missShare >= kL2PanelMinMissShare;
}

std::pair<int64_t, int64_t> kSlicing(const KClass &kc, int64_t rows,
                                     double meanLength, int64_t requested,
                                     int64_t threads, int64_t multiprocessors,
                                     bool l2Panels) {
  const int64_t k = kc.planK();
  if (kc.spmv || k <= 0 || requested == 1)
    return {kc.lanes, 1};
  int64_t lanes = kc.lanes;
  if (requested > 1) {
    const int64_t width = ceilDiv(k, requested);
    lanes = std::min(kc.lanes, pow2Ceil(ceilDiv(width, kc.vec)));
  } else if (l2Panels && kc.vec >= 4 && k > kL2PanelColumns) {
    lanes = kL2PanelColumns / kc.vec;
  } else if (kc.vec >= 4 && k > kWideK && rows > 0) {
    // Wide K: slices of 128 columns (a warp each of 4-column lanes), or of
    // 32 columns for few rows with many entries, which then get 4x the
    // groups.
    lanes = (rows <= kNarrowSliceRows && meanLength >= kNarrowSliceLength
                 ? 32
                 : 128) /
            kc.vec;
  } else {
    // Slices of 32 columns.
    const int64_t kSliceLanes = 32 / std::max<int64_t>(kc.vec, 1);
    if (kc.vec < 4 || k < 64 || k > kWideK || rows <= 0)
      return {kc.lanes, 1};
    const int64_t parts =
        partsFor(rows, meanLength, kc.lanes, threads, multiprocessors);
    const int64_t warps = rows * parts * kc.lanes / kWarpSize;
    const int64_t slicedParts =
        partsFor(rows * sliceCount(k, kSliceLanes, kc.vec), meanLength,
                 kSliceLanes, threads, multiprocessors);
    // Entries a group walks: meanLength / parts without slices, and
    // meanLength / slicedParts with them.
    if (warps > 8 * multiprocessors || slicedParts <= parts)
      return {kc.lanes, 1};
    lanes = kSliceLanes;
  }
  const int64_t slices = sliceCount(k, lanes, kc.vec);
  // The launch has at most rows x slices CTAs: keep it a valid grid.
  if (rows > std::numeric_limits<int32_t>::max() / slices)
    return {kc.lanes, 1};
  return {lanes, slices};
}

int64_t lanesForLength(double length) {
  return std::min<int64_t>(32, pow2Ceil(static_cast<int64_t>(length + 0.5)));
}

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

std::vector<InPlaceShape> inPlaceShapes(int64_t rows, int64_t cols,
                                        int64_t nnz, int64_t k,
                                        int64_t multiprocessors) {
  if (k < kInPlaceMinK || k > kInPlaceMaxK || rows < 1 || cols < 1)
    return {};
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  const int64_t lanes = std::clamp<int64_t>(
      pow2Ceil(static_cast<int64_t>(std::ceil(mean / 4.0))), 8, 32);
  const int64_t ctas = static_cast<int64_t>(
      llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(
          multiprocessors, 1))));
  std::vector<InPlaceShape> shapes;
  for (int64_t samples : {8, 16, 32}) {
    if (samples > k || samples * cols * 4 > kInPlaceMaxSharedBytes)
      continue;
    InPlaceShape s;
    s.samples = samples;
    s.lanes = lanes;
    const int64_t chunks = ceilDiv(k, samples);
    s.rowBlocks = std::min(pow2Ceil(ceilDiv(ctas, chunks)), rows);
    const int64_t blockRows = ceilDiv(rows, s.rowBlocks);
    s.threads = std::clamp<int64_t>(pow2Ceil(blockRows * lanes), 128, 512);
    shapes.push_back(s);
  }
  return shapes;
}

} // namespace mlir::spperm::codegen
