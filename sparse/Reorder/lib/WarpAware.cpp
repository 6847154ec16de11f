//===- WarpAware.cpp - The warp-aware row orders ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The cache-aware sorts of Mehrabi et al. and their hybrids: the warp-aware
// family. Notation, and how the candidates are found at scale: CacheAware.h.
//
// Warp-aware (warp-aware; hybrid-2.3), the seed's warp_aware_sort:
//  * position 0: key (wl(r), r);
//  * position p >= 1, with the reference row a = order[max(0, p - N_w)]:
//    key (H(a, r), tb, r). tb = 0 for warp-aware. For hybrid-2.3
//    tb = |wl(r) - wl(order[p - p % N_w])|, the warp-load distance to the
//    first row of the current group of N_w positions, and tb = 0 at the first
//    position of a group (p % N_w == 0), which has no earlier row in it.
//
//===----------------------------------------------------------------------===//

#include "CacheAware.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

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

} // namespace

std::vector<int32_t> detail::warpAwareOrder(const CsrMatrix &m,
                                            const PermutationOptions &options,
                                            WarpAwareTieBreak tieBreak) {
  return WarpAware(m, options, tieBreak).run();
}
