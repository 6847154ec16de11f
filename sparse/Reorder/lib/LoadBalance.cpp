//===- LoadBalance.cpp - Load-balancing row permutations --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Mehrabi et al.'s load-balancing sorts: plain, flipped, LPT and hybrid-1.
//
// plain and flipped are one stable sort by decreasing nnz (flipped then
// reverses every odd-numbered group of N_w positions in place).
//
// LPT. The seed's pseudo-code queues rows per warp and interleaves the
// queues; with unequal queue lengths that breaks the position -> warp
// mapping (position i runs on warp i mod N_w), so this version constrains
// capacity instead:
//  1. Rows are sorted by decreasing warp load, ties by decreasing nnz, then
//     by index (which is plainOrder: the warp load is monotone in nnz).
//  2. The sorted rows are cut into consecutive CTA windows of
//     N_w * rowsPerWarp rows (the last one may be partial).
//  3. Inside a window, warp w owns the window positions congruent to w mod
//     N_w: rowsPerWarp of them in a full window, floor(n / N_w) or one more
//     in a partial window of n rows. Each row, in the sorted order, goes to
//     the warp of least current time that still has a free position (ties:
//     the smaller warp index), and each warp's rows fill its positions in
//     assignment order.
//  4. Greedy LPT is not optimal, and with the unequal capacities of a
//     partial window it can be poor (a heavy row tied onto warp 0, which
//     has one more position than the others, later gets a light row too).
//     Unless the window already meets a lower bound (the mean warp time,
//     and the heaviest row plus the lightest rows that must share its
//     warp), a repair pass repeatedly swaps a row of the straggler warp
//     with a lighter row of another warp when that brings the larger of the
//     two warps' times below the straggler's. It takes the swap that lowers
//     that pair maximum most (ties: the first found, scanning the warps by
//     index and the straggler's rows by increasing load) and stops at the
//     bound, when no swap helps, or after kMaxRepairSwaps swaps. Swapped
//     rows trade positions, so the other rows keep their assignment order.
//     On the 400 generated matrices of the tuning run the pass removed 30%
//     of the gap between greedy LPT and that lower bound (which is not
//     always reachable); without it the gap was under 1% already.
//  5. The objective (PermutationQuality::ctaMaxWarpLoadSum, computed as
//     evaluatePermutation does) of the result is compared with that of the
//     input order, and the input order is returned when it is strictly
//     better: the strategy never makes the objective worse.
//
// hybrid-1 (localityTieBreak) adds two locality criteria that cannot change
// any window's load multiset:
//  * each run of equal warp load in the sorted order is re-chained greedily:
//    it starts with the run's first row, and each next row is the unused row
//    of the run with the smallest Hamming distance (over cache lines of B) to
//    the previous one, ties to the earlier one in sorted order. The search
//    is bounded by PermutationOptions::candidateLimit: only the first
//    candidateLimit unused rows of the run (in sorted order) are
//    candidates, and a step stops examining them once they hold
//    kChainLineBudget cache lines (so long rows do not cost
//    O(nnz * candidateLimit)); a step costs O(min(candidateLimit * lines,
//    kChainLineBudget)). candidateLimit 0 examines the whole run without a
//    budget (quadratic). Runs of empty rows are left as they are;
//  * among the free warps of equal least time, the row goes to the one whose
//    last assigned row is nearest in Hamming distance (a warp without rows
//    counts as an empty line set), ties to the smaller index; at most
//    candidateLimit tied warps (those of smallest index) are examined.
//
//===----------------------------------------------------------------------===//

#include "RowLines.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

/// Upper bound on the repair swaps of one window (step 4 above). Each swap
/// strictly lowers the sum of squared warp times, so the pass ends anyway;
/// the bound only caps the cost on adversarial inputs.
constexpr int kMaxRepairSwaps = 256;

/// hybrid-1's chaining examines at most this many cache lines of candidates
/// per step (candidateLimit rows of up to 32 lines, the most a row of warp
/// load 1 has, fit 64 of them): without the bound, runs of long rows would
/// cost O(nnz * candidateLimit).
constexpr int64_t kChainLineBudget = 64 * 32;

/// The warp load of every row.
std::vector<int32_t> rowWarpLoads(const CsrMatrix &m) {
  std::vector<int32_t> load(static_cast<size_t>(m.rows));
  for (int32_t r = 0; r < m.rows; ++r)
    load[r] = warpLoad(m.rowLength(r));
  return load;
}

/// PermutationQuality::ctaMaxWarpLoadSum of `order`, computed as
/// evaluatePermutation() does but from precomputed loads and without the
/// cache-line statistics.
int64_t ctaMaxWarpLoadSum(const std::vector<int32_t> &load,
                          const std::vector<int32_t> &order, int32_t warps,
                          int64_t window) {
  const int64_t rows = static_cast<int64_t>(order.size());
  std::vector<int64_t> warpTime(static_cast<size_t>(warps));
  int64_t sum = 0;
  for (int64_t start = 0; start < rows; start += window) {
    std::fill(warpTime.begin(), warpTime.end(), 0);
    const int64_t end = std::min(rows, start + window);
    for (int64_t p = start; p < end; ++p)
      warpTime[(p - start) % warps] += load[order[p]];
    sum += *std::max_element(warpTime.begin(), warpTime.end());
  }
  return sum;
}

/// Hamming distances between the cache-line sets of one reference row and
/// other rows: the reference's lines are stamped once, then each distance
/// costs O(the other row's lines).
class LineDistance {
public:
  explicit LineDistance(const RowLines &rl)
      : rl(rl), stamp(static_cast<size_t>(rl.numLines), 0) {}

  /// Makes `row` the reference row.
  void setReference(int32_t row) {
    if (++generation == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      generation = 1;
    }
    reference = row;
    for (const int32_t *l = rl.begin(row); l != rl.end(row); ++l)
      stamp[*l] = generation;
  }

  /// |lines(reference) XOR lines(row)|; `row` == -1 stands for a row
  /// without lines.
  int64_t distance(int32_t row) const {
    if (row < 0)
      return rl.count(reference);
    int64_t shared = 0;
    for (const int32_t *l = rl.begin(row); l != rl.end(row); ++l)
      shared += stamp[*l] == generation;
    return static_cast<int64_t>(rl.count(reference)) + rl.count(row) -
           2 * shared;
  }

  /// The number of lines of `row`.
  int32_t lineCount(int32_t row) const { return rl.count(row); }

private:
  const RowLines &rl;
  std::vector<uint32_t> stamp;
  uint32_t generation = 0;
  int32_t reference = -1;
};

/// hybrid-1's chaining of one run of equal warp load (see the file
/// comment): run[0] stays first, and each next row is the candidate (one of
/// the first `limit` unused rows of the run) nearest to the previous one,
/// ties to the earlier in the run. Unless `limit` covers the whole run
/// (exact search), a step also stops examining candidates once they hold
/// kChainLineBudget lines in all (always after the first).
void chainRun(int32_t *run, size_t n, size_t limit, LineDistance &distance,
              std::vector<int32_t> &pending, std::vector<int32_t> &chained) {
  const bool exact = limit >= n - 1;
  chained.assign(1, run[0]);
  pending.clear();
  size_t next = 1;
  while (next < n && pending.size() < limit)
    pending.push_back(run[next++]);
  while (!pending.empty()) {
    distance.setReference(chained.back());
    size_t best = 0;
    int64_t bestDistance = std::numeric_limits<int64_t>::max();
    int64_t budget =
        exact ? std::numeric_limits<int64_t>::max() : kChainLineBudget;
    for (size_t i = 0; i < pending.size() && bestDistance > 0 && budget > 0;
         ++i) {
      budget -= distance.lineCount(pending[i]);
      const int64_t d = distance.distance(pending[i]);
      if (d < bestDistance) {
        bestDistance = d;
        best = i;
      }
    }
    chained.push_back(pending[best]);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(best));
    if (next < n)
      pending.push_back(run[next++]);
  }
  std::copy(chained.begin(), chained.end(), run);
}

/// hybrid-1: re-chains every run of equal nonzero warp load of `order`.
/// Runs of empty rows (load 0) have no lines, so their chain would be the
/// sorted order: they are skipped.
void chainEqualLoadRuns(std::vector<int32_t> &order,
                        const std::vector<int32_t> &load,
                        LineDistance &distance, int32_t candidateLimit) {
  std::vector<int32_t> pending, chained;
  const size_t n = order.size();
  size_t begin = 0;
  while (begin < n) {
    const int32_t runLoad = load[order[begin]];
    size_t end = begin + 1;
    while (end < n && load[order[end]] == runLoad)
      ++end;
    if (runLoad > 0 && end - begin > 2)
      chainRun(order.data() + begin, end - begin,
               candidateLimit == 0 ? end - begin
                                   : static_cast<size_t>(candidateLimit),
               distance, pending, chained);
    begin = end;
  }
}

/// Capacity-constrained LPT inside one CTA window, with the repair pass
/// (steps 3 and 4 of the file comment). Buffers are reused across windows.
class WindowScheduler {
public:
  /// `distance` is null for LPT and set for hybrid-1's locality tie-break.
  WindowScheduler(const std::vector<int32_t> &load, int32_t warps,
                  LineDistance *distance, int32_t candidateLimit)
      : load(load), warps(warps), distance(distance),
        candidateLimit(candidateLimit), members(static_cast<size_t>(warps)),
        time(static_cast<size_t>(warps)), lastRow(static_cast<size_t>(warps)) {}

  /// Schedules rows[0, n) (in decreasing warp load) and writes them to
  /// out[0, n) so that out[p] runs on warp p mod N_w.
  void schedule(const int32_t *rows, int32_t n, int32_t *out) {
    const int32_t active = std::min(warps, n);
    for (int32_t w = 0; w < active; ++w) {
      members[w].clear();
      time[w] = 0;
      lastRow[w] = -1;
    }
    // The warps with a free position, ordered by (time, warp).
    free.clear();
    for (int32_t w = 0; w < active; ++w)
      free.emplace_hint(free.end(), 0, w);

    for (int32_t i = 0; i < n; ++i) {
      const int32_t row = rows[i];
      auto chosen = distance ? pickNearestTied(row) : free.begin();
      const int32_t w = chosen->second;
      members[w].push_back(row);
      time[w] += load[row];
      lastRow[w] = row;
      // Re-key the node in place, or drop the warp once it is full.
      auto node = free.extract(chosen);
      if (static_cast<int32_t>(members[w].size()) < capacity(w, n)) {
        node.value().first = time[w];
        free.insert(std::move(node));
      }
    }

    repair(rows, n, active);

    for (int32_t w = 0; w < active; ++w)
      for (size_t k = 0; k < members[w].size(); ++k)
        out[w + static_cast<int64_t>(k) * warps] = members[w][k];
  }

private:
  /// (time, warp) of the warps with a free position.
  using FreeSet = std::set<std::pair<int64_t, int32_t>>;
  /// (load, position index in the warp) of one of a warp's rows.
  using SlotEntry = std::pair<int64_t, size_t>;

  /// The positions warp `w` owns in a window of `n` rows.
  int32_t capacity(int32_t w, int32_t n) const {
    return n / warps + (w < n % warps ? 1 : 0);
  }

  /// hybrid-1: among the free warps of least time (the first
  /// candidateLimit of them by index; all when it is 0), the one whose last
  /// row is nearest to `row`, ties to the smaller index.
  FreeSet::iterator pickNearestTied(int32_t row) {
    const int64_t least = free.begin()->first;
    const size_t limit = candidateLimit == 0
                             ? std::numeric_limits<size_t>::max()
                             : static_cast<size_t>(candidateLimit);
    auto best = free.begin();
    // A warp without rows has time 0 and is at distance |lines(row)|; the
    // warps tied with it have no rows or only empty ones, so they are at the
    // same distance and the first one wins.
    if (lastRow[best->second] < 0)
      return best;
    distance->setReference(row);
    int64_t bestDistance = std::numeric_limits<int64_t>::max();
    size_t examined = 0;
    for (auto it = free.begin(); it != free.end() && it->first == least &&
                                 examined < limit && bestDistance > 0;
         ++it, ++examined) {
      int64_t d = distance->distance(lastRow[it->second]);
      if (d < bestDistance) {
        bestDistance = d;
        best = it;
      }
    }
    return best;
  }

  /// Step 4 of the file comment: swaps between the straggler and another
  /// warp while they lower the pair's larger time below the straggler's.
  void repair(const int32_t *rows, int32_t n, int32_t active) {
    // Lower bound on the window time: the mean warp time, and the heaviest
    // row with the lightest rows that fill the rest of its warp (every warp
    // is full and holds at least floor(n / N_w) rows).
    int64_t total = 0;
    for (int32_t w = 0; w < active; ++w)
      total += time[w];
    int64_t heaviestWarp = load[rows[0]];
    for (int32_t k = 1; k < n / warps; ++k)
      heaviestWarp += load[rows[n - k]];
    const int64_t bound =
        std::max<int64_t>(heaviestWarp, (total + active - 1) / active);
    for (int swaps = 0; swaps < kMaxRepairSwaps; ++swaps) {
      const int32_t s = static_cast<int32_t>(
          std::max_element(time.begin(), time.begin() + active) - time.begin());
      const int64_t straggler = time[s];
      if (straggler <= bound)
        return;
      // The straggler's rows by increasing load (ties: position).
      sortedSlots(s, stragglerSlots);

      int64_t bestMax = straggler;
      int32_t bestWarp = -1;
      size_t bestA = 0, bestB = 0;
      for (int32_t o = 0; o < active; ++o) {
        const int64_t gap = straggler - time[o];
        if (o == s || gap < 2)
          continue;
        sortedSlots(o, otherSlots);
        // Moving d = load(a) - load(b) from the straggler to o gives the
        // pair maximum max(straggler - d, time[o] + d): best for d near
        // gap / 2, useful for d in [1, gap - 1].
        for (size_t ia = 0; ia < stragglerSlots.size(); ++ia) {
          const int64_t la = stragglerSlots[ia].first;
          if (ia > 0 && stragglerSlots[ia - 1].first == la)
            continue;
          // The first b with load >= la - gap / 2, and the one before it.
          const int64_t ideal = la - gap / 2;
          auto it = std::lower_bound(
              otherSlots.begin(), otherSlots.end(), ideal,
              [](const SlotEntry &e, int64_t v) { return e.first < v; });
          auto consider = [&](std::vector<SlotEntry>::const_iterator b) {
            const int64_t d = la - b->first;
            if (d < 1 || d >= gap)
              return;
            const int64_t pairMax = std::max(straggler - d, time[o] + d);
            if (pairMax < bestMax) {
              bestMax = pairMax;
              bestWarp = o;
              bestA = stragglerSlots[ia].second;
              bestB = b->second;
            }
          };
          if (it != otherSlots.end())
            consider(it);
          if (it != otherSlots.begin()) {
            // The first of the run of equal loads before `it`.
            auto prev = std::prev(it);
            auto first = std::lower_bound(
                otherSlots.begin(), prev, prev->first,
                [](const SlotEntry &e, int64_t v) { return e.first < v; });
            consider(first);
          }
        }
      }
      if (bestWarp < 0)
        return;
      std::swap(members[s][bestA], members[bestWarp][bestB]);
      const int64_t d =
          load[members[bestWarp][bestB]] - load[members[s][bestA]];
      time[s] -= d;
      time[bestWarp] += d;
    }
  }

  /// Warp w's (load, position index) pairs by increasing load, then index.
  void sortedSlots(int32_t w, std::vector<SlotEntry> &out) const {
    out.clear();
    for (size_t k = 0; k < members[w].size(); ++k)
      out.emplace_back(load[members[w][k]], k);
    std::sort(out.begin(), out.end());
  }

  const std::vector<int32_t> &load;
  const int32_t warps;
  LineDistance *distance;
  const int32_t candidateLimit;
  std::vector<std::vector<int32_t>> members;
  std::vector<int64_t> time;
  std::vector<int32_t> lastRow;
  FreeSet free;
  std::vector<SlotEntry> stragglerSlots, otherSlots;
};

} // namespace

std::vector<int32_t> detail::plainOrder(const CsrMatrix &m) {
  // Sorting (max - nnz, row) keys is a stable sort by decreasing nnz.
  const int32_t rows = m.rows;
  int32_t maxNnz = 0;
  for (int32_t r = 0; r < rows; ++r)
    maxNnz = std::max(maxNnz, m.rowLength(r));
  std::vector<uint64_t> keys(static_cast<size_t>(rows));
  for (int32_t r = 0; r < rows; ++r)
    keys[r] = (static_cast<uint64_t>(maxNnz - m.rowLength(r)) << 32) |
              static_cast<uint32_t>(r);
  std::sort(keys.begin(), keys.end());
  std::vector<int32_t> order(static_cast<size_t>(rows));
  for (int32_t i = 0; i < rows; ++i)
    order[i] = static_cast<int32_t>(keys[i] & 0xffffffffu);
  return order;
}

std::vector<int32_t> detail::flippedOrder(const CsrMatrix &m,
                                          const PermutationOptions &options) {
  std::vector<int32_t> order = plainOrder(m);
  // A partial last group is reversed as far as it goes: its heaviest row
  // lands on its last position, not on warp N_w - 1.
  const size_t group = static_cast<size_t>(options.warps);
  for (size_t start = group; start < order.size(); start += 2 * group)
    std::reverse(order.begin() + static_cast<std::ptrdiff_t>(start),
                 order.begin() + static_cast<std::ptrdiff_t>(
                                     std::min(order.size(), start + group)));
  return order;
}

std::vector<int32_t> detail::lptOrder(const CsrMatrix &m,
                                      const PermutationOptions &options,
                                      bool localityTieBreak) {
  const int32_t rows = m.rows;
  std::vector<int32_t> identity(static_cast<size_t>(rows));
  std::iota(identity.begin(), identity.end(), 0);
  if (rows == 0)
    return identity;

  const std::vector<int32_t> load = rowWarpLoads(m);
  // Decreasing warp load, then decreasing nnz, then index.
  std::vector<int32_t> sorted = plainOrder(m);

  RowLines lines;
  std::unique_ptr<LineDistance> distance;
  if (localityTieBreak) {
    lines = buildRowLines(m, options.lineWidth);
    distance = std::make_unique<LineDistance>(lines);
    chainEqualLoadRuns(sorted, load, *distance, options.candidateLimit);
  }

  const int32_t warps = options.warps;
  const int64_t window = static_cast<int64_t>(warps) * options.rowsPerWarp;
  std::vector<int32_t> order(static_cast<size_t>(rows));
  WindowScheduler scheduler(load, warps, distance.get(),
                            options.candidateLimit);
  for (int64_t start = 0; start < rows; start += window) {
    const int32_t n =
        static_cast<int32_t>(std::min<int64_t>(window, rows - start));
    scheduler.schedule(sorted.data() + start, n, order.data() + start);
  }

  // The guarantee: never worse than the input order.
  if (ctaMaxWarpLoadSum(load, identity, warps, window) <
      ctaMaxWarpLoadSum(load, order, warps, window))
    return identity;
  return order;
}
