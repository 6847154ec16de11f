//===- CacheAware.cpp - Warp-aware and CTA-aware row orders -----*- C++ -*-===//
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
// Warp-aware (warp-aware; hybrid-2.3), the seed's warp_aware_sort:
//  * position 0: key (wl(r), r);
//  * position p >= 1, with the reference row a = order[max(0, p - N_w)]:
//    key (H(a, r), tb, r). tb = 0 for warp-aware. For hybrid-2.3
//    tb = |wl(r) - wl(order[p - p % N_w])|, the warp-load distance to the
//    first row of the current group of N_w positions, and tb = 0 at the first
//    position of a group (p % N_w == 0), which has no earlier row in it.
//
// CTA-aware (cta-aware; hybrid-2.1, hybrid-2.2): the positions are cut into
// clusters of N_w consecutive positions (the last one may be shorter).
//  * The first position of a cluster takes the unused row of smallest index,
//    the seed s; the cluster's union starts as U = L(s).
//  * Every further position p of the cluster takes the row of smallest key
//    (|L(r) \ U|, H(L(r), U), tb, r); then U grows by L(r). The first
//    component counts the lines the row adds to the cluster; the second is
//    equivalent to "most lines shared with U". tb = 0 for cta-aware;
//    hybrid-2.1: tb = |wl(r) - wl(s)|; hybrid-2.2: tb = H(r, order[p - N_w])
//    (the row of the same warp in the previous cluster) when p >= N_w, else
//    0.
//  A cluster has N_w rows, one per warp; a CTA window of N_w * rowsPerWarp
//  positions holds rowsPerWarp consecutive clusters.
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

#include "RowLines.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

/// References of more lines than this share a budget of this many times the
/// candidate limit across their lines (at least 2 rows per line).
constexpr int64_t kLineBudget = 2;

/// |L(a) AND L(b)|, merging or galloping through the longer list.
int64_t sharedCount(const RowLines &rl, int32_t a, int32_t b) {
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
int32_t findUnused(int32_t pos, int32_t end, const std::vector<int32_t> &slots,
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

//===----------------------------------------------------------------------===//
// Warp-aware
//===----------------------------------------------------------------------===//

class WarpAware {
public:
  WarpAware(const CsrMatrix &m, const PermutationOptions &options,
            WarpAwareTieBreak tieBreak)
      : c(m, options), tieBreak(tieBreak),
        byCount(c.count, c.load, c.used,
                tieBreak == WarpAwareTieBreak::WarpLoad),
        remeasured(std::max<int64_t>(1, c.limit / 4)),
        mark(static_cast<size_t>(c.rl.numLines), 0) {}

  std::vector<int32_t> run() {
    const int32_t rows = c.rl.rows;
    if (rows == 0)
      return {};
    int32_t first = 0;
    for (int32_t r = 1; r < rows; ++r)
      if (c.load[r] < c.load[first])
        first = r;
    c.take(first);
    for (int64_t p = 1; p < rows; ++p)
      c.take(choose(p));
    return std::move(c.order);
  }

private:
  int64_t tieOf(int32_t r) const {
    return target < 0 ? 0 : std::abs(c.load[r] - target);
  }

  Key keyOf(int32_t r, int64_t count, int64_t shared) const {
    return {c.count[ref] + count - 2 * shared, tieOf(r), 0, r};
  }

  /// |L(ref) AND L(r)| exactly: through the marks of ref's lines, or by
  /// galloping when r has many more lines than ref.
  int64_t exactShared(int32_t r) {
    if (markedRef != ref) {
      markedRef = ref;
      ++markStamp;
      for (const int32_t *l = c.rl.begin(ref); l != c.rl.end(ref); ++l)
        mark[*l] = markStamp;
    }
    if (c.count[r] > 16 * static_cast<int64_t>(c.count[ref]))
      return sharedCount(c.rl, ref, r);
    int64_t n = 0;
    for (const int32_t *l = c.rl.begin(r); l != c.rl.end(r); ++l)
      n += mark[*l] == markStamp;
    return n;
  }

  int32_t choose(int64_t p) {
    const int64_t w = c.warps;
    ref = c.order[p >= w ? p - w : 0];
    target = (tieBreak == WarpAwareTieBreak::WarpLoad && p % w != 0)
                 ? c.load[c.order[p - p % w]]
                 : -1;

    // Count the shared lines of the rows met in the reference's lines.
    hits.clear();
    bool cut = false;
    const int64_t window = c.window(c.count[ref]);
    c.index.prefetch(ref);
    for (int32_t k = 0, e = c.count[ref]; k < e; ++k)
      cut |= c.index.scan(ref, k, window, c.limit, hits);
    tally.reset(std::min<size_t>(hits.size(), static_cast<size_t>(c.rl.rows)));
    for (const Hit &h : hits)
      tally.add(h);

    // The best row of the smallest line count, measured exactly.
    int32_t extra = target < 0 ? byCount.first() : byCount.closestLoad(target);
    assert(extra >= 0 && "no unused row left");
    Key best = keyOf(extra, c.count[extra], exactShared(extra));

    const int64_t refCount = c.count[ref];
    if (!cut) {
      // Complete scans: every count is exact.
      tally.forEach([&](const Tally::Entry &e) {
        best = std::min(best, keyOf(e.row, e.count, e.shared));
      });
    } else {
      // Counts from cut scans are lower bounds, exact only when they reach
      // min(|L(ref)|, |L(r)|): re-measure the other candidates of best
      // estimate.
      // Estimates packed as (distance, row) for a cheap selection.
      estimates.clear();
      tally.forEach([&](const Tally::Entry &e) {
        if (e.shared == std::min<int64_t>(e.count, refCount)) {
          best = std::min(best, keyOf(e.row, e.count, e.shared));
          return;
        }
        int64_t h = refCount + e.count - 2 * int64_t(e.shared);
        estimates.push_back(
            static_cast<uint64_t>(std::min<int64_t>(h, UINT32_MAX)) << 32 |
            static_cast<uint32_t>(e.row));
      });
      size_t keep = std::min<size_t>(remeasured, estimates.size());
      if (keep < estimates.size())
        std::nth_element(estimates.begin(), estimates.begin() + keep,
                         estimates.end());
      std::sort(estimates.begin(), estimates.begin() + keep);
      // The line lists are cache misses: start loading them all first.
      for (size_t i = 0; i < keep; ++i)
        __builtin_prefetch(&c.rl.ptr[static_cast<uint32_t>(estimates[i])]);
      for (size_t i = 0; i < keep; ++i)
        __builtin_prefetch(c.rl.begin(static_cast<uint32_t>(estimates[i])));
      for (size_t i = 0; i < keep; ++i) {
        int32_t r = static_cast<int32_t>(static_cast<uint32_t>(estimates[i]));
        // Skip rows that cannot win even sharing all they can.
        int64_t optimistic = std::abs(refCount - c.count[r]);
        if (!(Key{optimistic, tieOf(r), 0, r} < best))
          continue;
        best = std::min(best, keyOf(r, c.count[r], exactShared(r)));
      }
    }
    return best.row;
  }

  Common c;
  WarpAwareTieBreak tieBreak;
  ByCount byCount;
  Tally tally;
  std::vector<Hit> hits;
  std::vector<uint64_t> estimates;
  /// Candidates re-measured per choice after cut scans.
  int64_t remeasured;
  /// mark[line] == markStamp for the lines of markedRef.
  std::vector<uint32_t> mark;
  uint32_t markStamp = 0;
  int32_t markedRef = -1;
  /// The reference row of the current choice and its warp-load target (-1:
  /// no tie-break).
  int32_t ref = -1;
  int32_t target = -1;
};

//===----------------------------------------------------------------------===//
// CTA-aware
//===----------------------------------------------------------------------===//

class CtaAware {
public:
  CtaAware(const CsrMatrix &m, const PermutationOptions &options,
           CtaAwareTieBreak tieBreak)
      : c(m, options), tieBreak(tieBreak),
        byCount(c.count, c.load, c.used,
                tieBreak == CtaAwareTieBreak::WarpLoad),
        inU(static_cast<size_t>(c.rl.numLines), -1),
        shared(static_cast<size_t>(m.rows), 0) {}

  std::vector<int32_t> run() {
    const int32_t rows = c.rl.rows;
    int32_t seedCursor = 0;
    for (int64_t cluster = 0; static_cast<int32_t>(c.order.size()) < rows;
         ++cluster) {
      while (c.used[seedCursor])
        ++seedCursor;
      startCluster(cluster, seedCursor);
      for (int32_t k = 1;
           k < c.warps && static_cast<int32_t>(c.order.size()) < rows; ++k) {
        int32_t r = choose();
        c.take(r);
        addLines(r);
      }
      endCluster();
    }
    return std::move(c.order);
  }

private:
  struct Entry {
    int32_t row;
    int32_t shared;
  };

  void startCluster(int64_t cluster, int32_t s) {
    stamp = cluster;
    seed = s;
    cut = false;
    minBucket = kUnlimited;
    c.take(s);
    int32_t first = byCount.first();
    pushLimit = first < 0 ? 0 : c.count[first];
    addLines(s);
  }

  void endCluster() {
    for (int32_t r : touched)
      shared[r] = 0;
    touched.clear();
    for (int64_t b : usedBuckets)
      buckets[b].clear();
    usedBuckets.clear();
  }

  void push(int32_t r) {
    int64_t b = c.count[r] - shared[r];
    if (static_cast<size_t>(b) >= buckets.size())
      buckets.resize(static_cast<size_t>(b) + 1);
    if (buckets[b].empty())
      usedBuckets.push_back(b);
    buckets[b].push_back({r, shared[r]});
    minBucket = std::min(minBucket, b);
  }

  /// Adds the lines of the row just placed to U, counting them for the rows
  /// that hold them.
  void addLines(int32_t x) {
    const int32_t *lines = c.rl.begin(x);
    int64_t fresh = 0;
    for (int32_t k = 0, e = c.count[x]; k < e; ++k)
      fresh += inU[lines[k]] != stamp;
    const int64_t window = c.window(fresh);
    for (int32_t k = 0, e = c.count[x]; k < e; ++k) {
      if (inU[lines[k]] == stamp)
        continue;
      inU[lines[k]] = stamp;
      buffer.clear();
      cut |= c.index.scan(x, k, window, c.limit, buffer);
      for (const Hit &h : buffer) {
        int32_t r = h.row;
        if (shared[r] == 0)
          touched.push_back(r);
        ++shared[r];
        if (c.count[r] - shared[r] <= pushLimit)
          push(r);
      }
    }
  }

  /// Raises the push limit to the smallest line count c*, queueing the
  /// counted rows it now admits.
  void raisePushLimit(int64_t minCount) {
    if (minCount <= pushLimit)
      return;
    for (int32_t r : touched) {
      int64_t fresh = c.count[r] - shared[r];
      if (!c.used[r] && fresh > pushLimit && fresh <= minCount)
        push(r);
    }
    pushLimit = minCount;
  }

  int64_t sharedWithU(int32_t r) const {
    int64_t n = 0;
    for (const int32_t *l = c.rl.begin(r); l != c.rl.end(r); ++l)
      n += inU[*l] == stamp;
    return n;
  }

  int64_t tieOf(int32_t r, int32_t q) const {
    switch (tieBreak) {
    case CtaAwareTieBreak::None:
      return 0;
    case CtaAwareTieBreak::WarpLoad:
      return std::abs(c.load[r] - c.load[seed]);
    case CtaAwareTieBreak::IntraWarpDistance:
      return q < 0 ? 0 : c.count[r] + c.count[q] - 2 * sharedCount(c.rl, r, q);
    }
    return 0;
  }

  Key keyOf(int32_t r, int64_t s, int32_t q) const {
    return {c.count[r] - s, -s, tieOf(r, q), r};
  }

  /// The best queued row with |L(r) \ U| <= maxNew; a default Key if none.
  Key bestQueued(int64_t maxNew, int32_t q) {
    for (;;) {
      Key best;
      int64_t top =
          std::min<int64_t>(maxNew, static_cast<int64_t>(buckets.size()) - 1);
      for (int64_t b = minBucket; b <= top; ++b) {
        std::vector<Entry> &bucket = buckets[b];
        // Drop the stale entries; find the largest shared count.
        int32_t most = -1;
        for (size_t i = 0; i < bucket.size();) {
          const Entry &e = bucket[i];
          if (c.used[e.row] || shared[e.row] != e.shared) {
            bucket[i] = bucket.back();
            bucket.pop_back();
            continue;
          }
          most = std::max(most, e.shared);
          ++i;
        }
        if (bucket.empty()) {
          if (b == minBucket)
            ++minBucket;
          continue;
        }
        for (const Entry &e : bucket)
          if (e.shared == most)
            best = std::min(best, keyOf(e.row, most, q));
        break;
      }
      if (best.row < 0 || !cut)
        return best;
      // Cut scans undercount: re-measure the winner, and re-queue it when
      // it shares more lines with U than counted.
      int64_t exact = sharedWithU(best.row);
      if (exact == shared[best.row])
        return best;
      shared[best.row] = static_cast<int32_t>(exact);
      push(best.row);
    }
  }

  int32_t choose() {
    const int64_t p = static_cast<int64_t>(c.order.size());
    const int32_t q =
        tieBreak == CtaAwareTieBreak::IntraWarpDistance && p >= c.warps
            ? c.order[p - c.warps]
            : -1;

    // The best row of the smallest line count c*; no row of more new lines
    // can beat it.
    int32_t extra = tieBreak == CtaAwareTieBreak::WarpLoad
                        ? byCount.closestLoad(c.load[seed])
                        : byCount.first();
    assert(extra >= 0 && "no unused row left");
    const int64_t minCount = c.count[extra];
    raisePushLimit(minCount);
    Key best = keyOf(extra, sharedWithU(extra), q);
    best = std::min(best, bestQueued(best.primary, q));

    // hybrid-2.2: rows of count c* sharing no line with U tie with `extra`
    // on the first two components; the tie-break prefers those sharing
    // lines with q.
    if (q >= 0 && minCount > 0 && best.primary == minCount) {
      const int64_t window = c.window(c.count[q]);
      for (int32_t k = 0, e = c.count[q]; k < e; ++k) {
        buffer.clear();
        c.index.scan(q, k, window, c.limit, buffer);
        for (const Hit &h : buffer)
          if (h.count == minCount)
            best = std::min(best, keyOf(h.row, sharedWithU(h.row), q));
      }
    }
    return best.row;
  }

  Common c;
  CtaAwareTieBreak tieBreak;
  ByCount byCount;
  /// inU[line] == stamp when the line is in the current cluster's union.
  std::vector<int64_t> inU;
  /// Lines of U counted for each touched row.
  std::vector<int32_t> shared;
  std::vector<int32_t> touched;
  std::vector<Hit> buffer;
  /// Bucket queue on |L(r) \ U| = count - shared. An entry is stale once its
  /// row is used or its count has grown.
  std::vector<std::vector<Entry>> buckets;
  std::vector<int64_t> usedBuckets;
  int64_t minBucket = kUnlimited;
  /// Rows are queued only while |L(r) \ U| <= pushLimit = c*: no row of more
  /// new lines can beat the best row of count c*.
  int64_t pushLimit = 0;
  int64_t stamp = -1;
  int32_t seed = -1;
  /// Whether a scan of this cluster left rows out.
  bool cut = false;
};

} // namespace

std::vector<int32_t> detail::warpAwareOrder(const CsrMatrix &m,
                                            const PermutationOptions &options,
                                            WarpAwareTieBreak tieBreak) {
  return WarpAware(m, options, tieBreak).run();
}

std::vector<int32_t> detail::ctaAwareOrder(const CsrMatrix &m,
                                           const PermutationOptions &options,
                                           CtaAwareTieBreak tieBreak) {
  return CtaAware(m, options, tieBreak).run();
}
