//===- Formats.cpp - Storage formats of a fixed sparse matrix ---*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Conversion of a CSR matrix and a row permutation into csr, bell and hbp,
// their verification, statistics and CPU executors. docs/Formats.md has the
// same layouts with examples; this comment is the reference the kernels and
// the package code follow. Throughout, P is the permuted matrix: row p of P
// is row order[p] of the original, and every executor writes row p's result
// to row order[p] of C.
//
// csr: `csr` is P.
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
// The delta search (bellDelta <= 0): every delta in {0.05, 0.10, ..., 1.00}
// (i / 20.0) is evaluated with bellCost at K = kBellSearchK; the cheapest
// wins, ties to the larger delta; splits whose blockValues would exceed
// kBellMaxValues are skipped. bellCost (byte-equivalents, F = kFlopsPerByte
// flops per byte, the fp32 CUDA-core machine balance of an H100):
//   slots = blockRows * W            (padding slots included: stored, read)
//   dense = slots * (4 tau^2 + 4                 A values and block column
//                    + 4 tau K                   B: tau rows, K columns
//                    + 2 tau^2 K / F)            dense FMAs
//   resid = 4 (rows + 1) + residualNnz * (8 + 4K + 2K / F)
//                                                col + value, a B row
//                                                gathered, FMAs
//
// hbp (R = rowBlock, a multiple of 32, G = R / 32 warp groups, CB =
// colBlock):
//  * Block (br, bc) covers P's rows [br*R, br*R + R) and columns
//    [bc*CB, bc*CB + CB). Only blocks with entries are stored, in row-major
//    order (blocks[s] = br*blockCols + bc, strictly increasing), so blocks
//    of one block row are consecutive and in increasing bc.
//  * Stored block s has R slots (s*R + t). The hash (below) reorders the R
//    local rows r (row br*R + r of P; rows past the matrix are empty) into
//    slots: outputHash[s*R + t] = r. Slot t is lane t % 32 of warp group
//    t / 32. A lane whose row has no entries in the block (or does not
//    exist) has zeroRow = -1; the others have zeroRow = the number of
//    zeroRow = -1 lanes before it in its group, so q = lane - zeroRow is the
//    lane's rank among the group's non-empty lanes.
//  * Entries: stored blocks in order, within a block the groups in order,
//    within a group column-major: round j = 0, 1, ... emits the j-th entry
//    (by increasing column) of every non-empty lane that has one, lanes in
//    increasing order. beginNnz[s*G + g] is the position of the group's
//    first entry (S*G + 1 elements, the last one nnz), so non-empty lane q's
//    first entry is at beginNnz[s*G + g] + q and round 0 is read coalesced.
//    col (global column), data and addSign are per entry; addSign is the
//    distance to the same lane's next entry (> 0), -1 on its last one.
//  * A warp runs a block group by group: lane t reads zeroRow; -1 gives
//    partial 0, else j = beginNnz + t - zeroRow, loop { sum += data[j] *
//    B[col[j]]; if addSign[j] < 0 stop; j += addSign[j] }; the partial goes
//    to row br*R + outputHash (when < rows). The combine step adds the
//    partials of the blocks of a block row (increasing bc) into C.
//
// The hash of a local row with n entries in the block (Fig. 3 of the seed:
// aggregation, dispersion, linear mapping):
//   key  = min(n >> a, 8)                               aggregation
//   lin  = key < 8 ? ((n mod 2^a) * d) >> a             linear mapping
//                  : min(d - 1, (n - 8 * 2^a) >> c)
//   home = key * b + lin     (< 9b <= R)                dispersion
//  a: the smallest a >= 0 with (q90 >> a) <= 8, q90 the 90th percentile
//     (nearest rank) of the non-zero row-in-block counts of the whole matrix
//     (sampled: most rows aggregate into keys 0..8, a tail saturates at 8);
//  c: the smallest c >= 0 with ((nmax - 8 * 2^a) >> c) < d, nmax the largest
//     row-in-block count of the matrix (sampled: the saturated tail is
//     spread over region 8 instead of piling onto one home);
//  b = max(1, R / 9): the table cut into 9 regions, one per key (fixed);
//  d = b: the linear mapping stays inside its region (fixed).
// The seed's example maps linearly with a modulo and allows a bit shift
// instead; the shifts keep `home` monotone in n, so the rows of one key stay
// ordered by what the aggregation dropped. Collisions: the seed inserts with
// atomic linear probing, whose result depends on the insertion order; here
// slot = (rows with a smaller home) + (rows with the same home and a smaller
// local index), a histogram of the R homes and an exclusive prefix sum
// (deterministic, as parallel as probing). Probing in home order was tried:
// when the saturated tail overflows the last region it wraps around to the
// front of the table, which on skewed blocks left the group deviation up to
// 1.7x higher (docs/Formats.md). Empty rows have home 0, so they come first.
//
// Fixed and competitive blocks (Sec. III-C): with S stored blocks and
// Nw = hbpWarps, F = Nw * floor(floor(S * hbpFixedFraction) / Nw) blocks are
// fixed, an equal number per warp; they are the F blocks with the fewest
// entries (ties: smaller s), sorted by (bc, br) and cut into Nw consecutive
// runs, so a warp's blocks share column blocks (its B tile) as far as
// possible. The other S - F blocks (the heaviest) are competitive, in
// decreasing entry count (ties: smaller s): warps that finish their fixed
// blocks take them by atomic ticket, heaviest first (list scheduling).
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatTraversal.h"

#include "spperm/Sparse/Permutation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

using namespace spperm;

namespace {

/// fp32 flops per byte of HBM traffic the cost model charges (H100 SXM:
/// ~50 TFLOP/s sustained fp32 FMA over ~3.35 TB/s, rounded to a power of 2).
constexpr double kFlopsPerByte = 16.0;
/// Most Blocked-ELL values a split may store (1 GiB of floats).
constexpr int64_t kBellMaxValues = int64_t{1} << 28;
/// Largest HBP row block.
constexpr int32_t kHbpMaxRowBlock = 1 << 16;
/// Most HBP slots (stored blocks x rowBlock).
constexpr int64_t kHbpMaxSlots = int64_t{1} << 28;
/// The aggregation's largest key.
constexpr int32_t kHbpMaxKey = 8;
constexpr int32_t kWarp = 32;

Status fail(const std::string &what) {
  return Status::error("invalid " + what);
}

std::string str(int64_t v) { return std::to_string(v); }

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Bit-exact float comparison (NaN payloads and signed zeros included).
bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// out[0..k) += v * in[0..k).
inline void axpy(float *out, const float *in, float v, int64_t k) {
  for (int64_t j = 0; j < k; ++j)
    out[j] += v * in[j];
}

int32_t log2Exact(int32_t v) {
  int32_t s = 0;
  while ((int32_t{1} << s) < v)
    ++s;
  return s;
}

bool isBellBlock(int32_t tau) {
  return tau == 1 || tau == 2 || tau == 4 || tau == 8 || tau == 16 ||
         tau == 32;
}

//===----------------------------------------------------------------------===//
// bell
//===----------------------------------------------------------------------===//

/// A tile of P holding entries.
struct Tile {
  int32_t blockRow;
  int32_t blockCol;
  int32_t count;
};

/// The non-empty tiles of `p`, ordered by (blockRow, blockCol).
std::vector<Tile> collectTiles(const CsrMatrix &p, int32_t shift) {
  std::vector<Tile> tiles;
  std::vector<int32_t> bcs;
  const int32_t tau = int32_t{1} << shift;
  const int64_t blockRows = ceilDiv(p.rows, tau);
  for (int64_t br = 0; br < blockRows; ++br) {
    bcs.clear();
    int64_t end = std::min<int64_t>(p.rows, (br + 1) * tau);
    for (int64_t r = br * tau; r < end; ++r)
      for (int32_t k = p.rowPtr[r]; k < p.rowPtr[r + 1]; ++k)
        bcs.push_back(p.colIdx[k] >> shift);
    if (tau > 1)
      std::sort(bcs.begin(), bcs.end());
    for (size_t i = 0; i < bcs.size();) {
      size_t j = i;
      while (j < bcs.size() && bcs[j] == bcs[i])
        ++j;
      tiles.push_back({static_cast<int32_t>(br), bcs[i],
                       static_cast<int32_t>(j - i)});
      i = j;
    }
  }
  return tiles;
}

/// A choice of kept tiles.
struct BellSplit {
  int64_t width = 0;
  int64_t denseNnz = 0;
};

/// Marks in `kept` the tiles stored in Blocked-ELL for `delta` and `cap`.
BellSplit selectTiles(const std::vector<Tile> &tiles, int32_t tau,
                      double delta, int32_t cap, std::vector<char> &kept) {
  BellSplit split;
  kept.assign(tiles.size(), 0);
  const double area = static_cast<double>(tau) * tau;
  std::vector<size_t> dense;
  for (size_t i = 0; i < tiles.size();) {
    size_t j = i;
    dense.clear();
    for (; j < tiles.size() && tiles[j].blockRow == tiles[i].blockRow; ++j)
      if (static_cast<double>(tiles[j].count) / area >= delta)
        dense.push_back(j);
    if (cap > 0 && dense.size() > static_cast<size_t>(cap)) {
      std::partial_sort(dense.begin(), dense.begin() + cap, dense.end(),
                        [&](size_t x, size_t y) {
                          if (tiles[x].count != tiles[y].count)
                            return tiles[x].count > tiles[y].count;
                          return x < y;
                        });
      dense.resize(cap);
    }
    for (size_t t : dense) {
      kept[t] = 1;
      split.denseNnz += tiles[t].count;
    }
    split.width = std::max<int64_t>(split.width, dense.size());
    i = j;
  }
  return split;
}

/// A FormattedMatrix of `kind` with m's shape and the row order filled in.
FormattedMatrix startFormat(const CsrMatrix &m,
                            const std::vector<int32_t> &order,
                            FormatKind kind) {
  FormattedMatrix f;
  f.rows = m.rows;
  f.cols = m.cols;
  f.nnz = m.nnz();
  f.kind = kind;
  f.order = order;
  return f;
}

int64_t bellValueCount(int64_t blockRows, int64_t width, int32_t tau) {
  return blockRows * width * tau * tau;
}

StatusOr<FormattedMatrix> buildBell(const CsrMatrix &m,
                                    const std::vector<int32_t> &order,
                                    const FormatOptions &options) {
  FormattedMatrix f = startFormat(m, order, FormatKind::Bell);
  CsrMatrix p = permuteRows(m, order);

  const int32_t tau = options.bellBlock;
  const int32_t shift = log2Exact(tau);
  const int64_t blockRows = ceilDiv(m.rows, tau);
  std::vector<Tile> tiles = collectTiles(p, shift);
  std::vector<char> kept;

  double delta = options.bellDelta;
  if (!(delta > 0)) {
    // The search: cheapest candidate, ties to the larger delta.
    double bestCost = std::numeric_limits<double>::infinity();
    double bestDelta = 0;
    for (int i = 20; i >= 1; --i) {
      double candidate = i / 20.0;
      BellSplit split = selectTiles(tiles, tau, candidate,
                                    options.bellMaxWidth, kept);
      if (bellValueCount(blockRows, split.width, tau) > kBellMaxValues)
        continue;
      BellCostShape shape;
      shape.block = tau;
      shape.blockRows = blockRows;
      shape.width = split.width;
      shape.rows = m.rows;
      shape.residualNnz = m.nnz() - split.denseNnz;
      double cost = bellCost(shape, kBellSearchK);
      if (cost < bestCost) {
        bestCost = cost;
        bestDelta = candidate;
      }
    }
    if (!(bestDelta > 0))
      return Status::error("bell: every delta candidate needs more than " +
                           str(kBellMaxValues) + " Blocked-ELL values");
    delta = bestDelta;
  }

  BellSplit split = selectTiles(tiles, tau, delta, options.bellMaxWidth, kept);
  const int64_t valueCount = bellValueCount(blockRows, split.width, tau);
  if (valueCount > kBellMaxValues)
    return Status::error("bell: delta " + std::to_string(delta) + " needs " +
                         str(valueCount) + " Blocked-ELL values, more than " +
                         str(kBellMaxValues));

  BellStorage &bell = f.bell;
  bell.block = tau;
  bell.width = static_cast<int32_t>(split.width);
  bell.blockRows = static_cast<int32_t>(blockRows);
  bell.delta = delta;
  bell.denseNnz = split.denseNnz;
  const int64_t width = split.width;
  bell.blockCol.assign(static_cast<size_t>(blockRows * width), -1);
  bell.blockValues.assign(static_cast<size_t>(valueCount), 0.0f);
  std::vector<int32_t> used(static_cast<size_t>(blockRows), 0);
  for (size_t t = 0; t < tiles.size(); ++t) {
    if (!kept[t])
      continue;
    int32_t br = tiles[t].blockRow;
    bell.blockCol[br * width + used[br]++] = tiles[t].blockCol;
  }

  CsrMatrix &res = bell.residual;
  res.rows = m.rows;
  res.cols = m.cols;
  res.rowPtr.assign(static_cast<size_t>(m.rows) + 1, 0);
  res.colIdx.reserve(static_cast<size_t>(m.nnz() - split.denseNnz));
  res.values.reserve(static_cast<size_t>(m.nnz() - split.denseNnz));
  const int64_t area = int64_t{tau} * tau;
  for (int32_t r = 0; r < p.rows; ++r) {
    int64_t br = r >> shift;
    const int32_t *list = bell.blockCol.data() + br * width;
    const int32_t *listEnd = list + (width ? used[br] : 0);
    for (int32_t k = p.rowPtr[r]; k < p.rowPtr[r + 1]; ++k) {
      int32_t c = p.colIdx[k];
      int32_t bc = c >> shift;
      const int32_t *it = std::lower_bound(list, listEnd, bc);
      if (it != listEnd && *it == bc) {
        int64_t slot = br * width + (it - list);
        bell.blockValues[slot * area + (r & (tau - 1)) * tau + (c & (tau - 1))] =
            p.values[k];
      } else {
        res.colIdx.push_back(c);
        res.values.push_back(p.values[k]);
      }
    }
    res.rowPtr[r + 1] = static_cast<int32_t>(res.colIdx.size());
  }
  return f;
}

//===----------------------------------------------------------------------===//
// hbp
//===----------------------------------------------------------------------===//

/// The per-row count range the aggregation maps to 0..8 (see the file
/// comment): returns a.
int32_t sampleHashA(std::vector<int32_t> &lengths) {
  if (lengths.empty())
    return 0;
  size_t rank = (lengths.size() * 9 + 9) / 10; // ceil(0.9 n), >= 1
  std::nth_element(lengths.begin(), lengths.begin() + (rank - 1),
                   lengths.end());
  int32_t q = lengths[rank - 1];
  int32_t a = 0;
  while ((q >> a) > kHbpMaxKey)
    ++a;
  return a;
}

/// The home slot of a row with `n` entries in its block (file comment).
int64_t hbpHome(int64_t n, const HbpStorage &h) {
  const int64_t a = h.hashA;
  const int64_t key = std::min<int64_t>(n >> a, kHbpMaxKey);
  const int64_t lin =
      key < kHbpMaxKey
          ? ((n & ((int64_t{1} << a) - 1)) * h.hashD) >> a
          : std::min<int64_t>(h.hashD - 1, (n - (kHbpMaxKey << a)) >> h.hashC);
  return key * h.hashB + lin;
}

/// The tail shift c (see the file comment).
int32_t sampleHashC(const std::vector<int32_t> &lengths, int32_t a,
                    int32_t d) {
  int64_t nmax = 0;
  for (int32_t n : lengths)
    nmax = std::max<int64_t>(nmax, n);
  const int64_t tail = std::max<int64_t>(0, nmax - (int64_t{kHbpMaxKey} << a));
  int32_t c = 0;
  while ((tail >> c) >= d)
    ++c;
  return c;
}

/// The hash table of one block: slotRow[t] = local row in slot t.
class HbpTable {
public:
  explicit HbpTable(int32_t rowBlock)
      : size(rowBlock), home(static_cast<size_t>(rowBlock)),
        offset(static_cast<size_t>(rowBlock)) {}

  /// Fills slotRow (size R) from the local row lengths (size R).
  void build(const std::vector<int32_t> &len, const HbpStorage &h,
             int32_t *slotRow) {
    std::fill(offset.begin(), offset.end(), 0);
    for (int32_t r = 0; r < size; ++r) {
      home[r] = static_cast<int32_t>(hbpHome(len[r], h));
      ++offset[home[r]];
    }
    int32_t sum = 0;
    for (int32_t &o : offset)
      sum += std::exchange(o, sum);
    for (int32_t r = 0; r < size; ++r)
      slotRow[offset[home[r]]++] = r;
  }

private:
  int32_t size;
  std::vector<int32_t> home;
  /// Per home: the next slot of that home.
  std::vector<int32_t> offset;
};

/// A row's entries inside one block: local row, first entry in P, count.
struct Segment {
  int32_t blockCol;
  int32_t row;
  int32_t start;
  int32_t length;
};

/// The segments of block row `br` of P, ordered by (blockCol, row).
void blockRowSegments(const CsrMatrix &p, int64_t br, int32_t rowBlock,
                      int32_t colBlock, std::vector<Segment> &segs) {
  segs.clear();
  int64_t end = std::min<int64_t>(p.rows, (br + 1) * rowBlock);
  for (int64_t r = br * rowBlock; r < end; ++r) {
    int32_t k = p.rowPtr[r], e = p.rowPtr[r + 1];
    while (k < e) {
      int32_t bc = p.colIdx[k] / colBlock;
      int64_t limit = (int64_t{bc} + 1) * colBlock;
      int32_t j = k;
      while (j < e && p.colIdx[j] < limit)
        ++j;
      segs.push_back({bc, static_cast<int32_t>(r - br * rowBlock), k, j - k});
      k = j;
    }
  }
  std::stable_sort(segs.begin(), segs.end(),
                   [](const Segment &x, const Segment &y) {
                     return x.blockCol < y.blockCol;
                   });
}

StatusOr<FormattedMatrix> buildHbp(const CsrMatrix &m,
                                   const std::vector<int32_t> &order,
                                   const FormatOptions &options) {
  FormattedMatrix f = startFormat(m, order, FormatKind::Hbp);
  CsrMatrix p = permuteRows(m, order);

  HbpStorage &h = f.hbp;
  const int32_t R = options.hbpRowBlock;
  const int32_t CB = options.hbpColBlock;
  const int32_t G = R / kWarp;
  h.rowBlock = R;
  h.colBlock = CB;
  h.blockRows = static_cast<int32_t>(ceilDiv(m.rows, R));
  h.blockCols = static_cast<int32_t>(ceilDiv(m.cols, CB));
  if (int64_t{h.blockRows} * h.blockCols > kMaxIndex)
    return Status::error("hbp: " + str(h.blockRows) + " x " +
                         str(h.blockCols) + " blocks do not fit int32");

  // Pass 1: the stored blocks and the row-in-block counts the hash samples.
  std::vector<Segment> segs;
  std::vector<int32_t> lengths;
  lengths.reserve(static_cast<size_t>(std::min<int64_t>(m.nnz(), m.rows)));
  int64_t stored = 0;
  for (int64_t br = 0; br < h.blockRows; ++br) {
    blockRowSegments(p, br, R, CB, segs);
    for (size_t i = 0; i < segs.size(); ++i) {
      lengths.push_back(segs[i].length);
      if (i == 0 || segs[i].blockCol != segs[i - 1].blockCol)
        ++stored;
    }
  }
  if (stored * R > kHbpMaxSlots)
    return Status::error("hbp: " + str(stored) + " non-empty blocks of " +
                         str(R) + " rows need more than " + str(kHbpMaxSlots) +
                         " slots");
  h.hashA = sampleHashA(lengths);
  h.hashB = std::max(1, R / 9);
  h.hashD = h.hashB;
  h.hashC = sampleHashC(lengths, h.hashA, h.hashD);
  lengths = {};

  h.blocks.reserve(static_cast<size_t>(stored));
  h.zeroRow.assign(static_cast<size_t>(stored * R), -1);
  h.outputHash.assign(static_cast<size_t>(stored * R), 0);
  h.beginNnz.assign(static_cast<size_t>(stored * G + 1), 0);
  h.col.resize(static_cast<size_t>(m.nnz()));
  h.data.resize(static_cast<size_t>(m.nnz()));
  h.addSign.assign(static_cast<size_t>(m.nnz()), -1);

  // Pass 2: hash, lay out.
  HbpTable table(R);
  std::vector<int32_t> len(R, 0), start(R, 0);
  std::vector<int64_t> blockNnz;
  blockNnz.reserve(static_cast<size_t>(stored));
  int32_t left[kWarp], next[kWarp];
  int64_t prev[kWarp];
  int64_t pos = 0;
  for (int64_t br = 0; br < h.blockRows; ++br) {
    blockRowSegments(p, br, R, CB, segs);
    for (size_t i = 0; i < segs.size();) {
      const int32_t bc = segs[i].blockCol;
      const int64_t s = static_cast<int64_t>(h.blocks.size());
      h.blocks.push_back(static_cast<int32_t>(br * h.blockCols + bc));
      size_t j = i;
      for (; j < segs.size() && segs[j].blockCol == bc; ++j) {
        len[segs[j].row] = segs[j].length;
        start[segs[j].row] = segs[j].start;
      }
      int32_t *slotRow = h.outputHash.data() + s * R;
      table.build(len, h, slotRow);
      const int64_t blockBegin = pos;
      for (int32_t g = 0; g < G; ++g) {
        h.beginNnz[s * G + g] = pos;
        int32_t active = 0, empties = 0;
        for (int32_t t = 0; t < kWarp; ++t) {
          int32_t r = slotRow[g * kWarp + t];
          if (len[r] == 0) {
            ++empties;
            continue;
          }
          h.zeroRow[s * R + g * kWarp + t] = empties;
          left[active] = len[r];
          next[active] = start[r];
          prev[active] = -1;
          ++active;
        }
        // Column-major rounds over the non-empty lanes.
        while (active > 0) {
          int32_t still = 0;
          for (int32_t q = 0; q < active; ++q) {
            h.col[pos] = p.colIdx[next[q]];
            h.data[pos] = p.values[next[q]];
            if (prev[q] >= 0)
              h.addSign[prev[q]] = static_cast<int32_t>(pos - prev[q]);
            prev[q] = pos++;
            ++next[q];
            if (--left[q] > 0) {
              left[still] = left[q];
              next[still] = next[q];
              prev[still] = prev[q];
              ++still;
            }
          }
          active = still;
        }
      }
      blockNnz.push_back(pos - blockBegin);
      for (size_t k = i; k < j; ++k)
        len[segs[k].row] = 0;
      i = j;
    }
  }
  h.beginNnz[stored * G] = pos;

  // Fixed and competitive blocks.
  const int64_t warps = options.hbpWarps;
  const int64_t wanted = static_cast<int64_t>(
      std::floor(static_cast<double>(stored) * options.hbpFixedFraction));
  const int64_t perWarp = std::min(wanted, stored) / warps;
  const int64_t fixedCount = perWarp * warps;
  std::vector<int32_t> byLoad(static_cast<size_t>(stored));
  std::iota(byLoad.begin(), byLoad.end(), 0);
  std::sort(byLoad.begin(), byLoad.end(), [&](int32_t x, int32_t y) {
    if (blockNnz[x] != blockNnz[y])
      return blockNnz[x] < blockNnz[y];
    return x < y;
  });
  h.fixedBlocks.assign(byLoad.begin(), byLoad.begin() + fixedCount);
  std::sort(h.fixedBlocks.begin(), h.fixedBlocks.end(),
            [&](int32_t x, int32_t y) {
              int32_t bx = h.blocks[x] % h.blockCols;
              int32_t by = h.blocks[y] % h.blockCols;
              if (bx != by)
                return bx < by;
              return x < y; // row-major order: increasing br
            });
  h.fixedBlockPtr.resize(static_cast<size_t>(warps) + 1);
  for (int64_t w = 0; w <= warps; ++w)
    h.fixedBlockPtr[w] = static_cast<int32_t>(w * perWarp);
  h.competitiveBlocks.assign(byLoad.begin() + fixedCount, byLoad.end());
  std::sort(h.competitiveBlocks.begin(), h.competitiveBlocks.end(),
            [&](int32_t x, int32_t y) {
              if (blockNnz[x] != blockNnz[y])
                return blockNnz[x] > blockNnz[y];
              return x < y;
            });
  return f;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

Status verifyCsrFormat(const FormattedMatrix &f, const CsrMatrix *original) {
  const CsrMatrix &c = f.csr;
  if (Status s = c.verify(); !s)
    return fail("csr format: " + s.message());
  if (c.rows != f.rows || c.cols != f.cols)
    return fail("csr format: matrix is " + str(c.rows) + " x " + str(c.cols) +
                ", expected " + str(f.rows) + " x " + str(f.cols));
  if (c.nnz() != f.nnz)
    return fail("csr format: " + str(c.nnz()) + " entries, expected " +
                str(f.nnz));
  if (!original)
    return Status::ok();
  for (int32_t p = 0; p < f.rows; ++p) {
    int32_t r = f.order[p];
    if (original->rowLength(r) != c.rowLength(p))
      return fail("csr format: row " + str(p) + " has " +
                  str(c.rowLength(p)) + " entries, original row " + str(r) +
                  " has " + str(original->rowLength(r)));
    for (int32_t i = 0; i < c.rowLength(p); ++i) {
      int32_t a = c.rowPtr[p] + i, b = original->rowPtr[r] + i;
      if (c.colIdx[a] != original->colIdx[b] ||
          !sameBits(c.values[a], original->values[b]))
        return fail("csr format: row " + str(p) + " differs from original "
                    "row " + str(r) + " at entry " + str(i));
    }
  }
  return Status::ok();
}

Status verifyBellFormat(const FormattedMatrix &f, const CsrMatrix *original) {
  const BellStorage &b = f.bell;
  if (!isBellBlock(b.block))
    return fail("bell format: block " + str(b.block) +
                " is not 1, 2, 4, 8, 16 or 32");
  const int32_t tau = b.block;
  const int32_t shift = log2Exact(tau);
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
  const int64_t blockCols = ceilDiv(f.cols, tau);
  int64_t widest = 0;
  // In-range positions of kept tiles, and non-zero values among them.
  int64_t positions = 0, nonZero = 0;
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

  // The slot of P's tile (p >> shift, c >> shift), or -1.
  auto slotOf = [&](int64_t p, int32_t c) -> int64_t {
    int64_t br = p >> shift;
    const int32_t *list = b.blockCol.data() + br * width;
    const int32_t *end = list + width;
    int32_t bc = c >> shift;
    const int32_t *it = std::lower_bound(
        list, end, bc, [](int32_t x, int32_t y) {
          // Padding (-1) sorts last.
          return x != -1 && x < y;
        });
    return it != end && *it == bc ? br * width + (it - list) : -1;
  };
  for (int32_t p = 0; p < res.rows; ++p)
    for (int32_t k = res.rowPtr[p]; k < res.rowPtr[p + 1]; ++k)
      if (width > 0 && slotOf(p, res.colIdx[k]) >= 0)
        return fail("bell format: residual entry (" + str(p) + ", " +
                    str(res.colIdx[k]) + ") lies in a dense block");
  if (!original)
    return Status::ok();

  // Every original entry is in its kept tile (exact bits) or next in the
  // residual row; the counts then make this a bijection.
  std::vector<int32_t> tileCount(static_cast<size_t>(slots), 0);
  int64_t dense = 0, denseNonZero = 0;
  for (int32_t p = 0; p < f.rows; ++p) {
    int32_t r = f.order[p];
    int32_t k = res.rowPtr[p];
    for (int32_t e = original->rowPtr[r]; e < original->rowPtr[r + 1]; ++e) {
      int32_t c = original->colIdx[e];
      float v = original->values[e];
      int64_t slot = width > 0 ? slotOf(p, c) : -1;
      if (slot >= 0) {
        float x = b.blockValues[slot * area + (p & (tau - 1)) * tau +
                                (c & (tau - 1))];
        if (!sameBits(x, v))
          return fail("bell format: entry (" + str(p) + ", " + str(c) +
                      ") of the dense blocks differs from the original");
        ++tileCount[slot];
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
  for (int64_t s = 0; s < slots; ++s)
    if (b.blockCol[s] >= 0 &&
        static_cast<double>(tileCount[s]) / static_cast<double>(area) <
            b.delta)
      return fail("bell format: block slot " + str(s) + " holds " +
                  str(tileCount[s]) + " entries, below delta");
  return Status::ok();
}

Status verifyHbpFormat(const FormattedMatrix &f, const CsrMatrix *original) {
  const HbpStorage &h = f.hbp;
  const int64_t R = h.rowBlock;
  if (R <= 0 || R % kWarp != 0 || R > kHbpMaxRowBlock)
    return fail("hbp format: rowBlock " + str(R) +
                " is not a positive multiple of 32 up to " +
                str(kHbpMaxRowBlock));
  if (h.colBlock <= 0)
    return fail("hbp format: colBlock " + str(h.colBlock) +
                " is not positive");
  const int64_t CB = h.colBlock;
  const int64_t G = R / kWarp;
  if (h.blockRows != ceilDiv(f.rows, R) || h.blockCols != ceilDiv(f.cols, CB))
    return fail("hbp format: " + str(h.blockRows) + " x " + str(h.blockCols) +
                " blocks, expected ceil(rows / rowBlock) x ceil(cols / "
                "colBlock) = " +
                str(ceilDiv(f.rows, R)) + " x " + str(ceilDiv(f.cols, CB)));
  if (h.hashA < 0 || h.hashA > 31 || h.hashB < 1 || h.hashC < 0 ||
      h.hashC > 31 || h.hashD < 1)
    return fail("hbp format: hash parameters out of range");
  const int64_t S = static_cast<int64_t>(h.blocks.size());
  const int64_t blockCount = int64_t{h.blockRows} * h.blockCols;
  for (int64_t s = 0; s < S; ++s) {
    if (h.blocks[s] < 0 || h.blocks[s] >= blockCount)
      return fail("hbp format: block " + str(h.blocks[s]) +
                  " is out of range [0, " + str(blockCount) + ")");
    if (s > 0 && h.blocks[s - 1] >= h.blocks[s])
      return fail("hbp format: blocks are not strictly increasing");
  }
  // Sizes: S <= 2^31, R <= 2^16, so the products fit.
  if (static_cast<int64_t>(h.zeroRow.size()) != S * R ||
      static_cast<int64_t>(h.outputHash.size()) != S * R)
    return fail("hbp format: zeroRow/outputHash have " +
                str(h.zeroRow.size()) + "/" + str(h.outputHash.size()) +
                " entries, expected blocks * rowBlock = " + str(S * R));
  if (static_cast<int64_t>(h.beginNnz.size()) != S * G + 1)
    return fail("hbp format: beginNnz has " + str(h.beginNnz.size()) +
                " entries, expected blocks * rowBlock / 32 + 1 = " +
                str(S * G + 1));
  if (f.nnz < 0 || static_cast<int64_t>(h.col.size()) != f.nnz ||
      static_cast<int64_t>(h.data.size()) != f.nnz ||
      static_cast<int64_t>(h.addSign.size()) != f.nnz)
    return fail("hbp format: col/data/addSign have " + str(h.col.size()) +
                "/" + str(h.data.size()) + "/" + str(h.addSign.size()) +
                " entries, expected nnz = " + str(f.nnz));
  if (h.beginNnz[0] != 0 || h.beginNnz[S * G] != f.nnz)
    return fail("hbp format: beginNnz must start at 0 and end at nnz");
  for (int64_t x = 0; x < S * G; ++x)
    if (h.beginNnz[x + 1] < h.beginNnz[x])
      return fail("hbp format: beginNnz decreases at " + str(x));

  std::vector<char> seen(static_cast<size_t>(S > 0 ? R : 0));
  for (int64_t s = 0; s < S; ++s) {
    const int64_t br = h.blocks[s] / h.blockCols;
    const int64_t bc = h.blocks[s] % h.blockCols;
    const int64_t colLo = bc * CB, colHi = std::min<int64_t>(f.cols, colLo + CB);
    if (h.beginNnz[s * G] == h.beginNnz[(s + 1) * G])
      return fail("hbp format: stored block " + str(s) + " has no entries");
    std::fill(seen.begin(), seen.end(), 0);
    for (int64_t t = 0; t < R; ++t) {
      int32_t r = h.outputHash[s * R + t];
      if (r < 0 || r >= R || seen[r])
        return fail("hbp format: outputHash of stored block " + str(s) +
                    " is not a permutation of [0, " + str(R) + ")");
      seen[r] = 1;
    }
    for (int64_t g = 0; g < G; ++g) {
      const int64_t begin = h.beginNnz[s * G + g];
      const int64_t end = h.beginNnz[s * G + g + 1];
      int64_t cur[kWarp] = {}, lastCol[kWarp] = {}, origPos[kWarp] = {},
              origEnd[kWarp] = {};
      bool active[kWarp] = {};
      int32_t empties = 0, live = 0;
      for (int32_t t = 0; t < kWarp; ++t) {
        const int64_t slot = s * R + g * kWarp + t;
        const int64_t row = br * R + h.outputHash[slot];
        const int32_t zr = h.zeroRow[slot];
        active[t] = false;
        if (zr == -1) {
          ++empties;
          continue;
        }
        if (zr != empties)
          return fail("hbp format: zeroRow of slot " + str(slot) + " is " +
                      str(zr) + ", expected " + str(empties));
        if (row >= f.rows)
          return fail("hbp format: slot " + str(slot) +
                      " has entries but its row is past the matrix");
        active[t] = true;
        ++live;
        cur[t] = begin + (t - empties);
        lastCol[t] = -1;
        if (original) {
          int32_t orow = f.order[row];
          const int32_t *first = original->colIdx.data() +
                                 original->rowPtr[orow];
          const int32_t *last = original->colIdx.data() +
                                original->rowPtr[orow + 1];
          origPos[t] = std::lower_bound(first, last, colLo) -
                       original->colIdx.data();
          origEnd[t] = original->rowPtr[orow + 1];
        }
      }
      // Replay the column-major rounds: each round, the live lanes' next
      // entries must be the next consecutive positions.
      int64_t pos = begin;
      while (live > 0) {
        for (int32_t t = 0; t < kWarp; ++t) {
          if (!active[t])
            continue;
          if (pos >= end || cur[t] != pos)
            return fail("hbp format: entries of group " + str(g) +
                        " of stored block " + str(s) +
                        " are not in column-major lane order");
          int32_t c = h.col[pos];
          if (c < colLo || c >= colHi || c <= lastCol[t])
            return fail("hbp format: column " + str(c) + " at " + str(pos) +
                        " is outside its block or not increasing");
          lastCol[t] = c;
          if (original) {
            int64_t o = origPos[t];
            if (o >= origEnd[t] || original->colIdx[o] != c ||
                !sameBits(original->values[o], h.data[pos]))
              return fail("hbp format: entry at " + str(pos) +
                          " differs from the original");
            ++origPos[t];
          }
          int32_t step = h.addSign[pos];
          if (step == -1) {
            active[t] = false;
            --live;
            if (original && origPos[t] < origEnd[t] &&
                original->colIdx[origPos[t]] < colHi)
              return fail("hbp format: a row of stored block " + str(s) +
                          " ends before the original's entries do");
          } else if (step <= 0 || step >= end - pos) {
            return fail("hbp format: addSign " + str(step) + " at " +
                        str(pos) + " leaves the group");
          } else {
            cur[t] = pos + step;
          }
          ++pos;
        }
      }
      if (pos != end)
        return fail("hbp format: group " + str(g) + " of stored block " +
                    str(s) + " has entries no lane reaches");
    }
  }

  // Fixed and competitive blocks: a partition of the stored blocks, equal
  // counts per warp.
  if (h.fixedBlockPtr.empty() || h.fixedBlockPtr[0] != 0 ||
      h.fixedBlockPtr.back() != static_cast<int64_t>(h.fixedBlocks.size()))
    return fail("hbp format: fixedBlockPtr must run from 0 to the number of "
                "fixed blocks");
  const int64_t warps = static_cast<int64_t>(h.fixedBlockPtr.size()) - 1;
  for (int64_t w = 0; w < warps; ++w)
    if (int64_t{h.fixedBlockPtr[w + 1]} - h.fixedBlockPtr[w] !=
        int64_t{h.fixedBlockPtr[1]} - h.fixedBlockPtr[0])
      return fail("hbp format: warp " + str(w) +
                  " has a different number of fixed blocks");
  if (static_cast<int64_t>(h.fixedBlocks.size() +
                           h.competitiveBlocks.size()) != S)
    return fail("hbp format: fixed + competitive blocks != stored blocks");
  std::vector<char> assigned(static_cast<size_t>(S), 0);
  for (const std::vector<int32_t> *list : {&h.fixedBlocks,
                                           &h.competitiveBlocks})
    for (int32_t s : *list) {
      if (s < 0 || s >= S || assigned[s])
        return fail("hbp format: block list entry " + str(s) +
                    " is out of range or repeated");
      assigned[s] = 1;
    }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// CPU executors
//===----------------------------------------------------------------------===//

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
      : order(a.order), k(k), c(c), sum(b, k),
        partial(static_cast<size_t>(k)) {}

  void begin(int32_t position) {
    row = c + static_cast<int64_t>(order[position]) * k;
    sum.begin(partial.data());
  }
  void add(int32_t col, float v) { sum.add(col, v); }
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
  float *row = nullptr;
};

template <bool kOne>
void runSpmm(const FormattedMatrix &a, const float *b, int64_t k, float *c) {
  std::fill(c, c + static_cast<int64_t>(a.rows) * k, 0.0f);
  SpmmVisitor<kOne> visitor(a, b, k, c);
  detail::forEachSegment(a, visitor);
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

std::string_view spperm::formatName(FormatKind kind) {
  switch (kind) {
  case FormatKind::Csr:
    return "csr";
  case FormatKind::Bell:
    return "bell";
  case FormatKind::Hbp:
    return "hbp";
  }
  return "unknown";
}

Status spperm::validateFormatOptions(const FormatOptions &o) {
  switch (o.kind) {
  case FormatKind::Csr:
    return Status::ok();
  case FormatKind::Bell:
    if (!isBellBlock(o.bellBlock))
      return Status::error("bell block " + str(o.bellBlock) +
                           " is not 1, 2, 4, 8, 16 or 32");
    if (std::isnan(o.bellDelta) || o.bellDelta > 1.0)
      return Status::error("bell delta " + std::to_string(o.bellDelta) +
                           " is not in (0, 1] (or <= 0 to search)");
    if (o.bellMaxWidth < 0)
      return Status::error("bell max width " + str(o.bellMaxWidth) +
                           " is negative");
    return Status::ok();
  case FormatKind::Hbp:
    if (o.hbpRowBlock <= 0 || o.hbpRowBlock % kWarp != 0 ||
        o.hbpRowBlock > kHbpMaxRowBlock)
      return Status::error("hbp row block " + str(o.hbpRowBlock) +
                           " is not a positive multiple of 32 up to " +
                           str(kHbpMaxRowBlock));
    if (o.hbpColBlock <= 0)
      return Status::error("hbp column block " + str(o.hbpColBlock) +
                           " is not positive");
    if (!(o.hbpFixedFraction >= 0.0 && o.hbpFixedFraction <= 1.0))
      return Status::error("hbp fixed fraction " +
                           std::to_string(o.hbpFixedFraction) +
                           " is not in [0, 1]");
    if (o.hbpWarps <= 0 || o.hbpWarps > (1 << 24))
      return Status::error("hbp warps " + str(o.hbpWarps) +
                           " is not in [1, 2^24]");
    return Status::ok();
  }
  return Status::error("unknown format kind");
}

double spperm::bellCost(const BellCostShape &shape, int64_t k) {
  const double tau = shape.block, K = static_cast<double>(k);
  const double slots = static_cast<double>(shape.blockRows) *
                       static_cast<double>(shape.width);
  const double dense = slots * (4 * tau * tau + 4 + 4 * tau * K +
                                2 * tau * tau * K / kFlopsPerByte);
  const double residual =
      4 * (static_cast<double>(shape.rows) + 1) +
      static_cast<double>(shape.residualNnz) * (8 + 4 * K + 2 * K / kFlopsPerByte);
  return dense + residual;
}

StatusOr<FormattedMatrix> spperm::buildFormat(const CsrMatrix &m,
                                              const std::vector<int32_t> &order,
                                              const FormatOptions &options) {
  if (Status s = validateFormatOptions(options); !s)
    return s;
  if (!isPermutation(order, m.rows))
    return Status::error("the row order is not a permutation of the " +
                         str(m.rows) + " rows");
  switch (options.kind) {
  case FormatKind::Csr: {
    FormattedMatrix f = startFormat(m, order, FormatKind::Csr);
    f.csr = permuteRows(m, order);
    return f;
  }
  case FormatKind::Bell:
    return buildBell(m, order, options);
  case FormatKind::Hbp:
    return buildHbp(m, order, options);
  }
  return Status::error("unknown format kind");
}

Status spperm::verifyFormat(const FormattedMatrix &f,
                            const CsrMatrix *original) {
  if (f.rows < 0 || f.cols < 0 || f.nnz < 0)
    return fail("format: negative shape " + str(f.rows) + " x " + str(f.cols) +
                " or nnz " + str(f.nnz));
  if (!isPermutation(f.order, f.rows))
    return fail("format: order is not a permutation of the " + str(f.rows) +
                " rows");
  if (original) {
    if (Status s = original->verify(); !s)
      return s;
    if (original->rows != f.rows || original->cols != f.cols ||
        original->nnz() != f.nnz)
      return fail("format: shape " + str(f.rows) + " x " + str(f.cols) +
                  " with " + str(f.nnz) + " entries, original is " +
                  str(original->rows) + " x " + str(original->cols) +
                  " with " + str(original->nnz()));
  }
  switch (f.kind) {
  case FormatKind::Csr:
    return verifyCsrFormat(f, original);
  case FormatKind::Bell:
    return verifyBellFormat(f, original);
  case FormatKind::Hbp:
    return verifyHbpFormat(f, original);
  }
  return fail("format: unknown kind");
}

FormatStats spperm::computeFormatStats(const FormattedMatrix &f,
                                       const CsrMatrix &original) {
  (void)original;
  FormatStats st;
  if (f.kind == FormatKind::Bell) {
    const BellStorage &b = f.bell;
    if (b.denseNnz > 0)
      st.fillRatio = static_cast<double>(b.blockValues.size()) /
                     static_cast<double>(b.denseNnz);
    if (f.nnz > 0)
      st.denseNnzShare =
          static_cast<double>(b.denseNnz) / static_cast<double>(f.nnz);
    return st;
  }
  if (f.kind != FormatKind::Hbp)
    return st;
  // Lane lengths from the add_sign chains; "before" uses the same lengths
  // in local row order (slot r of the unhashed block holds row r).
  const HbpStorage &h = f.hbp;
  const int64_t R = h.rowBlock, G = R / kWarp;
  const int64_t S = static_cast<int64_t>(h.blocks.size());
  std::vector<int64_t> byRow(static_cast<size_t>(R)), bySlot(R);
  auto groupStd = [](const int64_t *x) {
    double mean = 0, sq = 0;
    for (int32_t t = 0; t < kWarp; ++t)
      mean += static_cast<double>(x[t]);
    mean /= kWarp;
    for (int32_t t = 0; t < kWarp; ++t)
      sq += (static_cast<double>(x[t]) - mean) * (static_cast<double>(x[t]) - mean);
    return std::sqrt(sq / kWarp);
  };
  double before = 0, after = 0;
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t g = 0; g < G; ++g)
      for (int32_t t = 0; t < kWarp; ++t) {
        int64_t slot = g * kWarp + t;
        int32_t zr = h.zeroRow[s * R + slot];
        int64_t n = 0;
        if (zr >= 0) {
          int64_t j = h.beginNnz[s * G + g] + t - zr;
          for (n = 1; h.addSign[j] > 0; ++n)
            j += h.addSign[j];
        }
        bySlot[slot] = n;
        byRow[h.outputHash[s * R + slot]] = n;
      }
    for (int64_t g = 0; g < G; ++g) {
      before += groupStd(byRow.data() + g * kWarp);
      after += groupStd(bySlot.data() + g * kWarp);
    }
  }
  if (S > 0) {
    st.hbpGroupStdBefore = before / static_cast<double>(S * G);
    st.hbpGroupStdAfter = after / static_cast<double>(S * G);
  }
  return st;
}

void spperm::spmmCpu(const FormattedMatrix &a, const float *b, int64_t k,
                     float *c) {
  if (k == 1) {
    runSpmm<true>(a, b, k, c);
    return;
  }
  if (k > 1)
    runSpmm<false>(a, b, k, c);
}
