//===- Formats.h - Storage formats of a fixed sparse matrix -----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The storage formats a matrix is compiled to, each built from the CSR and a
// row permutation (docs/Formats.md maps them to the formats of the seeds):
//
//  * csr  — the rows in permuted order (a plain CSR when the permutation is
//           the identity; JDS is `plain` + csr).
//  * bell — BSA: the permuted matrix tiled into tau x tau blocks; blocks of
//           density >= delta go to Blocked-ELL (per block row a list of
//           `width` block columns, -1 padded, with dense row-major values),
//           every other entry to a CSR residual. tau = 1 gives ELL/HYB.
//           With condensed columns a block row's tiles hold any tau of its
//           columns (those of density >= delta, in increasing order), so
//           rows that share scattered columns share one B row per column.
//  * hbp  — HBP (hash-based 2-D partition): row blocks of `rowBlock` rows and
//           column blocks of `colBlock` columns; inside each block the rows
//           are reordered by the nonlinear hash; col, data, add_sign,
//           zero_row, begin_nnz and output_hash arrays; fixed and
//           competitive blocks.
//
// Every format keeps `order` (position -> original row), and the executors
// write C in the original row order.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_FORMATS_H
#define SPPERM_SPARSE_FORMATS_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/HalfFloat.h"
#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace spperm {

/// The storage formats.
enum class FormatKind { Csr, Bell, Hbp };

/// `csr`, `bell`, `hbp`.
std::string_view formatName(FormatKind kind);

/// The storage format named `name` (formatName's inverse); nullopt for any
/// other name (`cusparse` included: it has no storage of its own).
std::optional<FormatKind> parseFormatKind(std::string_view name);

/// How a bell layer's tiles pick their columns.
enum class BellColumns {
  /// Whichever of the two the cost model (bellCost) prices lower.
  Auto,
  /// tau consecutive columns: tile (br, bc) covers [bc*tau, bc*tau + tau).
  Blocks,
  /// Any tau columns of the block row: the block row's columns of density
  /// >= delta, in increasing order, cut into runs of tau (docs/Formats.md).
  Condensed,
};

/// `auto`, `blocks`, `condensed`.
std::string_view bellColumnsName(BellColumns columns);

/// Parameters of the formats. Zero/negative means "choose automatically"
/// where noted.
struct FormatOptions {
  FormatKind kind = FormatKind::Csr;
  /// bell: tile size tau, one of 1, 2, 4, 8, 16, 32.
  int32_t bellBlock = 16;
  /// bell: density threshold delta in (0, 1]; <= 0 searches for the delta
  /// that minimizes the cost estimate (bellCost).
  double bellDelta = -1.0;
  /// bell: at most this many dense blocks per block row (the densest, ties
  /// to the smaller block column); the others go to the residual. 0 means no
  /// cap. With bellBlock = 1 this is HYB's ELL width.
  int32_t bellMaxWidth = 0;
  /// bell: consecutive or condensed tile columns. Consecutive blocks are
  /// the default: on the H100/H200 the bell-tile kernel ran condensed
  /// tiles of the cost model's choice slower than the row kernel on most
  /// matrices (docs/Formats.md, "Condensed columns").
  BellColumns bellColumns = BellColumns::Blocks;
  /// hbp: rows per row block (a positive multiple of 32).
  int32_t hbpRowBlock = 512;
  /// hbp: columns per column block (its B tile must fit in shared memory).
  int32_t hbpColBlock = 4096;
  /// hbp: the fraction of blocks assigned statically (fixed); the rest are
  /// competitive (taken with an atomic ticket).
  double hbpFixedFraction = 0.75;
  /// hbp: the warps the fixed blocks are distributed over.
  int32_t hbpWarps = 1024;
};

/// Blocked-ELL dense blocks plus a CSR residual, in the permuted row space.
struct BellStorage {
  int32_t block = 0;
  /// Block columns per block row (the ELL width), >= 1 unless no block is
  /// dense.
  int32_t width = 0;
  /// ceil(rows / block).
  int32_t blockRows = 0;
  /// blockRows * width block-column indices; -1 marks padding.
  std::vector<int32_t> blockCol;
  /// blockRows * width * block * block values, each block row-major; zero
  /// where the block has no entry (and for padding).
  std::vector<float> blockValues;
  /// The entries outside dense blocks, rows in permuted order.
  CsrMatrix residual;
  /// The threshold used.
  double delta = 0.0;
  /// Entries stored in dense blocks.
  int64_t denseNnz = 0;
  /// Whether the tiles' columns are condensed (tileCol) rather than
  /// consecutive from blockCol * block.
  bool condensed = false;
  /// Condensed only: blockRows * width * block column indices, the columns
  /// of each tile's `block` value columns; -1 where a tile has fewer (the
  /// tail of a block row's last tile, padding slots). Then blockCol[s] is
  /// tileCol[s * block], the tile's first column, or -1 for padding.
  std::vector<int32_t> tileCol;
};

/// HBP arrays (layout documented in docs/Formats.md). Only blocks holding
/// entries are stored; "stored block s" is blocks[s].
struct HbpStorage {
  int32_t rowBlock = 0;
  int32_t colBlock = 0;
  int32_t blockRows = 0;
  int32_t blockCols = 0;
  /// The stored (non-empty) blocks as row-major block indices
  /// (blockRow * blockCols + blockCol), strictly increasing.
  std::vector<int32_t> blocks;
  /// Per entry, in storage order: column (global), value, and the distance
  /// to the next entry of the same row in the block (-1 for the last).
  std::vector<int32_t> col;
  std::vector<float> data;
  std::vector<int32_t> addSign;
  /// Per (stored block, slot), blocks.size() * rowBlock: -1 for a row
  /// without entries in the block, else the number of empty rows before it
  /// in its warp group.
  std::vector<int32_t> zeroRow;
  /// Per (stored block, warp group), blocks.size() * rowBlock / 32 + 1: the
  /// storage position of the group's first entry; the last element is nnz.
  std::vector<int64_t> beginNnz;
  /// Per (stored block, slot): the row of the block (0 .. rowBlock-1) that
  /// the slot computes (the inverse of the hash reordering).
  std::vector<int32_t> outputHash;
  /// Stored blocks (indices into `blocks`) assigned statically, per warp
  /// (warp w runs fixedBlocks[fixedBlockPtr[w] .. fixedBlockPtr[w + 1]]),
  /// and the competitive ones in ticket order.
  std::vector<int32_t> fixedBlocks;
  std::vector<int32_t> fixedBlockPtr;
  std::vector<int32_t> competitiveBlocks;
  /// The hash parameters sampled from the matrix (a, c) and fixed (b, d).
  int32_t hashA = 0, hashB = 0, hashC = 0, hashD = 0;
};

/// A matrix in one storage format, ready to execute or to package.
struct FormattedMatrix {
  int32_t rows = 0;
  int32_t cols = 0;
  int64_t nnz = 0;
  FormatKind kind = FormatKind::Csr;
  /// order[i] = original row stored at position i.
  std::vector<int32_t> order;
  /// csr: the permuted matrix.
  CsrMatrix csr;
  BellStorage bell;
  HbpStorage hbp;
};

/// Checks the ranges of the options `options.kind` uses.
Status validateFormatOptions(const FormatOptions &options);

/// What the bell cost model sees of a split into Blocked-ELL and residual.
struct BellCostShape {
  int32_t block = 0;
  int64_t blockRows = 0;
  int64_t width = 0;
  int64_t rows = 0;
  int64_t residualNnz = 0;
  /// Condensed columns: each slot also stores its `block` column indices.
  bool condensed = false;
};
/// The K the delta search evaluates bellCost at.
constexpr int64_t kBellSearchK = 32;
/// The cost estimate of a GPU SpMM with `k` columns on that split, in bytes
/// of memory traffic plus flops converted at the fp32 machine balance
/// (docs/Formats.md gives the formula).
double bellCost(const BellCostShape &shape, int64_t k);

/// Builds `options.kind` from `m` and a permutation `order` of its rows.
StatusOr<FormattedMatrix> buildFormat(const CsrMatrix &m,
                                      const std::vector<int32_t> &order,
                                      const FormatOptions &options);

/// Checks every structural invariant of `f` (sizes, bounds, that the format
/// holds exactly m's entries when `original` is given). Used in debug builds,
/// by tests, and by the runtime on loaded packages.
Status verifyFormat(const FormattedMatrix &f,
                    const CsrMatrix *original = nullptr);

/// Statistics for reports.
struct FormatStats {
  /// bell: stored block values / entries in dense blocks (>= 1).
  double fillRatio = 0.0;
  /// bell: entries in dense blocks / nnz.
  double denseNnzShare = 0.0;
  /// hbp: mean over warp groups of the standard deviation of the row
  /// lengths in the group, before and after the hash reordering.
  double hbpGroupStdBefore = 0.0;
  double hbpGroupStdAfter = 0.0;
};
FormatStats computeFormatStats(const FormattedMatrix &f,
                               const CsrMatrix &original);

/// The matrix `f` stores, back in CSR form in the ORIGINAL row order (rows
/// sorted by column, values exactly as stored; zero values inside dense
/// Blocked-ELL blocks are not entries). The reference path hands it to
/// cuSPARSE.
CsrMatrix toOriginalCsr(const FormattedMatrix &f);

/// C = A * B on the CPU. B is cols x k row-major, C is rows x k row-major
/// in the ORIGINAL row order; every element of C is written. Accumulates in
/// float in a fixed order (deterministic).
void spmmCpu(const FormattedMatrix &a, const float *b, int64_t k, float *c);

/// spmmCpu with B and C of the 16-bit type `type` (F16 or BF16, as bit
/// patterns; HalfFloat.h): B converts to fp32 exactly, the products
/// accumulate in fp32 in spmmCpu's order, and each element of C is rounded
/// once, to nearest even, as it is stored (docs/Dialects/SpPerm.md,
/// `spperm.spmm`). GPU kernels add in other orders, so their C may differ
/// from this one by the rounding of a different fp32 sum. A's values are
/// used as stored: fp32 weights, or values already rounded to `type`
/// (roundToValueType).
void spmmCpu(const FormattedMatrix &a, const uint16_t *b, ValueType type,
             int64_t k, uint16_t *c);

} // namespace spperm

#endif // SPPERM_SPARSE_FORMATS_H
