//===- HbpFormat.cpp - Hash-based partitioned blocks ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
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
// This file: building hbp (the hash, the column-major lanes, the fixed and
// competitive blocks) and its verification.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Formats.h"

#include "FormatsDetail.h"

#include "spperm/Sparse/Permutation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// Most HBP slots (stored blocks x rowBlock).
constexpr int64_t kHbpMaxSlots = int64_t{1} << 28;
/// The aggregation's largest key.
constexpr int32_t kHbpMaxKey = 8;

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

} // namespace

StatusOr<FormattedMatrix> detail::buildHbp(const CsrMatrix &m,
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

Status detail::verifyHbpFormat(const FormattedMatrix &f,
                               const CsrMatrix *original) {
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
