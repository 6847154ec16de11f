//===- CtaAware.cpp - The CTA-aware row orders ------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The cache-aware sorts of Mehrabi et al. and their hybrids: the CTA-aware
// family. Notation, and how the candidates are found at scale: CacheAware.h.
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

std::vector<int32_t> detail::ctaAwareOrder(const CsrMatrix &m,
                                           const PermutationOptions &options,
                                           CtaAwareTieBreak tieBreak) {
  return CtaAware(m, options, tieBreak).run();
}
