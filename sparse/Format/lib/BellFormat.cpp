//===- BellFormat.cpp - Blocked-ELL plus a CSR residual ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// bell (tau = bell.block, W = bell.width, BR = bell.blockRows =
// ceil(rows / tau), BC = ceil(cols / tau)):
//  * P is cut into tau x tau tiles; tile (br, bc) covers rows
//    [br*tau, br*tau + tau) and columns [bc*tau, bc*tau + tau) (edge tiles
//    are partial). A tile is dense when count / tau^2 >= delta (count = its
//    stored entries, including explicit zeros, tau^2 also for edge tiles).
//    With bellMaxWidth > 0 a block row keeps only its bellMaxWidth densest
//    dense tiles (ties: smaller bc).
//  * blockCol[br*W + w], w < W: the kept tiles of block row br in increasing
//    bc, then -1 up to W. W is the largest number of kept tiles of a block
//    row (so some block row has no padding); W = 0 and both arrays are empty
//    when nothing is kept.
//  * blockValues[(br*W + w)*tau^2 + i*tau + j] is P(br*tau + i,
//    blockCol*tau + j): the entry's value, 0 where P has no entry, where the
//    position lies outside the matrix, and everywhere in a padding slot.
//    Kernels must not read B rows >= cols for partial edge tiles.
//  * residual: P minus the entries in kept tiles (rows x cols CSR).
//  * denseNnz: the entries in kept tiles; denseNnz + residual.nnz() = nnz.
//
// Condensed columns (bell.condensed): a block row's column j is dense when
// its count (the block row's entries in column j) / tau >= delta; with
// bellMaxWidth > 0 only the bellMaxWidth * tau densest (ties: smaller j).
// The block row's dense columns, increasing, are cut into runs of tau: its
// tiles. tileCol[(br*W + w)*tau + j] is tile w's column j, -1 past the last
// dense column (the tail of the last tile, padding slots); the block row's
// W * tau entries are thus increasing, then -1. blockCol[br*W + w] is the
// tile's first column, or -1 for padding. blockValues[(br*W + w)*tau^2 +
// i*tau + j] = P(br*tau + i, tileCol[...j]), 0 where P has no entry, the
// row lies outside the matrix or the column is -1. W is the most tiles of
// a block row.
//
// Column mode (bellColumns): blocks or condensed as asked; auto prices both
// at their best delta and takes the cheaper, ties to blocks.
//
// The delta search (bellDelta <= 0): every delta in {0.05, 0.10, ..., 1.00}
// (i / 20.0) is evaluated with bellCost at K = kBellSearchK; the cheapest
// wins, ties to the larger delta; splits whose blockValues would exceed
// kBellMaxValues are skipped. bellCost (byte-equivalents, F = kFlopsPerByte
// flops per byte, the fp32 CUDA-core machine balance of an H100):
//   slots = blockRows * W            (padding slots included: stored, read)
//   dense = slots * (4 tau^2 + 4                 A values and block column
//                    (+ 4 tau condensed)         tile columns
//                    + 4 tau K                   B: tau rows, K columns
//                    + 2 tau^2 K / F)            dense FMAs
//   resid = 4 (rows + 1) + residualNnz * (8 + 4K + 2K / F)
//                                                col + value, a B row
//                                                gathered, FMAs
//
// This file: building bell (the tiles, the delta search, the split), its
// verification and the cost model, bellCost.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatsDetail.h"

#include "spperm/Sparse/Permutation.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// fp32 flops per byte of HBM traffic the cost model charges (H100 SXM:
/// ~50 TFLOP/s sustained fp32 FMA over ~3.35 TB/s, rounded to a power of 2).
constexpr double kFlopsPerByte = 16.0;
/// Most Blocked-ELL values a split may store (1 GiB of floats).
constexpr int64_t kBellMaxValues = int64_t{1} << 28;

int32_t log2Exact(int32_t v) {
  int32_t s = 0;
  while ((int32_t{1} << s) < v)
    ++s;
  return s;
}

/// A unit of a block row holding entries: a tau x tau tile (key = its
/// block column) or a column (key = the column), with its entry count.
struct Unit {
  int32_t blockRow;
  int32_t key;
  int32_t count;
};

/// The non-empty units of `p`'s block rows of 2^rowShift rows, keyed by
/// column >> colShift: tiles for colShift = rowShift, condensed columns for
/// colShift = 0. Ordered by (blockRow, key).
std::vector<Unit> collectUnits(const CsrMatrix &p, int32_t rowShift,
                               int32_t colShift) {
  std::vector<Unit> units;
  std::vector<int32_t> keys;
  const int32_t tau = int32_t{1} << rowShift;
  const int64_t blockRows = ceilDiv(p.rows, tau);
  for (int64_t br = 0; br < blockRows; ++br) {
    keys.clear();
    int64_t end = std::min<int64_t>(p.rows, (br + 1) * tau);
    for (int64_t r = br * tau; r < end; ++r)
      for (int32_t k = p.rowPtr[r]; k < p.rowPtr[r + 1]; ++k)
        keys.push_back(p.colIdx[k] >> colShift);
    if (tau > 1)
      std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size();) {
      size_t j = i;
      while (j < keys.size() && keys[j] == keys[i])
        ++j;
      units.push_back({static_cast<int32_t>(br), keys[i],
                       static_cast<int32_t>(j - i)});
      i = j;
    }
  }
  return units;
}

/// A choice of kept units.
struct BellSplit {
  int64_t width = 0;
  int64_t denseNnz = 0;
};

/// Marks in `kept` the units stored dense for `delta`: per block row those
/// of count / area >= delta, at most `most` of them when most > 0 (the
/// largest counts, ties to the smaller key). A slot holds `perSlot` units
/// (1 tile, or tau condensed columns), so the width is the most slots a
/// block row fills.
BellSplit selectUnits(const std::vector<Unit> &units, double area,
                      double delta, int64_t most, int64_t perSlot,
                      std::vector<char> &kept) {
  BellSplit split;
  kept.assign(units.size(), 0);
  std::vector<size_t> dense;
  for (size_t i = 0; i < units.size();) {
    size_t j = i;
    dense.clear();
    for (; j < units.size() && units[j].blockRow == units[i].blockRow; ++j)
      if (static_cast<double>(units[j].count) / area >= delta)
        dense.push_back(j);
    if (most > 0 && dense.size() > static_cast<size_t>(most)) {
      std::partial_sort(dense.begin(), dense.begin() + most, dense.end(),
                        [&](size_t x, size_t y) {
                          if (units[x].count != units[y].count)
                            return units[x].count > units[y].count;
                          return x < y;
                        });
      dense.resize(most);
    }
    for (size_t t : dense) {
      kept[t] = 1;
      split.denseNnz += units[t].count;
    }
    split.width = std::max<int64_t>(
        split.width, ceilDiv(static_cast<int64_t>(dense.size()), perSlot));
    i = j;
  }
  return split;
}

int64_t bellValueCount(int64_t blockRows, int64_t width, int32_t tau) {
  return blockRows * width * tau * tau;
}

/// The cheapest split of one column mode: its delta and cost.
struct DeltaChoice {
  double delta = 0;
  double cost = std::numeric_limits<double>::infinity();
};

/// Prices `select(delta)` (a BellSplit) for `delta`, or for every search
/// candidate when delta <= 0 (the cheapest wins, ties to the larger delta).
/// Splits needing more than kBellMaxValues values are skipped; none left
/// gives an infinite cost.
template <typename Select>
DeltaChoice chooseDelta(const CsrMatrix &m, int32_t tau, double delta,
                        bool condensed, Select &&select) {
  DeltaChoice best;
  const int64_t blockRows = ceilDiv(m.rows, tau);
  auto price = [&](double candidate) {
    BellSplit split = select(candidate);
    if (bellValueCount(blockRows, split.width, tau) > kBellMaxValues)
      return;
    BellCostShape shape;
    shape.block = tau;
    shape.blockRows = blockRows;
    shape.width = split.width;
    shape.rows = m.rows;
    shape.residualNnz = m.nnz() - split.denseNnz;
    shape.condensed = condensed;
    double cost = bellCost(shape, kBellSearchK);
    if (cost < best.cost) {
      best.cost = cost;
      best.delta = candidate;
    }
  };
  if (delta > 0) {
    price(delta);
    return best;
  }
  for (int i = 20; i >= 1; --i)
    price(i / 20.0);
  return best;
}

/// Where a bell layer stores each (position, column): the index of its
/// value in blockValues, or -1 when it belongs to the residual; and the
/// *unit* that delta applies to (a tile, or a condensed tile column).
class BellLocator {
public:
  explicit BellLocator(const BellStorage &b)
      : b(b), tau(b.block), shift(log2Exact(b.block)), width(b.width) {}

  /// The value index of P(p, c) in the kept tiles, or -1.
  int64_t valueIndex(int64_t p, int32_t c) const {
    if (width == 0)
      return -1;
    const int64_t br = p >> shift, i = p & (tau - 1);
    // Padding (-1) sorts last in both lists.
    auto before = [](int32_t x, int32_t y) { return x != -1 && x < y; };
    if (b.condensed) {
      const int32_t *list = b.tileCol.data() + br * width * tau;
      const int32_t *end = list + width * tau;
      const int32_t *it = std::lower_bound(list, end, c, before);
      if (it == end || *it != c)
        return -1;
      const int64_t q = it - list;
      return (br * width + q / tau) * tau * tau + i * tau + q % tau;
    }
    const int32_t *list = b.blockCol.data() + br * width;
    const int32_t *end = list + width;
    const int32_t bc = c >> shift;
    const int32_t *it = std::lower_bound(list, end, bc, before);
    if (it == end || *it != bc)
      return -1;
    return (br * width + (it - list)) * tau * tau + i * tau + (c & (tau - 1));
  }

  /// The unit of a value index (a slot, or a slot's column) and its area.
  int64_t unitOf(int64_t valueIndex) const {
    const int64_t slot = valueIndex / (tau * tau);
    return b.condensed ? slot * tau + valueIndex % tau : slot;
  }
  int64_t unitArea() const { return b.condensed ? tau : tau * tau; }
  int64_t units() const {
    return int64_t{b.blockRows} * width * (b.condensed ? tau : 1);
  }
  /// Whether a unit holds (part of) a kept tile.
  bool unitKept(int64_t unit) const {
    return b.condensed ? b.tileCol[unit] >= 0 : b.blockCol[unit] >= 0;
  }

private:
  const BellStorage &b;
  const int64_t tau;
  const int32_t shift;
  const int64_t width;
};

/// Lists the kept units in bell's slots: for consecutive blocks each kept
/// tile's block column; for condensed tiles each kept column in tileCol,
/// tau to a slot, and each slot's first column in blockCol.
void listKeptUnits(const std::vector<Unit> &units,
                   const std::vector<char> &kept, BellStorage &bell) {
  const int64_t width = bell.width, perSlot = bell.condensed ? bell.block : 1;
  std::vector<int64_t> used(static_cast<size_t>(bell.blockRows), 0);
  if (bell.condensed)
    bell.tileCol.assign(bell.blockCol.size() * bell.block, -1);
  for (size_t t = 0; t < units.size(); ++t) {
    if (!kept[t])
      continue;
    const int64_t br = units[t].blockRow, q = used[br]++;
    const int64_t slot = br * width + q / perSlot;
    if (!bell.condensed) {
      bell.blockCol[slot] = units[t].key;
      continue;
    }
    bell.tileCol[br * width * perSlot + q] = units[t].key;
    if (q % perSlot == 0)
      bell.blockCol[slot] = units[t].key;
  }
}

/// Puts each entry of `p` into its kept tile (the lists are filled) or,
/// in order, into the residual.
void fillValues(const CsrMatrix &p, BellStorage &bell) {
  const BellLocator locate(bell);
  CsrMatrix &res = bell.residual;
  for (int32_t r = 0; r < p.rows; ++r) {
    for (int32_t k = p.rowPtr[r]; k < p.rowPtr[r + 1]; ++k) {
      const int32_t c = p.colIdx[k];
      if (int64_t at = locate.valueIndex(r, c); at >= 0) {
        bell.blockValues[at] = p.values[k];
        continue;
      }
      res.colIdx.push_back(c);
      res.values.push_back(p.values[k]);
    }
    res.rowPtr[r + 1] = static_cast<int32_t>(res.colIdx.size());
  }
}

} // namespace

StatusOr<FormattedMatrix> detail::buildBell(const CsrMatrix &m,
                                            const std::vector<int32_t> &order,
                                            const FormatOptions &options) {
  FormattedMatrix f = startFormat(m, order, FormatKind::Bell);
  CsrMatrix p = permuteRows(m, order);

  const int32_t tau = options.bellBlock;
  const int32_t shift = log2Exact(tau);
  const int64_t blockRows = ceilDiv(m.rows, tau);
  const int64_t cap = options.bellMaxWidth;
  const double tileArea = static_cast<double>(tau) * tau;
  std::vector<char> kept;

  // Each column mode the options allow, priced at its best delta; the
  // cheaper wins, ties to consecutive blocks. Tiles are the units of
  // consecutive blocks (one a slot); columns those of condensed tiles (tau
  // a slot).
  std::vector<Unit> tiles, columns;
  DeltaChoice blocks, condensed;
  if (options.bellColumns != BellColumns::Condensed) {
    tiles = collectUnits(p, shift, shift);
    blocks = chooseDelta(m, tau, options.bellDelta, false, [&](double d) {
      return selectUnits(tiles, tileArea, d, cap, 1, kept);
    });
  }
  if (options.bellColumns != BellColumns::Blocks) {
    columns = collectUnits(p, shift, 0);
    condensed = chooseDelta(m, tau, options.bellDelta, true, [&](double d) {
      return selectUnits(columns, tau, d, cap * tau, tau, kept);
    });
  }
  const bool useCondensed = condensed.cost < blocks.cost;
  const double delta = useCondensed ? condensed.delta : blocks.delta;
  if (!(delta > 0)) {
    if (options.bellDelta > 0)
      return Status::error("bell: delta " + std::to_string(options.bellDelta) +
                           " needs more than " + str(kBellMaxValues) +
                           " Blocked-ELL values");
    return Status::error("bell: every delta candidate needs more than " +
                         str(kBellMaxValues) + " Blocked-ELL values");
  }

  const std::vector<Unit> &units = useCondensed ? columns : tiles;
  BellSplit split =
      useCondensed ? selectUnits(columns, tau, delta, cap * tau, tau, kept)
                   : selectUnits(tiles, tileArea, delta, cap, 1, kept);
  BellStorage &bell = f.bell;
  bell.block = tau;
  bell.width = static_cast<int32_t>(split.width);
  bell.blockRows = static_cast<int32_t>(blockRows);
  bell.delta = delta;
  bell.denseNnz = split.denseNnz;
  bell.condensed = useCondensed;
  bell.blockCol.assign(static_cast<size_t>(blockRows * split.width), -1);
  bell.blockValues.assign(
      static_cast<size_t>(bellValueCount(blockRows, split.width, tau)), 0.0f);
  CsrMatrix &res = bell.residual;
  res.rows = m.rows;
  res.cols = m.cols;
  res.rowPtr.assign(static_cast<size_t>(m.rows) + 1, 0);
  res.colIdx.reserve(static_cast<size_t>(m.nnz() - split.denseNnz));
  res.values.reserve(static_cast<size_t>(m.nnz() - split.denseNnz));
  listKeptUnits(units, kept, bell);
  fillValues(p, bell);
  return f;
}

namespace {

/// The structure of consecutive tiles: block columns in range, increasing,
/// padding last; zero values outside the matrix and in padding. Counts
/// the in-range positions of kept tiles and the non-zero values there.
Status verifyBlocks(const FormattedMatrix &f, int64_t &positions,
                    int64_t &nonZero) {
  const BellStorage &b = f.bell;
  const int64_t tau = b.block, area = tau * tau, width = b.width;
  const int64_t blockCols = ceilDiv(f.cols, tau);
  if (!b.tileCol.empty())
    return fail("bell format: tileCol is set but the columns are not "
                "condensed");
  int64_t widest = 0;
  for (int64_t br = 0; br < b.blockRows; ++br) {
    int64_t n = 0;
    for (int64_t w = 0; w < width; ++w) {
      int32_t bc = b.blockCol[br * width + w];
      const float *v = b.blockValues.data() + (br * width + w) * area;
      if (bc == -1) {
        for (int64_t i = 0; i < area; ++i)
          if (v[i] != 0.0f)
            return fail("bell format: padding slot " + str(w) +
                        " of block row " + str(br) + " has a non-zero value");
        continue;
      }
      if (bc < 0 || bc >= blockCols)
        return fail("bell format: block column " + str(bc) +
                    " of block row " + str(br) + " is out of range [0, " +
                    str(blockCols) + ")");
      if (n != w)
        return fail("bell format: block row " + str(br) +
                    " has a block after padding");
      if (w > 0 && b.blockCol[br * width + w - 1] >= bc)
        return fail("bell format: block columns of block row " + str(br) +
                    " are not strictly increasing");
      ++n;
      for (int64_t i = 0; i < tau; ++i)
        for (int64_t j = 0; j < tau; ++j) {
          float x = v[i * tau + j];
          bool inside = br * tau + i < f.rows && int64_t{bc} * tau + j < f.cols;
          if (!inside && x != 0.0f)
            return fail("bell format: block (" + str(br) + ", " + str(bc) +
                        ") has a non-zero value outside the matrix");
          positions += inside;
          nonZero += inside && x != 0.0f;
        }
    }
    widest = std::max(widest, n);
  }
  if (widest != width)
    return fail("bell format: width " + str(width) +
                " but the widest block row has " + str(widest) + " blocks");
  return Status::ok();
}

/// The structure of condensed tiles: a block row's tile columns in range
/// and strictly increasing across its tiles, -1 only as their tail, each
/// kept tile's blockCol its first column; zero values in -1 columns,
/// outside the matrix and in padding. Counts as verifyBlocks does.
Status verifyCondensed(const FormattedMatrix &f, int64_t &positions,
                       int64_t &nonZero) {
  const BellStorage &b = f.bell;
  const int64_t tau = b.block, area = tau * tau, width = b.width;
  if (static_cast<int64_t>(b.tileCol.size()) !=
      int64_t{b.blockRows} * width * tau)
    return fail("bell format: tileCol has " + str(b.tileCol.size()) +
                " entries, expected blockRows * width * block = " +
                str(int64_t{b.blockRows} * width * tau));
  int64_t widest = 0;
  for (int64_t br = 0; br < b.blockRows; ++br) {
    const int32_t *list = b.tileCol.data() + br * width * tau;
    int64_t used = 0;
    while (used < width * tau && list[used] != -1) {
      if (list[used] < 0 || list[used] >= f.cols)
        return fail("bell format: tile column " + str(list[used]) +
                    " of block row " + str(br) + " is out of range [0, " +
                    str(f.cols) + ")");
      if (used > 0 && list[used - 1] >= list[used])
        return fail("bell format: tile columns of block row " + str(br) +
                    " are not strictly increasing");
      ++used;
    }
    for (int64_t q = used; q < width * tau; ++q)
      if (list[q] != -1)
        return fail("bell format: block row " + str(br) +
                    " has a tile column after padding");
    const int64_t tiles = ceilDiv(used, tau);
    widest = std::max(widest, tiles);
    for (int64_t w = 0; w < width; ++w) {
      const int32_t bc = b.blockCol[br * width + w];
      const int32_t expected = w < tiles ? list[w * tau] : -1;
      if (bc != expected)
        return fail("bell format: block column " + str(bc) + " of slot " +
                    str(w) + " of block row " + str(br) + ", expected " +
                    str(expected) + " (the tile's first column)");
      const float *v = b.blockValues.data() + (br * width + w) * area;
      for (int64_t i = 0; i < tau; ++i)
        for (int64_t j = 0; j < tau; ++j) {
          float x = v[i * tau + j];
          bool inside = br * tau + i < f.rows && w * tau + j < used;
          if (!inside && x != 0.0f)
            return fail("bell format: slot " + str(w) + " of block row " +
                        str(br) +
                        " has a non-zero value outside its rows and columns");
          positions += inside;
          nonZero += inside && x != 0.0f;
        }
    }
  }
  if (widest != width)
    return fail("bell format: width " + str(width) +
                " but the widest block row has " + str(widest) + " tiles");
  return Status::ok();
}

} // namespace

Status detail::verifyBellFormat(const FormattedMatrix &f,
                                const CsrMatrix *original) {
  const BellStorage &b = f.bell;
  if (!isBellBlock(b.block))
    return fail("bell format: block " + str(b.block) +
                " is not 1, 2, 4, 8, 16 or 32");
  const int32_t tau = b.block;
  const int64_t area = int64_t{tau} * tau;
  if (b.blockRows != ceilDiv(f.rows, tau))
    return fail("bell format: blockRows " + str(b.blockRows) +
                ", expected ceil(" + str(f.rows) + " / " + str(tau) + ")");
  if (b.width < 0)
    return fail("bell format: negative width " + str(b.width));
  if (!(b.delta > 0 && b.delta <= 1))
    return fail("bell format: delta " + std::to_string(b.delta) +
                " is not in (0, 1]");
  const int64_t width = b.width;
  const int64_t slots = int64_t{b.blockRows} * width;
  if (static_cast<int64_t>(b.blockCol.size()) != slots)
    return fail("bell format: blockCol has " + str(b.blockCol.size()) +
                " entries, expected blockRows * width = " + str(slots));
  if (b.blockValues.size() % area != 0 ||
      static_cast<int64_t>(b.blockValues.size() / area) != slots)
    return fail("bell format: blockValues has " + str(b.blockValues.size()) +
                " entries, expected blockRows * width * block^2");
  // In-range positions of kept tiles, and non-zero values among them.
  int64_t positions = 0, nonZero = 0;
  if (Status s = b.condensed ? verifyCondensed(f, positions, nonZero)
                             : verifyBlocks(f, positions, nonZero);
      !s)
    return s;

  const CsrMatrix &res = b.residual;
  if (Status s = res.verify(); !s)
    return fail("bell format: residual: " + s.message());
  if (res.rows != f.rows || res.cols != f.cols)
    return fail("bell format: residual is " + str(res.rows) + " x " +
                str(res.cols) + ", expected " + str(f.rows) + " x " +
                str(f.cols));
  if (b.denseNnz < 0 || b.denseNnz + res.nnz() != f.nnz)
    return fail("bell format: denseNnz " + str(b.denseNnz) + " + residual " +
                str(res.nnz()) + " != nnz " + str(f.nnz));
  if (b.denseNnz > positions || b.denseNnz < nonZero)
    return fail("bell format: denseNnz " + str(b.denseNnz) +
                " does not fit the " + str(nonZero) +
                " non-zero values of the dense blocks");

  const BellLocator locate(b);
  for (int32_t p = 0; p < res.rows; ++p)
    for (int32_t k = res.rowPtr[p]; k < res.rowPtr[p + 1]; ++k)
      if (locate.valueIndex(p, res.colIdx[k]) >= 0)
        return fail("bell format: residual entry (" + str(p) + ", " +
                    str(res.colIdx[k]) + ") lies in a dense block");
  if (!original)
    return Status::ok();

  // Every original entry is in its kept tile (exact bits) or next in the
  // residual row; the counts then make this a bijection.
  std::vector<int32_t> unitCount(static_cast<size_t>(locate.units()), 0);
  int64_t dense = 0, denseNonZero = 0;
  for (int32_t p = 0; p < f.rows; ++p) {
    int32_t r = f.order[p];
    int32_t k = res.rowPtr[p];
    for (int32_t e = original->rowPtr[r]; e < original->rowPtr[r + 1]; ++e) {
      int32_t c = original->colIdx[e];
      float v = original->values[e];
      int64_t at = locate.valueIndex(p, c);
      if (at >= 0) {
        if (!sameBits(b.blockValues[at], v))
          return fail("bell format: entry (" + str(p) + ", " + str(c) +
                      ") of the dense blocks differs from the original");
        ++unitCount[locate.unitOf(at)];
        ++dense;
        denseNonZero += v != 0.0f;
        continue;
      }
      if (k >= res.rowPtr[p + 1] || res.colIdx[k] != c ||
          !sameBits(res.values[k], v))
        return fail("bell format: original entry (" + str(r) + ", " + str(c) +
                    ") is missing from row " + str(p) + " of the residual");
      ++k;
    }
    if (k != res.rowPtr[p + 1])
      return fail("bell format: residual row " + str(p) +
                  " has entries the original row " + str(r) + " lacks");
  }
  if (dense != b.denseNnz)
    return fail("bell format: denseNnz " + str(b.denseNnz) + ", but " +
                str(dense) + " original entries lie in dense blocks");
  if (denseNonZero != nonZero)
    return fail("bell format: the dense blocks hold non-zero values where "
                "the original has no entry");
  for (int64_t u = 0; u < locate.units(); ++u)
    if (locate.unitKept(u) &&
        static_cast<double>(unitCount[u]) /
                static_cast<double>(locate.unitArea()) <
            b.delta)
      return fail(std::string("bell format: ") +
                  (b.condensed ? "tile column " : "block slot ") + str(u) +
                  " holds " + str(unitCount[u]) + " entries, below delta");
  return Status::ok();
}

double spperm::bellCost(const BellCostShape &shape, int64_t k) {
  const double tau = shape.block, K = static_cast<double>(k);
  const double slots = static_cast<double>(shape.blockRows) *
                       static_cast<double>(shape.width);
  const double index = shape.condensed ? 4 + 4 * tau : 4;
  const double dense = slots * (4 * tau * tau + index + 4 * tau * K +
                                2 * tau * tau * K / kFlopsPerByte);
  const double residual =
      4 * (static_cast<double>(shape.rows) + 1) +
      static_cast<double>(shape.residualNnz) * (8 + 4 * K + 2 * K / kFlopsPerByte);
  return dense + residual;
}
