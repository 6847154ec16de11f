//===- RowPlan.h - How a layer's rows are split among kernels ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The planning arithmetic behind LayerKernels.cpp (docs/Kernels.md): the
// classes of K a layer gets variants for, row ranges of similar length and
// their group sizes, groups per row, K slices, and where long rows go; and
// the shapes of InPlaceKernels.cpp's kernels. Pure functions of the
// matrix's row pointer (or its shape) and the options.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CODEGEN_ROWPLAN_H
#define SPPERM_CODEGEN_ROWPLAN_H

#include "Kernels.h"

#include "spperm/Conversion/SpPermToGPU.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir::spperm::codegen {

/// A range of K the layer gets one variant for.
struct KClass {
  std::string variant;
  int64_t kMin, kMax, kAlign;
  /// Lanes per row (0 for SpMV: chosen per row range) and columns per lane.
  int64_t lanes, vec;
  bool spmv;
  /// K baked in (0: read at run time).
  int64_t k;
  /// For K read at run time, the K the launch is shaped for (K slices,
  /// chunk groups): the top of a range class's range (0: none, the
  /// variants for every K).
  int64_t shapeK = 0;

  /// The K the launch is shaped for: the baked-in K, else shapeK.
  int64_t planK() const { return k > 0 ? k : shapeK; }
  /// Whether K is read at run time within a range shaped as its top's
  /// bucket (kClasses).
  bool isRange() const { return k == 0 && shapeK > 0; }
};

/// The smallest bucket that gets a range class: below it no launch is cut
/// into K slices (kSlicing), so a range class would repeat the variant for
/// every K.
constexpr int64_t kRangeMinK = 64;

/// How many chunks of `chunkCols` columns of C variant `kc`'s K has: its
/// planK's (KClass::planK), else its largest K's, 128 when it has no
/// bound. The dense-block kernels deal them over that many chunk groups of
/// units.
int64_t kChunkGroups(const KClass &kc, int64_t chunkCols);

/// The largest K a kernel that reads K at run time accepts with B and C
/// of `elementBytes`-byte elements: B's row stride in bytes must fit in 32
/// bits (KernelBuilder::loadRowF32), so 2^30 - 1 for fp32 (the runtime's
/// own limit, 2^31 - 1, for 16-bit operands).
int64_t maxRunTimeK(int64_t elementBytes);

/// Bounds the K condition of every variant of `kernels` that reads K at
/// run time (k_min != k_max) by maxRunTimeK(elementBytes) and, where one
/// of its kernels has a grid that grows with K, by the largest K that
/// grid reaches within the launch limit (KernelInfo::gridReachK): such
/// a kernel runs one K slice a slice of its grid (docs/Kernels.md, "Range
/// variants"). Every kernel of a variant gets the same bound.
void boundRunTimeK(std::vector<::spperm::KernelInfo> &kernels,
                   int64_t elementBytes);

/// The smallest power of 2 at least `v` (v >= 1).
int64_t pow2Ceil(int64_t v);

/// The variants a layer gets for K = `k` (0: every class of K, after a
/// variant of its own for each K of `buckets`, as for that k, and for each
/// bucket of at least kRangeMinK a *range class* `r<bucket>` for the K
/// between the bucket below it (or half the bucket) and it, the largest
/// bucket's with no top of its own (boundRunTimeK bounds it when the
/// kernels are planned): the bucket's lanes and vector width, K read at
/// run time, the launch shaped for the bucket's K; docs/Kernels.md, "Range
/// variants"). With
/// `maxVec` 8 (16-bit B and C), K that are multiples of 8 get 8 columns a
/// lane (16-byte loads) and the K-agnostic `vec8` classes come before the
/// `vec4` ones (which remain for K % 8 == 4).
std::vector<KClass> kClasses(int64_t k, ArrayRef<int64_t> buckets = {},
                             int64_t maxVec = 4);

/// The CSR arrays a row kernel walks (the matrix's, or bell's residual).
struct RowMatrix {
  const std::vector<int32_t> *rowPtr = nullptr;
  const std::vector<int32_t> *colIdx = nullptr;
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
                    int64_t longThreshold);

/// Fills `range`'s nnz and longest row.
void measure(RowRange &range, const std::vector<int32_t> &rowPtr,
             int64_t longThreshold);

/// a / b rounded up, for a >= 0 and b > 0.
int64_t ceilDiv(int64_t a, int64_t b);

/// The largest power of 2 that divides threads / lanes: at most that many
/// groups share a row, so that a CTA holds whole rows.
int64_t maxParts(int64_t threads, int64_t lanes);

/// Groups per row for SpMM: enough that the rows fill the GPU (about 32
/// warps per multiprocessor) when there are few of them, no more than a
/// mean row has steps of `lanes` entries (rounded up to a power of 2), and
/// the row within one CTA.
int64_t partsFor(int64_t rows, double meanLength, int64_t lanes,
                 int64_t threads, int64_t multiprocessors);

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
                         int64_t fixedThreshold, LongRowMode mode);

/// The broadcast batch of a SpMM row kernel over rows of very uneven
/// length (docs/Kernels.md, "Broadcast batches") ...
constexpr int64_t kUnevenRowsBatch = 4;
/// ... where the range's longest row is at least this many times its
/// mean (power-law graphs) ...
constexpr double kUnevenRowsRatio = 4.0;
/// ... its groups have at most this many lanes (and at least
/// kUnevenRowsBatch, so that a batch never exceeds the group: 32-lane
/// groups lost up to 9 % on the H200) ...
constexpr int64_t kUnevenRowsMaxLanes = 16;
/// ... and the launch has at most this many items (rows times K slices)
/// per multiprocessor: with more, the other rows' warps hide the long ones
/// and the registers of the larger batch cost occupancy.
constexpr int64_t kUnevenRowsMaxItemsPerSM = 1024;

/// The broadcast batch of a SpMM row kernel over a range of many rows (a
/// loop over batches): kUnevenRowsBatch under the conditions above, else
/// 2, which leaves registers for occupancy. `lanes`: the group's lanes;
/// `meanLength`, `maxLength`: the range's mean and longest row (long rows
/// left to the split kernel count as empty); `items`: rows times K slices.
int64_t manyRowsBatch(int64_t lanes, double meanLength, int64_t maxLength,
                      int64_t items, int64_t multiprocessors);

/// Direct entries (RowKernelSpec::directEntries) pay where the shuffle
/// loop's registers (38-40 in 16 bits) and shuffles cost what the layer
/// needs: occupancy, or issue slots on longer rows. 16-bit operands
/// (the fp32 row kernel has full occupancy already) over at least this
/// many rows (fewer leave resident warps to spare) ...
constexpr int64_t kDirectEntriesMinRows = 32768;
/// ... of at most this many entries on average (longer rows take more
/// round trips through the entries' loads) ...
constexpr double kDirectEntriesMaxMean = 48.0;
/// ... none kUnevenRowsRatio times the mean or longer (the longest rows'
/// chains of loads set a power-law layer's time). docs/Kernels.md,
/// "Direct entries", has the measurements behind each bound.
bool directEntriesPay(::spperm::ValueType operandType, int64_t rows,
                      double meanLength, int64_t maxLength);

/// The loop's batch with direct entries: this many (32 registers, full
/// occupancy) over rows of at most ...
constexpr int64_t kDirectEntriesShortBatch = 2;
/// ... this many entries on average ...
constexpr double kDirectEntriesShortMean = 24.0;
/// ... else this many: 4 loads in flight halve a longer row's chain of
/// round trips, for 40 registers.
constexpr int64_t kDirectEntriesLongBatch = 4;

/// The batch of a direct-entries row kernel over rows of `meanLength`
/// entries on average (docs/Kernels.md, "Direct entries"); an explicit
/// batch option takes its place.
int64_t directEntriesBatch(double meanLength);

/// Whether a 16-bit split kernel of K `k` baked in (0: read at run time)
/// whose groups of `lanes` lanes take `vec` columns each, `parts` groups a
/// chunk in CTAs of `threads`, should take twice the lanes at half the
/// columns instead, `parts` kept: twice the threads, each lane with half
/// the columns (8-byte B loads instead of 16). Where K is baked in and 8
/// columns a lane leave a group of 8 or 16 lanes (K of 40 to 128), and a
/// CTA holds whole chunks of the wider groups (docs/Kernels.md, "Half
/// precision", says where it was measured).
bool widenSplitGroups(int64_t k, int64_t lanes, int64_t vec, int64_t parts,
                      int64_t threads);

/// The K slices of `lanes` x `vec` columns that cover `k` columns.
int64_t sliceCount(int64_t k, int64_t lanes, int64_t vec);

/// The largest K that the K-slicing rule for 64 <= K <= 128 covers; wider
/// baked-in K is always sliced (kSlicing).
constexpr int64_t kWideK = 128;

/// Wide K (> kWideK) is cut into slices of 32 columns instead of 128 for
/// ranges of at most this many rows ...
constexpr int64_t kNarrowSliceRows = 1024;
/// ... whose rows have at least this many entries on average.
constexpr double kNarrowSliceLength = 16.0;

/// The columns of an L2 panel: a slice of K whose B panel (cols x 32
/// floats) an L2 can hold where all of B does not (docs/Kernels.md, "L2
/// panels").
constexpr int64_t kL2PanelColumns = 32;
/// The share of the L2 that holds rows of B in the miss estimate ...
constexpr double kL2ResidentShare = 0.75;
/// ... the share of entries whose B row it must estimate to miss at full K
/// for L2 panels to pay ...
constexpr double kL2PanelMinMissShare = 0.7;
/// ... how much larger than the L2 a panel of B may be ...
constexpr double kL2PanelMaxOvercommit = 1.5;
/// ... and the warps per multiprocessor whose rows are taken to be in
/// flight at once (each a row).
constexpr int64_t kL2PanelWarpsInFlight = 32;

/// The share of a CSR's entries whose row of B a cache holding
/// `residentRows` rows of B misses when the rows run in order: a column's
/// first entry, and every entry whose previous entry in the same column
/// lies more than `residentRows` entries before it (a reuse-distance
/// estimate in entries: O(nnz + cols)). 0 for an empty matrix.
double estimateMissShare(const std::vector<int32_t> &rowPtr,
                         const std::vector<int32_t> &colIdx, int64_t cols,
                         double residentRows);

/// Whether SpMM with `k` columns of B (16-byte vectors, K baked in) over a
/// matrix of `cols` columns and `nnz` entries in `rows` rows runs in L2
/// panels of kL2PanelColumns (docs/Kernels.md, "L2 panels"):
///  * B (cols x k floats) does not fit in `l2Bytes`, and one panel fits
///    within kL2PanelMaxOvercommit of it;
///  * `missShare` (estimateMissShare with the rows of B the L2 holds at
///    full K) is at least kL2PanelMinMissShare: B's reuse is spread too far
///    for the L2 to keep it (uniformly random columns), not concentrated
///    in hot columns it already keeps (R-MAT's power law), where the
///    panels' re-reads of A lose;
///  * the rows in flight at once (kL2PanelWarpsInFlight per
///    multiprocessor, of the mean length) touch fewer entries than B has
///    rows: with rows of hundreds of entries they cover B's rows together,
///    so B streams through the L2 once a wave already.
bool usesL2Panels(int64_t rows, int64_t cols, int64_t nnz, int64_t k,
                  double missShare, int64_t l2Bytes,
                  int64_t multiprocessors);

/// The rows of B (of `k` floats) the L2 holds in the miss estimate.
double l2ResidentRows(int64_t k, int64_t l2Bytes);

/// How a range of `rows` rows (of `meanLength` entries on average) of an
/// SpMM variant with K baked in, or of a range class (K its planK; the
/// kernel's slices loop over a call's K), covers K: lanes per group and K
/// slices
/// ({kc.lanes, 1}: one group covers K, looping over its tiles).
/// `requested` slices become slices of a power-of-2 lanes times vec
/// columns. Chosen (`requested` 0), from the measurements in
/// docs/results/perf-notes.md (docs/Kernels.md, "K slices"):
///  * 64 <= K <= 128: slices of 32 columns (8 lanes of 4, a 128-byte line
///    of B per entry) when the range's warps without slices (rows x groups
///    per row) are at most 8 per multiprocessor and slicing shortens each
///    group's walk (more groups per row): a layer that cannot fill the GPU
///    then runs its rows' entries as more, shorter chains of loads. Ranges
///    with more warps lose more to re-reading A per slice than they gain.
///  * K > 128 (vectors of 4): always sliced, 128 columns (a warp) a slice,
///    or 32 columns (8 lanes) for at most kNarrowSliceRows rows of at
///    least kNarrowSliceLength entries: besides the shorter walks, the
///    slice-major CTAs of one slice read only its panel of B, which fits
///    in L2 where all of B may not;
///  * `l2Panels` (usesL2Panels), K > kL2PanelColumns: slices of
///    kL2PanelColumns columns, whatever the rules above say.
std::pair<int64_t, int64_t> kSlicing(const KClass &kc, int64_t rows,
                                     double meanLength, int64_t requested,
                                     int64_t threads, int64_t multiprocessors,
                                     bool l2Panels = false);

/// The group size (lanes) for rows of `length` entries on average (SpMV).
int64_t lanesForLength(double length);

/// Runs of consecutive rows whose length falls in the same class (`classOf`
/// of the length; rows longer than `longThreshold`, left to the split
/// kernel, count as empty), runs shorter than `minRows` merged into their
/// neighbours; at most `maxRanges` ranges, else one. Each range is
/// measured; lanes is left 0.
std::vector<RowRange>
lengthRanges(const std::vector<int32_t> &rowPtr, int64_t longThreshold,
             llvm::function_ref<int64_t(int64_t)> classOf, int64_t minRows,
             size_t maxRanges);

/// SpMV row ranges: runs of rows whose length asks for the same group size
/// (at least 2048 rows each, at most 8 ranges), each with the group size
/// of its mean row.
std::vector<RowRange> spmvRanges(const std::vector<int32_t> &rowPtr,
                                 int64_t longThreshold);

/// SpMM row ranges for a group of `lanes`: where rows sorted by length (as
/// the load-balancing permutations leave them) need very different numbers
/// of groups per row (parts 4x apart or more), up to 4 runs of at least 256
/// rows, each its own launch with its own parts; otherwise one range. Only
/// for layers of at least 100,000 entries (a launch costs ~1 us).
std::vector<RowRange> spmmRanges(const std::vector<int32_t> &rowPtr,
                                 int64_t longThreshold, int64_t lanes,
                                 int64_t threads);

/// The shape of an in-place kernel (InPlaceKernelSpec, docs/Kernels.md,
/// "In-place column-major B"): samples of X a CTA stages, lanes a row,
/// threads a CTA, and the blocks the rows are cut into (CTAs: row blocks
/// times K / samples, rounded up).
struct InPlaceShape {
  int64_t samples = 0, lanes = 0, threads = 0, rowBlocks = 0;
};

/// The K an in-place kernel may be generated for: K baked in, at least ...
constexpr int64_t kInPlaceMinK = 8;
/// ... and at most this: at larger K every multiply-add's shared-memory
/// read costs more than the transposing copy saves (at K = 256 and 512 the
/// copy was faster on every layer of docs/results/inplace-2026-12-03-s44).
constexpr int64_t kInPlaceMaxK = 128;
/// The shared memory one CTA may stage (the H100's and H200's 227 KiB of
/// opt-in shared memory a block). A GPU that allows less skips the
/// candidates that need more (docs/RuntimeABI.md, "Column-major B").
constexpr int64_t kInPlaceMaxSharedBytes = 227 * 1024;

/// The in-place candidates for an fp32 layer of `rows` rows, `cols`
/// columns and `nnz` entries at K = `k`, for the runtime to time at the
/// first column-major call (empty outside the bounds above): one for each
/// of 8, 16 and 32 samples a CTA (at most K, staging within
/// kInPlaceMaxSharedBytes); lanes a row the mean row over 4, rounded up to
/// a power of 2, within [8, 32]; row blocks enough that the CTAs are about
/// as many as the largest power of 2 within `multiprocessors`; threads
/// what a block's rows need of groups, within [128, 512]. On the layers of
/// docs/results/xs-2026-12-02-s41 the best of these came within 1.4 % of
/// the best of 15 to 203 shapes swept per layer and K (geomean at K = 32
/// and at K = 128; 5.1 % at most).
std::vector<InPlaceShape> inPlaceShapes(int64_t rows, int64_t cols,
                                        int64_t nnz, int64_t k,
                                        int64_t multiprocessors);

} // namespace mlir::spperm::codegen

#endif // SPPERM_CODEGEN_ROWPLAN_H
