//===- CacheAware.h - Cache-aware row orders (internal) ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The cache-aware sorts of Mehrabi et al. and their hybrids.
//
// Notation: L(r) is the set of cache lines of row r (RowLines), |L(r)| its
// line count, H(a, b) = |L(a) XOR L(b)| the Hamming distance of the bitmasks,
// wl(r) the warp load and N_w = options.warps. Every choice takes the unused
// row of smallest key, compared lexicographically; the last component is the
// original row index, so the order is fully determined.
//
// The families themselves are WarpAware.cpp (warp-aware, hybrid-2.3) and
// CtaAware.cpp (cta-aware, hybrid-2.1, hybrid-2.2); this header has what they
// share: the candidate index and the choice key.
//
// Scale. Scoring every unused row makes each order O(M^2) distance
// evaluations. Instead, both families score the candidates met through an
// inverted index line -> rows holding it:
//  * warp-aware counts, for the rows met in the lines of a, the lines they
//    share with a; the CTA family counts lines shared with U incrementally,
//    scanning each line once per cluster when it enters U, and keeps the
//    candidates in a bucket queue on |L(r) \ U|.
//  * A row sharing no line with the reference (a, resp. U) has
//    H = |L(a)| + |L(r)| (resp. |L(r) \ U| = |L(r)|), so the best of those is
//    among the unused rows of the smallest line count c*, and any row of
//    count c* that shares a line beats all of them. The rows are kept sorted
//    by (|L(r)|, index) (and (|L(r)|, wl(r), index) for the warp-load
//    tie-breaks) and the best row of count c* under the current tie-break is
//    always a candidate; for hybrid-2.2 so are the rows of count c* that
//    share a line with order[p - N_w]. Rows of more new lines than c* are
//    never queued.
//  * options.candidateLimit = 0: every scan takes every unused row of the
//    line, and the result is exactly the greedy order defined above (the unit
//    tests compare it with a brute-force implementation).
//  * candidateLimit = k > 0 (approximate): within a line the rows are
//    ordered by their next four lines after it (lexicographically, a shorter
//    list first), then by a fingerprint of their whole line list, then by
//    index, so rows with similar line sets are neighbours and identical rows
//    are contiguous. A scan of a line from a placed row x takes at most k
//    unused rows: the rows identical to x next to it, then at most w others
//    nearest to x in that order, alternately after and before it, where
//    w = k for a reference of n <= 2 lines and max(2, ceil(2k / n))
//    otherwise (about 2k rows per choice besides identical rows). Counts from
//    cut scans are lower bounds. Warp-aware keeps the counts that reach
//    min(|L(a)|, |L(r)|), which are exact, re-measures the max(1, k / 4) others
//    of best estimate (skipping rows that cannot win even sharing all they can)
//    and takes the best of those and of the row of count c*. The CTA family
//    re-measures the winner of the queue against U and re-queues it when it
//    shares more than counted. When no scan is cut the result is the exact
//    order.
//  A choice scans O(k n) rows for n <= 2 lines, O(k + n) otherwise, and
//  re-measures at most k / 4 of them; the index is built once by sorting
//  each line's rows. A 1M-row, 10M-nonzero R-MAT matrix takes a few
//  seconds per strategy, a 1k-row, 100k-nonzero one milliseconds.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_CACHEAWARE_H
#define SPPERM_LIB_SPARSE_CACHEAWARE_H

#include "RowLines.h"

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Permutation.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace spperm {
namespace detail {

/// The largest value: no candidate limit (options.candidateLimit = 0), a
/// key worse than any.
constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

/// References of more lines than this share a budget of this many times the
/// candidate limit across their lines (at least 2 rows per line).
constexpr int64_t kLineBudget = 2;

/// |L(a) AND L(b)|, merging or galloping through the longer list.
inline int64_t sharedCount(const RowLines &rl, int32_t a, int32_t b) {
  int32_t ca = rl.count(a), cb = rl.count(b);
  if (ca == 0 || cb == 0)
    return 0;
  if (ca > cb) {
    std::swap(a, b);
    std::swap(ca, cb);
  }
  if (static_cast<int64_t>(ca) * 16 >= cb)
    return sharedLines(rl, a, b);
  int64_t shared = 0;
  const int32_t *j = rl.begin(b), *je = rl.end(b);
  for (const int32_t *i = rl.begin(a), *ie = rl.end(a); i != ie && j != je;
       ++i) {
    j = std::lower_bound(j, je, *i);
    if (j != je && *j == *i) {
      ++shared;
      ++j;
    }
  }
  return shared;
}

/// A set of rows as a bitset: the used rows, tested in every scan step, fit
/// in the cache.
class RowSet {
public:
  explicit RowSet(int32_t rows)
      : bits((static_cast<size_t>(rows) + 63) / 64, 0) {}
  bool operator[](int32_t r) const { return bits[r >> 6] >> (r & 63) & 1; }
  void set(int32_t r) { bits[r >> 6] |= uint64_t(1) << (r & 63); }

private:
  std::vector<uint64_t> bits;
};

/// The position >= pos (link = forward skip pointers) or <= pos (backward)
/// of the first unused row of `slots`, or `end`. link[i] is followed only
/// from used positions (initially i + 1, resp. i - 1) and is compressed
/// along the path, so skipping used rows costs amortized near-constant time.
inline int32_t findUnused(int32_t pos, int32_t end,
                          const std::vector<int32_t> &slots,
                          std::vector<int32_t> &link, const RowSet &used) {
  int32_t j = pos;
  while (j != end && used[slots[j]])
    j = link[j];
  for (int32_t i = pos; i != j;) {
    int32_t next = link[i];
    link[i] = j;
    i = next;
  }
  return j;
}

/// A row met in a scan, with its line count.
struct Hit {
  int32_t row;
  int32_t count;
};

/// Shared-line counts of the rows met in one choice: an open-addressing
/// table sized to the hits, so that it stays in the cache, with a generation
/// per slot instead of clearing.
class Tally {
public:
  struct Entry {
    int32_t row;
    int32_t count;
    int32_t shared;
    uint32_t generation;
  };

  /// Empties the table for up to `hits` distinct rows.
  void reset(size_t hits) {
    int shift = 6;
    while ((size_t(1) << shift) < 2 * hits)
      ++shift;
    if (entries.size() < (size_t(1) << shift))
      entries.assign(size_t(1) << shift, Entry{0, 0, 0, 0});
    bits = shift;
    ++generation;
    if (generation == 0) {
      std::fill(entries.begin(), entries.end(), Entry{0, 0, 0, 0});
      generation = 1;
    }
    occupied.clear();
  }

  /// Counts one more shared line for `hit.row`.
  void add(const Hit &hit) {
    size_t mask = (size_t(1) << bits) - 1;
    size_t h = (static_cast<uint32_t>(hit.row) * 2654435761u) >> (32 - bits);
    for (;; h = (h + 1) & mask) {
      Entry &e = entries[h];
      if (e.generation != generation) {
        e = {hit.row, hit.count, 1, generation};
        occupied.push_back(static_cast<uint32_t>(h));
        return;
      }
      if (e.row == hit.row) {
        ++e.shared;
        return;
      }
    }
  }

  /// The entries added since the last reset, in insertion order.
  template <typename F> void forEach(F f) const {
    for (uint32_t h : occupied)
      f(entries[h]);
  }

private:
  std::vector<Entry> entries;
  std::vector<uint32_t> occupied;
  int bits = 6;
  uint32_t generation = 0;
};

/// The inverted index line -> rows holding it. With `similarityOrder` the rows
/// of a line are ordered by their next lines, a fingerprint of their line
/// list and their index (see the file comment); otherwise by index.
class LineIndex {
public:
  LineIndex(const RowLines &rl, const RowSet &used, bool similarityOrder)
      : rl(rl), used(used) {
    assert(rl.lines.size() < static_cast<size_t>(INT32_MAX) &&
           "too many row lines for the index");
    size_t lines = static_cast<size_t>(rl.numLines);
    ptr.assign(lines + 1, 0);
    for (int32_t l : rl.lines)
      ++ptr[static_cast<size_t>(l) + 1];
    for (size_t l = 0; l < lines; ++l)
      ptr[l + 1] += ptr[l];

    // One slot per (row, k-th line of the row), grouped by line.
    std::vector<Slot> slots(rl.lines.size());
    std::vector<int32_t> fill(ptr.begin(), ptr.end() - 1);
    for (int32_t r = 0; r < rl.rows; ++r) {
      uint32_t print = fingerprint(r);
      for (int32_t k = 0, e = rl.count(r); k < e; ++k)
        slots[fill[rl.begin(r)[k]]++] = {
            {sortKey(r, k, 1), sortKey(r, k, 3)}, print, r};
    }
    if (similarityOrder)
      for (size_t l = 0; l < lines; ++l)
        std::sort(slots.begin() + ptr[l], slots.begin() + ptr[l + 1], less);

    posts.resize(slots.size());
    for (size_t pos = 0; pos < slots.size(); ++pos) {
      int32_t p = static_cast<int32_t>(pos), r = slots[pos].row;
      posts[pos] = {r, rl.count(r), p + 1, p - 1, slots[pos].print};
    }
    slots = std::vector<Slot>();
    // Lines are laid out in ascending order, so the k-th time a row shows
    // up is its k-th line.
    slotOf.resize(posts.size());
    std::vector<int32_t> seen(static_cast<size_t>(rl.rows), 0);
    for (size_t pos = 0; pos < posts.size(); ++pos) {
      int32_t r = posts[pos].row;
      slotOf[rl.ptr[r] + seen[r]++] = static_cast<int32_t>(pos);
    }
  }

  /// Starts loading the positions around `row` in each of its lines (the
  /// scans of one reference miss the cache once per line otherwise).
  void prefetch(int32_t row) const {
    const int32_t *slot = slotOf.data() + rl.ptr[row];
    for (int32_t k = 0, e = rl.count(row); k < e; ++k)
      __builtin_prefetch(&posts[slot[k]]);
  }

  /// Appends to `out` at most `sameLimit` unused rows holding the k-th line of
  /// the placed row `row`: the rows next to it with its fingerprint, then at
  /// most `limit` others, nearest to `row` first, alternately after and
  /// before it. Returns true when unused rows of the line were left out.
  bool scan(int32_t row, int32_t k, int64_t limit, int64_t sameLimit,
            std::vector<Hit> &out) {
    assert(used[row] && "scans start from a placed row");
    int32_t line = rl.begin(row)[k];
    int32_t lo = ptr[line] - 1, hi = ptr[line + 1];
    int32_t center = slotOf[rl.ptr[row] + k];
    int32_t after = find(center, hi, &Post::next);
    int32_t before = find(center, lo, &Post::prev);
    // The rows with the reference's fingerprint (its identical rows, which
    // the order keeps together) first.
    const uint32_t print = posts[center].print;
    int64_t same = 0;
    for (; same < sameLimit && after != hi && posts[after].print == print;
         ++same) {
      out.push_back({posts[after].row, posts[after].count});
      after = find(after + 1, hi, &Post::next);
    }
    for (; same < sameLimit && before != lo && posts[before].print == print;
         ++same) {
      out.push_back({posts[before].row, posts[before].count});
      before = find(before - 1, lo, &Post::prev);
    }
    const int64_t cap = std::min(limit, sameLimit - same);
    for (int64_t found = 0; after != hi || before != lo; ++found) {
      if (found == cap)
        return true;
      if (after != hi && (before == lo || found % 2 == 0)) {
        out.push_back({posts[after].row, posts[after].count});
        after = find(after + 1, hi, &Post::next);
      } else {
        out.push_back({posts[before].row, posts[before].count});
        before = find(before - 1, lo, &Post::prev);
      }
    }
    return false;
  }

private:
  /// One position of a line's list, with its row's line count and the skip
  /// pointers over used rows (forward and backward), kept together so that a
  /// scan touches one cache line per few positions.
  struct Post {
    int32_t row;
    int32_t count;
    int32_t next;
    int32_t prev;
    uint32_t print;
  };

  /// findUnused over `posts` with the `link` member as skip pointers.
  int32_t find(int32_t pos, int32_t end, int32_t Post::*link) {
    int32_t j = pos;
    while (j != end && used[posts[j].row])
      j = posts[j].*link;
    for (int32_t i = pos; i != j;) {
      int32_t next = posts[i].*link;
      posts[i].*link = j;
      i = next;
    }
    return j;
  }

  struct Slot {
    /// The next four lines of the row after this one, plus one (0: none),
    /// packed so that comparing keys compares those lists lexicographically
    /// (a shorter list first).
    uint64_t key[2];
    /// The row's fingerprint: identical rows are kept together.
    uint32_t print;
    int32_t row;
  };

  /// A hash of the row's line list.
  uint32_t fingerprint(int32_t r) const {
    uint64_t h =
        0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(rl.count(r)) + 1);
    for (const int32_t *l = rl.begin(r); l != rl.end(r); ++l) {
      h ^= static_cast<uint64_t>(*l) + 0x632be59bd9b4e019ull + (h << 6) +
           (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return static_cast<uint32_t>(h ^ (h >> 32));
  }

  /// Lines k + step and k + step + 1 of row r, plus one (0: none), packed.
  uint64_t sortKey(int32_t r, int32_t k, int32_t step) const {
    const int32_t *l = rl.begin(r);
    int32_t n = rl.count(r), i = k + step;
    uint64_t first = i < n ? static_cast<uint64_t>(l[i]) + 1 : 0;
    uint64_t second = i + 1 < n ? static_cast<uint64_t>(l[i + 1]) + 1 : 0;
    return first << 32 | second;
  }

  static bool less(const Slot &a, const Slot &b) {
    if (a.key[0] != b.key[0])
      return a.key[0] < b.key[0];
    if (a.key[1] != b.key[1])
      return a.key[1] < b.key[1];
    if (a.print != b.print)
      return a.print < b.print;
    return a.row < b.row;
  }

  const RowLines &rl;
  const RowSet &used;
  std::vector<int32_t> ptr;
  std::vector<Post> posts;
  /// The position in `posts` of each entry of RowLines::lines.
  std::vector<int32_t> slotOf;
};

/// Rows in a fixed order under a 64-bit key, with "first unused row at or
/// after / at or before a position" queries.
class SortedRows {
public:
  SortedRows(std::vector<std::pair<uint64_t, int32_t>> keyed,
             const RowSet &used)
      : used(used) {
    std::sort(keyed.begin(), keyed.end());
    keys.reserve(keyed.size());
    rows.reserve(keyed.size());
    for (const auto &[key, row] : keyed) {
      keys.push_back(key);
      rows.push_back(row);
    }
    int32_t n = size();
    next.resize(rows.size());
    prev.resize(rows.size());
    for (int32_t i = 0; i < n; ++i) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
  }

  int32_t size() const { return static_cast<int32_t>(rows.size()); }
  int32_t rowAt(int32_t pos) const { return rows[pos]; }
  uint64_t keyAt(int32_t pos) const { return keys[pos]; }
  /// The first position whose key is >= key.
  int32_t lowerBound(uint64_t key) const {
    return static_cast<int32_t>(
        std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
  }
  /// The smallest position >= pos holding an unused row, or size().
  int32_t nextUnused(int32_t pos) {
    return findUnused(pos, size(), rows, next, used);
  }
  /// The largest position <= pos holding an unused row, or -1.
  int32_t prevUnused(int32_t pos) {
    return findUnused(pos, -1, rows, prev, used);
  }

private:
  const RowSet &used;
  std::vector<uint64_t> keys;
  std::vector<int32_t> rows;
  std::vector<int32_t> next, prev;
};

/// The unused rows by line count: the candidates that share no line with
/// the reference. Sorted by (count, index) and, with `byWarpLoad`, also by
/// (count, warp load, index).
class ByCount {
public:
  ByCount(const std::vector<int32_t> &count, const std::vector<int32_t> &load,
          const RowSet &used, bool byWarpLoad)
      : load(load), byIndex(keyed(count, nullptr), used) {
    if (byWarpLoad)
      byLoad.emplace_back(keyed(count, &load), used);
  }

  /// The unused row of smallest (count, index); -1 when none is left.
  int32_t first() {
    int32_t pos = byIndex.nextUnused(0);
    return pos == byIndex.size() ? -1 : byIndex.rowAt(pos);
  }

  /// Among the unused rows of the smallest count, the one of smallest
  /// (|wl(r) - target|, index); -1 when none is left. Needs byWarpLoad.
  int32_t closestLoad(int32_t target) {
    assert(!byLoad.empty() && "built without the warp-load order");
    SortedRows &s = byLoad.front();
    int32_t head = s.nextUnused(0);
    if (head == s.size())
      return -1;
    uint64_t countKey = s.keyAt(head) & ~uint64_t(0xffffffff);
    int32_t lo = s.lowerBound(countKey | static_cast<uint32_t>(target));
    int32_t best = -1;
    int32_t above = s.nextUnused(lo);
    if (above != s.size() &&
        (s.keyAt(above) & ~uint64_t(0xffffffff)) == countKey)
      best = s.rowAt(above);
    int32_t below = lo > 0 ? s.prevUnused(lo - 1) : -1;
    if (below >= 0 && (s.keyAt(below) & ~uint64_t(0xffffffff)) == countKey) {
      // The smallest index among the unused rows of that warp load.
      int32_t cand = s.rowAt(s.nextUnused(s.lowerBound(s.keyAt(below))));
      int64_t dc = std::abs(load[cand] - target);
      if (best < 0 || dc < std::abs(load[best] - target) ||
          (dc == std::abs(load[best] - target) && cand < best))
        best = cand;
    }
    return best;
  }

private:
  static std::vector<std::pair<uint64_t, int32_t>>
  keyed(const std::vector<int32_t> &count, const std::vector<int32_t> *load) {
    std::vector<std::pair<uint64_t, int32_t>> out(count.size());
    for (size_t r = 0; r < count.size(); ++r)
      out[r] = {static_cast<uint64_t>(count[r]) << 32 |
                    (load ? static_cast<uint32_t>((*load)[r]) : 0u),
                static_cast<int32_t>(r)};
    return out;
  }

  const std::vector<int32_t> &load;
  SortedRows byIndex;
  /// Zero or one element (SortedRows is not default-constructible).
  std::vector<SortedRows> byLoad;
};

/// A lexicographic choice key; the row index makes it unique.
struct Key {
  int64_t primary = kUnlimited;
  int64_t secondary = 0;
  int64_t tie = 0;
  int32_t row = -1;

  bool operator<(const Key &o) const {
    if (primary != o.primary)
      return primary < o.primary;
    if (secondary != o.secondary)
      return secondary < o.secondary;
    if (tie != o.tie)
      return tie < o.tie;
    return row < o.row;
  }
};

/// The state both families share.
struct Common {
  Common(const CsrMatrix &m, const PermutationOptions &options)
      : rl(buildRowLines(m, options.lineWidth)), used(m.rows),
        limit(options.candidateLimit == 0 ? kUnlimited
                                          : options.candidateLimit),
        warps(options.warps), index(rl, used, limit != kUnlimited) {
    count.resize(static_cast<size_t>(m.rows));
    load.resize(static_cast<size_t>(m.rows));
    for (int32_t r = 0; r < m.rows; ++r) {
      count[r] = rl.count(r);
      load[r] = warpLoad(m.rowLength(r));
    }
    order.reserve(static_cast<size_t>(m.rows));
  }

  /// The rows a scan may take from each line of a reference of `lines`
  /// lines.
  int64_t window(int64_t lines) const {
    if (lines <= kLineBudget || limit == kUnlimited)
      return limit;
    return std::min(
        limit, std::max<int64_t>(2, (kLineBudget * limit + lines - 1) / lines));
  }

  void take(int32_t r) {
    assert(r >= 0 && !used[r] && "row taken twice");
    used.set(r);
    order.push_back(r);
  }

  RowLines rl;
  RowSet used;
  int64_t limit;
  int32_t warps;
  LineIndex index;
  std::vector<int32_t> count, load;
  std::vector<int32_t> order;
};

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_CACHEAWARE_H
