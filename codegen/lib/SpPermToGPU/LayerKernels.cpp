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
#include "RowPlan.h"

#include "spperm/Sparse/Names.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::spperm;
using namespace mlir::spperm::codegen;
using ::spperm::FormatKind;
using ::spperm::FormattedMatrix;
using ::spperm::KernelInfo;

std::optional<Precision> mlir::spperm::parsePrecision(StringRef name) {
  namespace names = ::spperm::precision_name;
  const std::string_view text = name;
  if (text == names::kFp32)
    return Precision::F32;
  if (text == names::kTf32)
    return Precision::TF32;
  if (text == names::kF16)
    return Precision::F16;
  if (text == names::kTf32x3)
    return Precision::TF32x3;
  return std::nullopt;
}

StringRef mlir::spperm::getPrecisionName(Precision precision) {
  namespace names = ::spperm::precision_name;
  switch (precision) {
  case Precision::F32:
    return names::kFp32;
  case Precision::TF32:
    return names::kTf32;
  case Precision::F16:
    return names::kF16;
  case Precision::TF32x3:
    return names::kTf32x3;
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

StringRef mlir::spperm::getRowWindowModeName(RowWindowMode mode) {
  switch (mode) {
  case RowWindowMode::Auto:
    return "auto";
  case RowWindowMode::Always:
    return "always";
  case RowWindowMode::Never:
    return "never";
  }
  llvm_unreachable("unknown row-window mode");
}

StringRef mlir::spperm::getNarrowIndexModeName(NarrowIndexMode mode) {
  switch (mode) {
  case NarrowIndexMode::Auto:
    return "auto";
  case NarrowIndexMode::Never:
    return "never";
  }
  llvm_unreachable("unknown narrow-index mode");
}

StringRef mlir::spperm::getInPlaceBModeName(InPlaceBMode mode) {
  switch (mode) {
  case InPlaceBMode::Auto:
    return "auto";
  case InPlaceBMode::Never:
    return "never";
  }
  llvm_unreachable("unknown in-place-b mode");
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

std::string mlir::spperm::verifyKernelOptions(int64_t threads, int64_t batch,
                                              int64_t kSlices,
                                              int64_t splitRows,
                                              StringRef target,
                                              ArrayRef<int64_t> kBuckets) {
  auto range = [](StringRef name, int64_t value, int64_t lo, int64_t hi) {
    return (name + " must be an integer in [" + Twine(lo) + ", " + Twine(hi) +
            "], got " + Twine(value))
        .str();
  };
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return "threads must be a multiple of 32 in [32, 1024], got " +
           std::to_string(threads);
  if (batch < 0 || batch > 8)
    return range("batch", batch, 0, 8);
  if (kSlices < 0 || kSlices > 1024)
    return range("k-slices", kSlices, 0, 1024);
  if (splitRows < 0 || splitRows > std::numeric_limits<int32_t>::max())
    return range("split-rows", splitRows, 0,
                 std::numeric_limits<int32_t>::max());
  if (!(kBuckets.size() == 1 && kBuckets[0] == 0))
    for (int64_t k : kBuckets)
      if (k < 2 || k > 65536)
        return "k-buckets must be integers in [2, 65536] (or 0 alone: "
               "none), got " +
               std::to_string(k);
  if (!isKnownTarget(target))
    return ("target must be a GPU architecture such as sm_90, got '" +
            target + "'")
        .str();
  if (!isSupportedTarget(target))
    return ("target must be sm_" + Twine(kMinimumTargetVersion) +
            " or later (the kernels use cp.async and tensor-core "
            "mma.sync), got '" +
            target + "'")
        .str();
  return "";
}

std::vector<int64_t> mlir::spperm::defaultKBuckets() {
  return {8, 32, 64, 128, 256, 512};
}

std::vector<int64_t> mlir::spperm::resolveKBuckets(ArrayRef<int64_t> option) {
  if (option.empty())
    return defaultKBuckets();
  if (option.size() == 1 && option[0] == 0)
    return {};
  std::vector<int64_t> out(option.begin(), option.end());
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
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

/// An HBP format walks its rounds in batches (HbpWalk::Rounds) when a warp
/// group has at least this many rounds (twice the largest batch: fewer
/// gain nothing on the batches' fixed costs) ...
constexpr int64_t kHbpLongGroupRounds = 16;
/// ... and K is at most this (measured: docs/Kernels.md, "Families", hbp).
constexpr int64_t kHbpRoundsMaxK = 128;
/// A warp that runs one warp group walks a part of its rounds: parts long
/// enough that the format's rounds in all K slices make about this many
/// (hbpPartRounds) ...
constexpr int64_t kHbpPartItems = 1024;
/// ... with run-time-K variants up to this K and above (each sized for its
/// largest K) ...
constexpr int64_t kHbpPartSplitK = 32;
/// ... but no more than this many batches (a long matrix's parts are not
/// sized by its rounds alone) ...
constexpr int64_t kHbpPartMaxBatches = 4;
/// ... when the format has at most this many parts (a constant table of
/// four i32 a part in the kernels' module: at most 256 KiB, about 1 MiB of
/// PTX text, per distinct part length).
constexpr int64_t kHbpMaxParts = 1 << 14;

/// The rounds of a part (docs/Kernels.md, "Families", hbp) for a format of
/// `totalRounds` rounds over its warp groups, in `slices` K slices, walked
/// `batch` rounds at a time: a whole number of batches, from one to
/// kHbpPartMaxBatches, enough that the parts of all slices are about
/// kHbpPartItems. Shorter parts shorten the longest walk but add a
/// pipeline fill and atomic partial rows each (measured on the H100:
/// docs/Kernels.md, "Families", hbp).
int64_t hbpPartRounds(int64_t totalRounds, int64_t slices, int64_t batch) {
  const int64_t rounds =
      ceilDiv(totalRounds * std::max<int64_t>(1, slices), kHbpPartItems);
  return llvm::alignTo(
      std::clamp<int64_t>(rounds, batch, kHbpPartMaxBatches * batch), batch);
}

/// Calls `fn(round, pos, live)` for each round of warp group `g` of an HBP
/// format (docs/Formats.md, "hbp": round `round` holds the next entry of
/// each lane in `live`, in lane order, from entry `pos`).
void forEachHbpRound(
    const ::spperm::HbpStorage &h, size_t g,
    llvm::function_ref<void(int64_t, int64_t, ArrayRef<int64_t>)> fn) {
  const int64_t R = h.rowBlock, G = R / 32;
  int64_t pos = h.beginNnz[g];
  const int64_t end = h.beginNnz[g + 1];
  // The group's lanes with entries are its first round.
  SmallVector<int64_t, 32> live;
  for (int64_t t = 0; t < 32; ++t)
    if (h.zeroRow[(g / G) * R + (g % G) * 32 + t] >= 0)
      live.push_back(t);
  for (int64_t round = 0; pos < end && !live.empty(); ++round) {
    fn(round, pos, live);
    SmallVector<int64_t, 32> next;
    for (auto [i, t] : llvm::enumerate(live))
      if (pos + static_cast<int64_t>(i) < end &&
          h.addSign[pos + static_cast<int64_t>(i)] > 0)
        next.push_back(t);
    pos += static_cast<int64_t>(live.size());
    live = std::move(next);
  }
}

/// The rounds of an HBP format's warp groups with entries, sorted (a group
/// has as many rounds as its longest row has entries in the block).
std::vector<int64_t> hbpGroupRounds(const ::spperm::HbpStorage &h) {
  std::vector<int64_t> rounds;
  for (size_t g = 0; g + 1 < h.beginNnz.size(); ++g) {
    int64_t n = 0;
    forEachHbpRound(h, g, [&](int64_t, int64_t, ArrayRef<int64_t>) { ++n; });
    if (n > 0)
      rounds.push_back(n);
  }
  llvm::sort(rounds);
  return rounds;
}

/// An HBP format's warp groups cut into parts of at most `partRounds`
/// rounds (docs/Kernels.md, "Families", hbp): four i32 a part — the group
/// (stored block * rowBlock / 32 + group), the part's first entry, its
/// live lanes (a mask: the lanes with an entry in its first round) and the
/// entry after its last — longest parts first (then in storage order).
/// Empty when an entry position does not fit 31 bits or there would be
/// more than `maxParts` parts.
std::vector<int32_t> hbpParts(const ::spperm::HbpStorage &h, int64_t partRounds,
                              int64_t maxParts) {
  if (h.beginNnz.empty() ||
      h.beginNnz.back() > std::numeric_limits<int32_t>::max())
    return {};
  struct Part {
    int64_t group, begin, end, rounds;
    uint32_t live;
  };
  std::vector<Part> parts;
  for (size_t g = 0; g + 1 < h.beginNnz.size(); ++g)
    forEachHbpRound(
        h, g, [&](int64_t round, int64_t pos, ArrayRef<int64_t> live) {
          if (static_cast<int64_t>(parts.size()) > maxParts)
            return;
          if (round % partRounds == 0) {
            if (!parts.empty() && parts.back().group == static_cast<int64_t>(g))
              parts.back().end = pos;
            uint32_t mask = 0;
            for (int64_t t : live)
              mask |= uint32_t(1) << t;
            parts.push_back(
                {static_cast<int64_t>(g), pos, h.beginNnz[g + 1], 0, mask});
          }
          ++parts.back().rounds;
        });
  if (static_cast<int64_t>(parts.size()) > maxParts)
    return {};
  llvm::stable_sort(
      parts, [](const Part &x, const Part &y) { return x.rounds > y.rounds; });
  std::vector<int32_t> table;
  table.reserve(parts.size() * kHbpPartFields);
  for (const Part &p : parts) {
    table.push_back(static_cast<int32_t>(p.group));
    table.push_back(static_cast<int32_t>(p.begin));
    table.push_back(static_cast<int32_t>(p.live));
    table.push_back(static_cast<int32_t>(p.end));
  }
  return table;
}

/// The `q` quantile (nearest rank, 0 < q <= 1) of sorted values; 0 for
/// none.
int64_t nearestRank(ArrayRef<int64_t> sorted, double q) {
  if (sorted.empty())
    return 0;
  const size_t rank =
      static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

/// The tensor-core kernel's arithmetic for a tensor-core precision.
MmaPrecision toMmaPrecision(Precision precision) {
  switch (precision) {
  case Precision::F16:
    return MmaPrecision::F16;
  case Precision::TF32x3:
    return MmaPrecision::TF32x3;
  case Precision::TF32:
  case Precision::F32:
    break;
  }
  return MmaPrecision::TF32;
}

/// The kernel family of a tensor-core kernel.
std::string_view mmaFamily(MmaPrecision precision) {
  switch (precision) {
  case MmaPrecision::F16:
    return ::spperm::family::kBellF16;
  case MmaPrecision::TF32x3:
    return ::spperm::family::kBell3xTf32;
  case MmaPrecision::BF16:
    return ::spperm::family::kBellBf16;
  case MmaPrecision::TF32:
    break;
  }
  return ::spperm::family::kBellTf32;
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

/// When 16-bit bell layers run the tile kernel (LayerPlanner::halfTilesPay):
/// on the H100 it ran 1.9-7x faster than the row kernel on layers whose
/// blocks hold >= 152 entries a row, at every K, and 1.1-1.6x faster at
/// K = 512 on banded and block matrices with all entries in blocks (17-65
/// a row), but up to 1.7x slower below K = 256 there and at every K where
/// at most 42 % of the entries are in blocks
/// (docs/results/half-families-2026-11-27-s26).
constexpr double kHalfTilesMinEntries = 128.0;
constexpr int64_t kHalfTilesMinK = 256;
constexpr double kHalfTilesMinShare = 0.5;

/// Rows of a csr-window kernel's window (8 warps of 4 rows).
constexpr int64_t kWindowRows = 32;
/// The smallest K (baked in) that runs the csr-window kernel: one K tile
/// of 128 columns.
constexpr int64_t kWindowMinK = 128;
/// Mode auto runs the csr-window kernel for K >= kWindowAutoMinK on layers
/// of at least kWindowAutoMinCols columns and kWindowAutoMinDensity
/// density: the only layers on which it beat the row kernels (K slices)
/// on the H200 (docs/Kernels.md, "csr-window").
constexpr int64_t kWindowAutoMinK = 512;
constexpr int64_t kWindowAutoMinCols = 2048;
constexpr double kWindowAutoMinDensity = 0.25;

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
    boundRunTimeK(kernels, ::spperm::valueTypeBytes(options.operandType));
    // Every kernel after the first of its variant waits for the ones before
    // it (griddepcontrol.wait) before it touches C, so it may be launched
    // while they run.
    if (options.gridDependencies) {
      std::set<std::string> started;
      for (KernelInfo &k : kernels) {
        k.dependentLaunch = !started.insert(k.variant).second;
        // A variant's first kernel waits at its start, before anything
        // else (its launch_dependents included), so that it may be
        // launched as the programmatic dependent of the layer's
        // transposing kernel, which writes its B (docs/Kernels.md,
        // "Column-major B"). Launched in plain stream order, the wait
        // returns at once.
        if (!k.dependentLaunch)
          if (auto func = module.lookupSymbol<gpu::GPUFuncOp>(k.name)) {
            OpBuilder b(func.getContext());
            b.setInsertionPointToStart(&func.getBody().front());
            NVVM::GriddepcontrolOp::create(b, func.getLoc(),
                                           NVVM::GridDepActionKind::wait);
          }
      }
    }
    return kernels;
  }

private:
  /// 16-bit B and C (docs/Kernels.md, "Half precision"): every element of
  /// C rounded once, kernels that add into their result writing the fp32
  /// accumulator.
  bool half() const {
    return options.operandType != ::spperm::ValueType::F32;
  }

  /// Columns of B and C in one 16-byte vector: 4 fp32, 8 16-bit.
  int64_t vectorWidth() const { return half() ? 8 : 4; }

  /// The kernels of a csr or bell layer: row kernels over the CSR (or the
  /// residual), with the dense blocks in them or in their own kernel.
  void planRowFormats() {
    RowMatrix rm;
    if (m.kind == FormatKind::Csr) {
      rm = {&m.csr.rowPtr, &m.csr.colIdx, ::spperm::buffer::kCsrRowPtr,
            ::spperm::buffer::kCsrColIdx, ::spperm::buffer::kCsrValues,
            DenseBlocks(), ::spperm::format_name::kCsr};
    } else {
      rm = {&m.bell.residual.rowPtr, &m.bell.residual.colIdx,
            ::spperm::buffer::kBellResidualRowPtr,
            ::spperm::buffer::kBellResidualColIdx, ::spperm::buffer::kBellResidualValues,
            DenseBlocks{m.bell.block, m.bell.width, m.cols, m.bell.condensed},
            ::spperm::format_name::kBell};
    }
    // Column indices as 16 bits where every one fits: 2 bytes less per
    // entry, a quarter of a memory-bound fp32 layer's traffic and a third
    // of a 16-bit one's.
    if (narrowsColumnIndices(options.narrowIndices, m.cols))
      rm.colIdxName = m.kind == FormatKind::Csr
                          ? ::spperm::buffer::kCsrColIdxU16
                          : ::spperm::buffer::kBellResidualColIdxU16;
    // 16-bit operands: vector classes of 8 columns a lane (16 bytes).
    const int64_t vecWidth = vectorWidth();
    // 16-bit operands go to the tensor cores as they are, so their values
    // must be of the same type (fp32 values would be rounded).
    const bool tensorCores = m.kind == FormatKind::Bell &&
                             options.precision != Precision::F32 &&
                             (m.bell.block == 16 || m.bell.block == 32) &&
                             m.bell.width > 0 &&
                             (!half() ||
                              options.valueType == options.operandType);
    if (tensorCores) {
      // The tensor-core variants come first, so that they are chosen for
      // every K they accept (multiples of 8); other K use the others.
      // 16-bit operands are multiplied in their own type whatever the
      // precision (suffix f16 or bf16).
      const std::string suffix =
          half() ? std::string(::spperm::valueTypeName(options.operandType))
               : getPrecisionName(options.precision).str();
      for (KClass kc : kClasses(options.k, options.kBuckets, vecWidth)) {
        // 16-bit: the vec8 classes (the vec4 ones take K % 8 == 4).
        if (kc.spmv || kc.vec < 4 || (half() && kc.vec != vecWidth) ||
            (kc.k > 0 && kc.k % 8 != 0))
          continue;
        kc.kMin = (std::max<int64_t>(kc.kMin, 8) + 7) / 8 * 8;
        if (kc.kMax != 0 && kc.kMax < kc.kMin)
          continue;
        kc.kAlign = 8;
        kc.variant += std::string(".") + suffix;
        planRows(rm, kc, DenseKernel::TensorCores);
      }
    }
    // The dense blocks of SpMM variants with vector columns whose tile
    // units have at least 8 lanes (K >= 12) in register tiles (tau >= 4);
    // SpMV, the scalar variant and smaller K (whose lanes would spend more
    // on staging a block than on multiplying it) keep them in the row
    // kernel.
    const bool tiles =
        m.kind == FormatKind::Bell && m.bell.block >= 4 && m.bell.width > 0;
    for (const KClass &kc : kClasses(options.k, options.kBuckets, vecWidth)) {
      if (m.kind == FormatKind::Csr && usesWindows(kc)) {
        planWindows(rm, kc);
        continue;
      }
      const DenseKernel dense =
          tiles && !kc.spmv && kc.vec >= 4 && tileLanes(kc) >= 8 &&
                  (!half() || halfTilesPay(kc))
              ? DenseKernel::Tiles
              : DenseKernel::InRowKernel;
      if (kc.isRange() && !rangeClassPays(rm, kc, dense))
        continue;
      planRows(rm, kc, dense);
    }
  }

  /// Whether range class `kc` (KClass::isRange) gives the layer other
  /// kernels than the variants for every K would run its K with: a row
  /// range cut into K slices, or a dense-block kernel (its chunk groups
  /// follow the range's top). Otherwise the class is left out. The row
  /// ranges are planRows' without its long-row cut, close enough for this
  /// yes or no.
  bool rangeClassPays(const RowMatrix &rm, const KClass &kc,
                      DenseKernel dense) const {
    if (dense != DenseKernel::InRowKernel)
      return true;
    for (const RowRange &range :
         spmmRanges(*rm.rowPtr, INT64_MAX, kc.lanes, options.threads))
      if (kSlicing(kc, range.rows(), range.meanLength(), options.kSlices,
                   options.threads, options.multiprocessors)
              .second > 1)
        return true;
    return false;
  }

  /// Whether a 16-bit bell layer's variant `kc` runs its dense blocks in
  /// the tile kernel rather than the row kernel (docs/Kernels.md, "Half
  /// precision"). The tile kernel's result goes through the fp32
  /// accumulator, 8 more bytes per element of C than the row kernel's
  /// store: it pays where the blocks give each row many entries
  /// (kHalfTilesMinEntries) or, with most entries in blocks
  /// (kHalfTilesMinShare), a wide K baked in (kHalfTilesMinK).
  bool halfTilesPay(const KClass &kc) const {
    if (m.rows <= 0 || m.nnz <= 0)
      return false;
    const double perRow = static_cast<double>(m.bell.denseNnz) / m.rows;
    const double share = static_cast<double>(m.bell.denseNnz) / m.nnz;
    return perRow >= kHalfTilesMinEntries ||
           (kc.kMin >= kHalfTilesMinK && share >= kHalfTilesMinShare);
  }

  /// The lanes of a bell-tile unit of variant `kc` (4 columns each): as
  /// many as cover the row kernel's columns of a group, at most a warp.
  static int64_t tileLanes(const KClass &kc) {
    return std::min<int64_t>(kWarpSize, kc.lanes * kc.vec / 4);
  }

  /// Whether csr variant `kc` runs the csr-window kernel: a baked-in K of
  /// at least one K tile (128 fp32 columns, 256 16-bit ones) in whole
  /// 16-byte vectors, and in mode auto a wide K on wide, dense layers
  /// (kWindowAutoMinK, kWindowAutoMinCols, kWindowAutoMinDensity).
  bool usesWindows(const KClass &kc) const {
    if (options.rowWindows == RowWindowMode::Never || kc.spmv ||
        kc.k < kWindowMinK * vectorWidth() / 4 ||
        kc.k % vectorWidth() != 0 || m.rows <= 0 || m.cols <= 0 ||
        m.csr.rowPtr.empty() || m.csr.rowPtr.back() == 0)
      return false;
    if (options.rowWindows == RowWindowMode::Always)
      return true;
    // 16-bit B halves the L2 traffic the windows save: on the H100 they
    // ran 1.2-1.3x slower than the row kernels on the DLMC layers where
    // fp32 gains 1.2x (docs/Kernels.md, "Half precision").
    if (half())
      return false;
    const double density = static_cast<double>(m.csr.rowPtr.back()) /
                           (static_cast<double>(m.rows) * m.cols);
    return kc.k >= kWindowAutoMinK && m.cols >= kWindowAutoMinCols &&
           density >= kWindowAutoMinDensity;
  }

  /// The csr-window kernel of variant `kc` (docs/Kernels.md, "csr-window").
  void planWindows(const RowMatrix &rm, const KClass &kc) {
    WindowKernelSpec spec;
    spec.vectorReductions = options.vectorReductions;
    spec.gridDependencies = options.gridDependencies;
    spec.threads = kWindowRows / 4 * kWarpSize;
    spec.rowsPerWarp = 4;
    spec.k = kc.k;
    spec.rows = m.rows;
    spec.cols = m.cols;
    spec.order = ::spperm::buffer::kOrder;
    spec.rowPtr = rm.rowPtrName;
    spec.colIdx = rm.colIdxName;
    spec.values = rm.valuesName;
    spec.operandType = options.operandType;
    spec.valueType = options.valueType;
    // Wide K: 8 columns a lane (two 16-byte vectors per fp32 B read, one
    // of 16-bit B), chunks of 16 columns for two vectors so that the two
    // buffers stay 32 KiB.
    spec.vecs = !half() && kc.k >= 256 ? 2 : 1;
    spec.chunkCols = 32 / spec.vecs;
    const int64_t windows = ceilDiv(m.rows, kWindowRows);
    const int64_t kTiles =
        ceilDiv(kc.k, vectorWidth() * kWarpSize * spec.vecs);
    const int64_t chunks = ceilDiv(m.cols, spec.chunkCols);
    // Column ranges until the CTAs fill the GPU twice over, each range at
    // least 4 chunks and the offset table at most 2^20 entries.
    int64_t splits = 1;
    while (windows * kTiles * splits < 2 * options.multiprocessors &&
           chunks / (2 * splits) >= 4 &&
           m.rows * (2 * splits + 1) <= (int64_t(1) << 20))
      splits *= 2;
    spec.colSplits = splits;
    spec.colsPerSplit = ceilDiv(chunks, splits) * spec.chunkCols;
    if (splits > 1)
      spec.splitTable = splitTable(spec.colsPerSplit, splits);
    spec.name = symbol(sanitize(std::string("csr_window_") + kc.variant));
    std::vector<std::string> args = emitWindowKernel(module, spec);
    KernelInfo k =
        launch(spec.name, std::string(::spperm::family::kCsrWindow), kc,
               std::move(args), windows * kTiles * splits, spec.threads);
    // Column ranges add into C (16-bit: into the accumulator), cleared
    // first; a round kernel then rounds the accumulator into C.
    k.zeroOutput = splits > 1;
    kernels.push_back(std::move(k));
    if (half() && splits > 1)
      planRound(kc);
  }

  /// Whether the row kernels of variant `kc` over `rm` run in L2 panels
  /// (usesL2Panels in RowPlan.h; the miss estimate only where B does not
  /// fit in the L2).
  bool usesL2Panels(const RowMatrix &rm, const KClass &kc) const {
    if (kc.spmv || kc.k <= 0 || options.kSlices != 0 || !rm.colIdx)
      return false;
    const std::vector<int32_t> &rowPtr = *rm.rowPtr;
    const int64_t nnz = rowPtr.empty() ? 0 : rowPtr.back();
    auto panels = [&](double missShare) {
      return codegen::usesL2Panels(m.rows, m.cols, nnz, kc.k, missShare,
                                   options.l2Bytes, options.multiprocessors);
    };
    return panels(1.0) &&
           panels(estimateMissShare(rowPtr, *rm.colIdx, m.cols,
                                    l2ResidentRows(kc.k, options.l2Bytes)));
  }

  /// The constant table of each row's first entry in each of `splits`
  /// column ranges of `width` columns, and its end: rows x (splits + 1)
  /// offsets; returns its symbol.
  std::string splitTable(int64_t width, int64_t splits) {
    const std::vector<int32_t> &rowPtr = m.csr.rowPtr;
    const std::vector<int32_t> &colIdx = m.csr.colIdx;
    std::vector<int32_t> table;
    table.reserve(static_cast<size_t>(m.rows * (splits + 1)));
    for (int64_t r = 0; r < m.rows; ++r) {
      int64_t p = rowPtr[r];
      for (int64_t s = 0; s < splits; ++s) {
        while (p < rowPtr[r + 1] && colIdx[p] < s * width)
          ++p;
        table.push_back(static_cast<int32_t>(p));
      }
      table.push_back(rowPtr[r + 1]);
    }
    return constantTable("windows",
                         "windows/" + std::to_string(width) + "/" +
                             std::to_string(splits),
                         table, static_cast<int64_t>(table.size()))
        .first;
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

  /// `k` with, where the row kernel of `spec` takes its K slices from its
  /// grid (RowKernelSpec::growsWithK), the grid that grows with K: `base`
  /// CTAs first (the long rows'), then ctasPerSlice a slice of lanes * vec
  /// columns.
  static KernelInfo growWithK(KernelInfo k, const RowKernelSpec &spec,
                              int64_t base) {
    if (!spec.growsWithK())
      return k;
    k.gridBase = base;
    k.gridCtas = spec.ctasPerSlice;
    k.gridColumns = spec.lanes * spec.vec;
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
    // 16-bit C is rounded once (docs/Kernels.md, "Half precision"): the
    // tile or tensor-core kernel runs first, into the fp32 accumulator, and
    // the row kernels add it to their sums before they round and store.
    const bool accumulate = dense != DenseKernel::InRowKernel && half();
    const size_t firstKernel = kernels.size();
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
    int64_t threshold = longPlan.threshold;
    bool hasLong = longest > threshold;
    std::vector<RowRange> ranges =
        kc.spmv ? spmvRanges(rowPtr, hasLong ? threshold : INT64_MAX)
                : spmmRanges(rowPtr, hasLong ? threshold : INT64_MAX,
                             kc.lanes, options.threads);
    // Long rows in CTAs of the row kernel need it to be one launch.
    bool longInRowKernel =
        hasLong && longPlan.inRowKernel && ranges.size() == 1;
    // 16-bit C is rounded once per element: long rows are split as in
    // fp32, but their chunks are added into the fp32 accumulator and a
    // round kernel ends the variant. SpMV: the row kernel writes the
    // accumulator for every row, and the round kernel rounds it all. SpMM:
    // the row kernels store a long row's dense part (or zero) to the
    // accumulator and the others to C, and the round kernel takes the long
    // rows only. SpMM behind a dense-block kernel (which adds into the
    // accumulator already): the long rows get a CTA each in the row kernel
    // instead (one launch over all rows).
    const bool splitHalf = hasLong && !longInRowKernel && half();
    const bool spmvAccumulates = splitHalf && kc.spmv;
    const bool spmmAccumulates = splitHalf && !kc.spmv && !accumulate;
    if (splitHalf && !kc.spmv && accumulate) {
      RowRange all{0, rows, kc.lanes};
      measure(all, rowPtr, threshold);
      ranges = {all};
      longInRowKernel = true;
    }
    const int64_t chunk = std::max<int64_t>(1, threshold / 2);
    auto [table, chunks] = hasLong && !longInRowKernel
                               ? chunkTable(rowPtr, threshold, chunk)
                               : std::make_pair(std::string(), int64_t(0));

    RowKernelSpec spec;
    spec.operandType = options.operandType;
    spec.valueType = options.valueType;
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
    spec.tileCol = ::spperm::buffer::kBellTileCol;
    spec.source.longThreshold = hasLong ? threshold : 0;
    spec.source.dropLongRows = longInRowKernel;
    spec.accumulator = accumulate;
    spec.outputAccumulator = spmvAccumulates;
    spec.longRowsToAccumulator = spmmAccumulates;
    std::string family = kc.spmv ? std::string(rm.family) +
                                       std::string(::spperm::family::kSpmvSuffix)
                                 : std::string(rm.family);
    const bool l2Panels = usesL2Panels(rm, kc);
    for (const RowRange &range : ranges) {
      spec.lanes = range.lanes;
      spec.kSlices = 1;
      if (!kc.spmv)
        std::tie(spec.lanes, spec.kSlices) = kSlicing(
            kc, range.rows(), range.meanLength(), options.kSlices,
            spec.threads, options.multiprocessors, l2Panels);
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
      // batches of 2 -- of 4 where the longest rows' chains set the time,
      // or over longer rows with direct entries (below).
      const bool fewRows = spec.parts > 1 ||
                           items < options.multiprocessors * 32 *
                                       (kWarpSize / std::min(kWarpSize,
                                                             spec.lanes));
      // Many short, even rows of 16-bit operands, K baked in (a --k
      // package or a K bucket): no cached entries, no shuffles. Batches of
      // 2 over the shortest rows (32 registers: more resident warps), of
      // 4 over longer ones (their chains of loads count more), unless the
      // batch option fixes it. The variants for any K keep the shuffle
      // loop, which needs fewer registers there.
      spec.directEntries =
          !fewRows && !kc.spmv && spec.lanes > 1 && kc.k > 0 &&
          directEntriesPay(options.operandType, range.rows(), rangeMean,
                           range.maxLength);
      // (SpMV kernels take no broadcast batches.)
      if (options.batch > 0)
        spec.batch = options.batch;
      else if (fewRows)
        spec.batch = 8;
      else if (spec.directEntries)
        spec.batch = directEntriesBatch(rangeMean);
      else
        spec.batch = manyRowsBatch(spec.lanes, rangeMean, range.maxLength,
                                   items, options.multiprocessors);
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
        kernels.push_back(growWithK(
            launch(spec.name, family, kc, std::move(args),
                   spec.ctasPerSlice * spec.kSlices),
            spec, /*base=*/0));
        continue;
      }
      // The long rows first, a CTA each, all its groups on the row (whole
      // K per group), then the other rows.
      RowKernelSpec longSpec = spec;
      longSpec.lanes = kc.lanes;
      longSpec.kSlices = 1;
      longSpec.ctasPerSlice = 1;
      longSpec.parts = maxParts(spec.threads, kc.lanes);
      longSpec.skipEmptyBatches = true;
      // A long row's CTA is the launch's critical path: straight-line
      // batches of 8 loads, whatever the other rows' groups use.
      longSpec.batch = options.batch > 0 ? options.batch : 8;
      longSpec.dynamicBatches = options.batch > 0;
      longSpec.directEntries = false;
      longSpec.source = RowSource();
      std::tie(longSpec.source.rowTable, longSpec.source.tableRows) =
          rowTable(rowPtr, threshold);
      std::vector<std::string> args = emitRowKernel(module, spec, &longSpec);
      const int64_t longCtas = longRowCtas(longSpec);
      kernels.push_back(growWithK(
          launch(spec.name,
                 family + std::string(::spperm::family::kLongSuffix), kc,
                 std::move(args), longCtas + spec.ctasPerSlice * spec.kSlices),
          spec, longCtas));
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
      split.directEntries = false;
      split.skipEmptyBatches = false;
      // A chunk is long by construction: several groups share it too.
      split.parts = kc.spmv ? 1
                            : partsFor(chunks, static_cast<double>(chunk),
                                       split.lanes, split.threads,
                                       options.multiprocessors);
      // 16-bit operands take 8 columns a lane, so a group of one K has
      // half the lanes of fp32's: where the warp and the CTA have room,
      // twice the lanes at 4 columns each (docs/Kernels.md, "Half
      // precision").
      if (half() && !kc.spmv &&
          widenSplitGroups(kc.k, split.lanes, split.vec, split.parts,
                           split.threads)) {
        split.lanes *= 2;
        split.vec /= 2;
      }
      split.outputAccumulator = spmvAccumulates || spmmAccumulates;
      split.longRowsToAccumulator = false;
      split.source = RowSource();
      split.source.chunkTable = table;
      split.source.chunks = chunks;
      split.name = symbol(sanitize(family + "_split_" + kc.variant));
      std::vector<std::string> args = emitRowKernel(module, split);
      kernels.push_back(
          launch(split.name, family + std::string(::spperm::family::kSplitSuffix), kc, std::move(args),
                 ceilDiv(chunks, split.threads / (split.lanes * split.parts))));
      if (spmvAccumulates)
        planRound(kc);
      else if (spmmAccumulates)
        planRound(kc, rowTable(rowPtr, threshold));
    }
    if (dense == DenseKernel::Tiles)
      planTiles(kc);
    else if (dense == DenseKernel::TensorCores)
      planMma(kc);
    // 16-bit: the dense blocks' kernel writes the accumulator that the row
    // kernels read, so it runs first.
    if (accumulate)
      std::rotate(kernels.begin() + firstKernel, kernels.end() - 1,
                  kernels.end());
  }

  /// The tensor-core kernel of variant `kc` (docs/Kernels.md, "bell-tf32",
  /// "bell-3xtf32", "Half precision"): adding into C, or for 16-bit
  /// operands (multiplied in their own type) writing the accumulator.
  void planMma(const KClass &kc) {
    MmaKernelSpec mma;
    mma.precision = !half() ? toMmaPrecision(options.precision)
                    : options.operandType == ::spperm::ValueType::BF16
                        ? MmaPrecision::BF16
                        : MmaPrecision::F16;
    mma.operandType = options.operandType;
    mma.valueType = options.valueType;
    setBlockShape(mma, kc);
    // K's chunks of 32 columns over as many warps per slice; parts: a
    // block row's W slots shared by up to 16 warps, doubling while the
    // warps are fewer than 32 per SM (each warp's stored blocks are a
    // chain of staging round trips: latency, hidden only by more warps).
    mma.chunkGroups = kChunkGroups(kc, 32);
    const int64_t mmaWarps =
        mma.blockRows * (mma.tau / 16) * mma.chunkGroups;
    mma.parts = 1;
    while (mma.parts < 16 && 2 * mma.parts <= mma.width &&
           mmaWarps * mma.parts < options.multiprocessors * 32)
      mma.parts *= 2;
    mma.vectorReductions = options.vectorReductions;
    mma.gridDependencies = options.gridDependencies;
    mma.name = symbol(sanitize(std::string("bell_mma_") + kc.variant));
    std::vector<std::string> mmaArgs = emitMmaKernel(module, mma);
    KernelInfo k =
        launch(mma.name, std::string(mmaFamily(mma.precision)), kc,
               std::move(mmaArgs),
               ceilDiv(mmaWarps * mma.parts, mma.threads / kWarpSize),
               mma.threads);
    // Parts add into the accumulator, which must start at zero.
    k.zeroOutput = half() && mma.parts > 1;
    kernels.push_back(std::move(k));
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
    spec.condensed = m.bell.condensed;
  }

  /// The tile kernel of variant `kc` (docs/Kernels.md, "bell-tile"):
  /// adding into C, or for 16-bit operands writing the accumulator.
  void planTiles(const KClass &kc) {
    TileKernelSpec tile;
    tile.vectorReductions = options.vectorReductions;
    tile.gridDependencies = options.gridDependencies;
    tile.operandType = options.operandType;
    tile.valueType = options.valueType;
    tile.accumulator = half();
    setBlockShape(tile, kc);
    // K's chunks of 4 * lanes columns over as many units per slice and
    // part, so that K multiplies the units in flight: the kernel is bound
    // by the latency of its B loads.
    tile.lanes = tileLanes(kc);
    tile.chunkGroups = kChunkGroups(kc, 4 * tile.lanes);
    tile.sliceRows = std::min<int64_t>(tile.tau, 16);
    tile.unroll = std::min<int64_t>(tile.tau, 8);
    // Units per CTA: 128 threads' worth, as long as their transposed
    // slices fit in 32 KiB of shared memory.
    const int64_t unitsPerCta = std::max<int64_t>(
        1, std::min<int64_t>(128 / tile.lanes,
                             32 * 1024 / (tile.sliceRows * tile.tau * 4)));
    tile.threads = unitsPerCta * tile.lanes;
    // Parts: a block row's W slots shared by up to 16 units, doubling
    // while the units make fewer than 32 warps per SM.
    const int64_t units =
        tile.blockRows * (tile.tau / tile.sliceRows) * tile.chunkGroups;
    const int64_t warps = ceilDiv(units * tile.lanes, kWarpSize);
    tile.parts = 1;
    while (tile.parts < 16 && tile.parts < tile.width &&
           warps * tile.parts < options.multiprocessors * 32)
      tile.parts *= 2;
    tile.name = symbol(sanitize(std::string("bell_tile_") + kc.variant));
    std::vector<std::string> args = emitTileKernel(module, tile);
    KernelInfo k = launch(tile.name, std::string(::spperm::family::kBellTile),
                          kc, std::move(args),
                          ceilDiv(units * tile.parts, unitsPerCta),
                          tile.threads);
    // Parts add into the accumulator, which must start at zero.
    k.zeroOutput = tile.accumulator && tile.parts > 1;
    kernels.push_back(std::move(k));
  }

  void planHbp() {
    const ::spperm::HbpStorage &h = m.hbp;
    // The walk (docs/Kernels.md, "Families", hbp): a warp group's rounds
    // in batches, up to K = kHbpRoundsMaxK, for a format with a group of at
    // least kHbpLongGroupRounds rounds; else (and for larger K, where the
    // slices fill the GPU and the batches' registers cost more than their
    // latency saves) each lane's add_sign chain.
    const std::vector<int64_t> groupRounds = hbpGroupRounds(h);
    const bool longGroups =
        !groupRounds.empty() && groupRounds.back() >= kHbpLongGroupRounds;
    auto walkFor = [&](const KClass &kc) {
      const int64_t top = kc.k > 0 ? kc.k : kc.kMax;
      return longGroups && top != 0 && top <= kHbpRoundsMaxK ? HbpWalk::Rounds
                                                             : HbpWalk::Chain;
    };
    // The format's warps; when they have no fixed blocks (fewer stored
    // blocks than warps), a warp only takes tickets, and as many warps as
    // there are competitive blocks suffice.
    const int64_t formatWarps =
        std::max<int64_t>(1, static_cast<int64_t>(h.fixedBlockPtr.size()) - 1);
    const int64_t competitive =
        static_cast<int64_t>(h.competitiveBlocks.size());
    const int64_t warps =
        !h.fixedBlocks.empty()
            ? formatWarps
            : std::max<int64_t>(1, std::min(formatWarps, competitive));
    // When the format's warps alone would not give every multiprocessor 4
    // warps, a warp runs one group of a block instead of all of them (and
    // with the rounds walk, a part of it).
    const int64_t fill = 4 * std::max<int64_t>(1, options.multiprocessors);
    const bool groupWarps = warps < fill;
    std::vector<KClass> classes;
    if (options.k == 1)
      classes = {{"k1", 1, 1, 1, 32, 1, false, 1}};
    else if (options.k > 0)
      classes = {{"k" + std::to_string(options.k), options.k, options.k, 1, 32,
                  options.k % 4 == 0 ? 4 : 1, false, options.k}};
    else if (longGroups && groupWarps && h.rowBlock > kWarpSize)
      // Parts sized for K up to kHbpPartSplitK and for K up to
      // kHbpRoundsMaxK (hbpPartRounds).
      classes = {
          {"spmv", 1, 1, 1, 32, 1, false, 1},
          {"vec4", 4, kHbpPartSplitK, 4, 32, 4, false, 0},
          {"vec4.mid", kHbpPartSplitK + 4, kHbpRoundsMaxK, 4, 32, 4, false, 0},
          {"vec4.wide", kHbpRoundsMaxK + 4, 0, 4, 32, 4, false, 0},
          {"scalar", 2, kHbpPartSplitK, 1, 32, 1, false, 0},
          {"scalar.mid", kHbpPartSplitK + 1, kHbpRoundsMaxK, 1, 32, 1, false,
           0},
          {"scalar.wide", kHbpRoundsMaxK + 1, 0, 1, 32, 1, false, 0}};
    else if (longGroups)
      classes = {{"spmv", 1, 1, 1, 32, 1, false, 1},
                 {"vec4", 4, kHbpRoundsMaxK, 4, 32, 4, false, 0},
                 {"vec4.wide", kHbpRoundsMaxK + 4, 0, 4, 32, 4, false, 0},
                 {"scalar", 2, kHbpRoundsMaxK, 1, 32, 1, false, 0},
                 {"scalar.wide", kHbpRoundsMaxK + 1, 0, 1, 32, 1, false, 0}};
    else
      classes = {{"spmv", 1, 1, 1, 32, 1, false, 1},
                 {"vec4", 4, 0, 4, 32, 4, false, 0},
                 {"scalar", 2, 0, 1, 32, 1, false, 0}};
    // Rounds a batch (HbpWalk::Rounds): the 90th percentile of the groups'
    // rounds, rounded up to a power of two, from 2 to 8 (4 when a lane
    // takes two vectors: the registers).
    const int64_t p90Rounds =
        llvm::PowerOf2Ceil(std::max<int64_t>(1, nearestRank(groupRounds, 0.9)));
    auto batchRounds = [&](int64_t unroll) {
      return std::clamp<int64_t>(p90Rounds, 2, unroll > 1 ? 4 : 8);
    };
    const int64_t totalRounds =
        std::accumulate(groupRounds.begin(), groupRounds.end(), int64_t(0));
    // The B tile is copied whole for every block a warp runs, so it pays
    // only when the blocks have entries enough to read its columns about
    // twice on average (measured: docs/Kernels.md, "Families", hbp).
    const bool denseBlocks =
        !h.blocks.empty() && static_cast<int64_t>(h.col.size()) >=
                                 2 * static_cast<int64_t>(h.colBlock) *
                                     static_cast<int64_t>(h.blocks.size());
    // The part tables by part length (variants may share one).
    std::map<int64_t, std::vector<int32_t>> partTables;
    for (const KClass &kc : classes) {
      HbpKernelSpec spec;
      spec.operandType = options.operandType;
      spec.valueType = options.valueType;
      spec.name = symbol(sanitize("hbp_" + kc.variant));
      spec.threads = options.threads;
      spec.vec = kc.vec;
      spec.k = kc.k;
      // Work items (docs/Kernels.md, "Families", hbp): a block's groups or
      // one group (above); a lane takes two vectors of a K slice when that
      // still leaves 4 warps per multiprocessor, else one.
      spec.groupWarps = groupWarps ? h.rowBlock / kWarpSize : 1;
      spec.unroll = kc.k == 1 || warps * spec.groupWarps < fill ? 1 : 2;
      spec.rowBlock = h.rowBlock;
      spec.blockCols = std::max<int32_t>(1, h.blockCols);
      spec.warps = warps;
      spec.competitive = competitive;
      spec.colBlock = h.colBlock;
      spec.cols = m.cols;
      spec.nnz = static_cast<int64_t>(h.col.size());
      spec.walk = walkFor(kc);
      // A warp that runs one group and follows the chain takes two vectors
      // when the format's groups with entries, in the slices of two
      // vectors, still make 4 warps a multiprocessor at the variant's
      // smallest K: the walk is one latency an entry, and a second vector
      // halves the walks (measured: docs/Kernels.md, "Families", hbp).
      if (spec.walk == HbpWalk::Chain && spec.groupWarps > 1 && kc.vec > 1 &&
          kc.k != 1) {
        const int64_t smallest = kc.k > 0 ? kc.k : kc.kMin;
        if (static_cast<int64_t>(groupRounds.size()) *
                ceilDiv(smallest, 2 * kc.vec) >=
            fill)
          spec.unroll = 2;
      }
      // A warp that walks parts of rounds above K = kHbpPartSplitK takes two
      // vectors when its parts would still not reach kHbpPartMaxBatches
      // batches of at most 4 rounds (two vectors' registers): the
      // second vector halves the walks; with a format of many rounds the
      // shorter batches would multiply the parts instead (measured:
      // docs/Kernels.md, "Families", hbp).
      if (spec.walk == HbpWalk::Rounds && spec.groupWarps > 1 && kc.vec > 1 &&
          (kc.k > 0 ? kc.k : kc.kMin) > kHbpPartSplitK) {
        const int64_t top = kc.k > 0 ? kc.k : kc.kMax;
        if (ceilDiv(totalRounds * ceilDiv(top, 2 * kc.vec), kHbpPartItems) <=
            kHbpPartMaxBatches * batchRounds(2))
          spec.unroll = 2;
      }
      // No more vectors than a fixed K has.
      if (kc.k > 0)
        spec.unroll = std::min(spec.unroll, ceilDiv(kc.k, spec.vec));
      spec.rounds = batchRounds(spec.unroll);
      // A warp that runs one group walks a part of it (docs/Kernels.md,
      // "Families", hbp), so that the longest group no longer sets the
      // kernel's time. The parts cover every group, fixed blocks' too, and
      // are the work items, all taken by ticket, by up to 16 warps per
      // multiprocessor and slice.
      if (spec.walk == HbpWalk::Rounds && spec.groupWarps > 1) {
        const int64_t partRounds = hbpPartRounds(
            totalRounds,
            ceilDiv(kc.k > 0 ? kc.k : kc.kMax, spec.sliceColumns()),
            spec.rounds);
        auto [it, added] = partTables.try_emplace(partRounds);
        if (added)
          it->second = hbpParts(h, partRounds, kHbpMaxParts);
        const std::vector<int32_t> &table = it->second;
        const int64_t parts =
            static_cast<int64_t>(table.size()) / kHbpPartFields;
        if (parts > 0) {
          std::tie(spec.partTable, spec.parts) = constantTable(
              "hbp_parts", "hbp/" + std::to_string(partRounds), table, parts);
          spec.groupWarps = 1;
          spec.competitive = parts;
          spec.warps = std::min(parts, 4 * fill);
        }
      }
      // The B tile, for a warp that runs whole blocks of dense enough
      // blocks: colBlock x sliceColumns() floats per warp, as many warps
      // per CTA as fit in 48 KiB of static shared memory with their
      // add_sign windows (at most 8); none when one warp's tile does not
      // fit.
      const int64_t tileBytes = int64_t(h.colBlock) * spec.sliceColumns() * 4;
      const int64_t tileWarps = std::min<int64_t>(
          8, (48 * 1024) / (tileBytes + spec.windowEntries() * 4));
      spec.sharedTile = tileWarps >= 1 && spec.groupWarps == 1 &&
                        spec.parts == 0 && denseBlocks;
      if (spec.sharedTile)
        spec.threads = 32 * tileWarps;
      // No more warps a CTA than the slice has; with parts, no more than
      // the format's warps (the CTA size measured; sizing CTAs by the
      // parts is untried).
      spec.threads =
          32 * std::min<int64_t>(spec.threads / 32, warps * spec.groupWarps);
      std::vector<std::string> args = emitHbpKernel(module, spec);
      // The B tile is static shared memory: sharedBytes stays 0. One slice
      // of ctasPerSlice() CTAs per sliceColumns() columns of K: baked in
      // for a fixed K, else a grid that grows with K.
      const int64_t width = spec.sliceColumns();
      KernelInfo k = launch(
          spec.name, std::string(::spperm::family::kHbp), kc, std::move(args),
          spec.ctasPerSlice() * (kc.k > 0 ? ceilDiv(kc.k, width) : 1),
          spec.threads);
      if (kc.k == 0) {
        k.gridCtas = spec.ctasPerSlice();
        k.gridColumns = width;
      }
      // C, or the accumulator of 16-bit operands, starts at zero.
      k.zeroOutput = true;
      kernels.push_back(std::move(k));
      if (half())
        planRound(kc);
    }
  }

  /// The round kernel that ends variant `kc` of 16-bit operands, after the
  /// kernels that add into the fp32 accumulator: over every row, or over
  /// the rows of `listed` (a row table's symbol and rows).
  void planRound(const KClass &kc,
                 std::pair<std::string, int64_t> listed = {}) {
    RoundKernelSpec round;
    round.name = symbol(sanitize("round_" + kc.variant));
    round.threads = 256;
    round.k = kc.k;
    round.vec = kc.k > 0 ? (kc.k % 8 == 0 ? 8 : kc.k % 4 == 0 ? 4 : 1)
                         : kc.vec;
    round.rows = m.rows;
    std::tie(round.rowTable, round.tableRows) = listed;
    if (!round.rowTable.empty())
      round.order = ::spperm::buffer::kOrder;
    round.operandType = options.operandType;
    round.gridDependencies = options.gridDependencies;
    // A grid-stride loop: a grid for the elements of a baked-in K, at most
    // 16 CTAs per multiprocessor, and 8 per multiprocessor for any K.
    const int64_t rows = round.rowTable.empty() ? m.rows : round.tableRows;
    const int64_t perCta = round.threads * round.vec;
    const int64_t ctas =
        kc.k > 0 ? std::min(ceilDiv(std::max<int64_t>(1, rows * kc.k), perCta),
                            options.multiprocessors * 16)
                 : options.multiprocessors * 8;
    std::vector<std::string> args = emitRoundKernel(module, round);
    kernels.push_back(launch(round.name, std::string(::spperm::family::kRound),
                             kc, std::move(args), ctas, round.threads));
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
