//===- Bsa.cpp - Block-sparsity-aware row clustering ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// BSA (Euro-Par 2024) as a sequential definition; the paper's GPU kernel
// builds the same clusters with one thread block per cluster.
//
//  1. Encoding E_r: for each column block of width tau, the number of row
//     r's entries in it. nnzb = nonzero blocks, zf = tau * nnzb - nnz(r),
//     dispersion = tau * nnzb + zf.
//  2. Empty rows (dispersion 0) get cluster -1 and come first, in their
//     original order. The other rows are sorted by ascending dispersion,
//     ties by row index: the sequence `ascending`.
//  3. Clustering: walk `ascending`; the first unassigned row seeds a new
//     cluster with representative E_rep = its encoding (unnormalized). Every
//     LATER unassigned row is compared with the current representative in
//     ascending order: when J(Ê_rep, Ê_cmp) >= alpha (weightedJaccard(),
//     Ê = E / ||E||_2; bsaAccepts() for the rounding slack) the row joins
//     and E_rep += E_cmp, so the representative grows; a rejected row is not
//     reconsidered by this cluster. At the end of the walk the next
//     unassigned row seeds the next cluster.
//  4. Output: empty rows, then the clusters in creation order, each in
//     ascending-dispersion order (the order its rows joined). clusterSizes
//     lists the cluster sizes in that order.
//
// Candidate generation (exact). A row sharing no column block with E_rep
// has J = 0 < alpha, so only rows sharing a block are compared. Each block
// has a list of the rows holding it, by ascending position; a cluster keeps
// one cursor ("stream") per block of E_rep, stopped at its next row, and a
// min-heap of the rows streams are stopped at (each row once, with the
// streams stopped at it), so candidates come out in exactly the order of
// the sequential walk and each is compared once. A stream opened when an
// accepted row at position q brings a new block starts after q: the walk has
// passed the earlier rows, which then shared nothing with E_rep (J = 0).
// Assigned rows are unlinked from every list (a path-halving "next linked
// entry" forest over the lists), so later clusters do not step over them. An
// O(1) upper bound of J from the shapes ||E||_1 / ||E||_2 skips rows that
// cannot pass without reading them (it never changes a decision). With
// candidateLimit == 0 this is the sequential algorithm exactly; its cost is the
// sum over clusters of the list lengths behind the representative's blocks:
// O(M^2) in the worst case (a column block shared by all rows, or rows all
// alike but below alpha, as in uniform random matrices).
//
// Pruning (candidateLimit = L > 0), two bounds:
//  * per block: a stream closes for the current cluster after it has
//    yielded L rows that the cluster rejects (a rejected row counts for
//    every stream holding it); accepted rows cost it nothing, so a run of
//    rows that join is never cut short;
//  * per cluster: a work allowance of L units per nonzero block of each row
//    in the cluster (the seed's at the start, more as rows join), spent by
//    rejected rows only: one unit per stream stopped at the row plus the
//    entries J read, min(nnzb(row), |E_rep| blocks) (0 when the shape bound
//    skipped it). It is checked before each candidate; when it is spent the
//    cluster closes. Accepted rows cost nothing here either.
// Accepted rows cost at most 2 nnzb(row) each (J and stream steps), so the
// second bound makes the whole run O(L * total nnzb) steps (times a heap
// log) whatever the structure: hub columns, long rows. Rows a cluster did
// not reach are left for later clusters, exactly as if rejected. Neither
// bound can bind when L >= 2 (M + 1) (a stream makes at most M steps, J
// reads at most M * |E_rep| entries), so such runs are exact.
//
// J is computed in double, summing in a fixed order (the row's blocks
// increasing, or E_rep's blocks in the order they joined when E_rep has far
// fewer), with no operation whose rounding depends on the machine, so the
// order is the same everywhere. It is exactly 1 for proportional encodings
// (an integer test) and below 1 otherwise; the threshold test accepts J down
// to alpha - 1e-12 for alpha < 1, so a J equal to alpha in exact arithmetic
// passes however its sums round. The comparison stops reading a row once
// the entries left cannot lift J to alpha (with a margin that makes it
// decide exactly as the full sum would).
//
//===----------------------------------------------------------------------===//

#include "Bsa.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace spperm;
using namespace spperm::detail;

BlockEncodings detail::buildBlockEncodings(const CsrMatrix &m, int32_t tau) {
  assert(tau >= 1 && "block width must be positive");
  BlockEncodings e;
  e.rows = m.rows;
  e.tau = tau;
  e.numBlocks =
      static_cast<int32_t>((static_cast<int64_t>(m.cols) + tau - 1) / tau);
  e.ptr.assign(static_cast<size_t>(m.rows) + 1, 0);
  e.entries.reserve(m.colIdx.size()); // nnzb <= nnz
  for (int32_t r = 0; r < m.rows; ++r) {
    int32_t last = -1;
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
      int32_t block = m.colIdx[k] / tau;
      if (block != last) {
        e.entries.push_back({block, 0});
        last = block;
      }
      ++e.entries.back().count;
    }
    e.ptr[r + 1] = static_cast<int64_t>(e.entries.size());
  }
  return e;
}

namespace {

/// weightedJaccard(rep, cmp); with `alpha` > 0, -1 instead as soon as the
/// entries of cmp not read yet cannot lift J to alpha (bsaAccepts would
/// reject it), with a margin of 1e-9 of S against rounding.
double jaccardOrGiveUp(const DenseEncodingView &rep,
                       const SparseEncodingView &cmp, double alpha) {
  assert(rep.sumSq > 0 && cmp.sumSq > 0 && "J of an empty encoding");
  const double repScale = 1.0 / std::sqrt(static_cast<double>(rep.sumSq));
  const double cmpScale = 1.0 / std::sqrt(static_cast<double>(cmp.sumSq));
  // sum_i Ê_rep_i and sum_i Ê_cmp_i.
  const double repSum = static_cast<double>(rep.l1) * repScale;
  const double cmpSum = static_cast<double>(cmp.l1) * cmpScale;
  double sumMin = 0.0;
  bool proportional = false;
  if (rep.blocks && rep.nnzb * 8 < cmp.size) {
    // Few representative blocks against a long row (never proportional:
    // the supports differ in size).
    const BlockCount *first = cmp.entries, *last = cmp.entries + cmp.size;
    for (int64_t k = 0; k < rep.nnzb; ++k) {
      int32_t b = rep.blocks[k];
      const BlockCount *it = std::lower_bound(
          first, last, b,
          [](const BlockCount &e, int32_t block) { return e.block < block; });
      if (it == last || it->block != b)
        continue;
      sumMin += std::min(static_cast<double>(rep.counts[b]) * repScale,
                         static_cast<double>(it->count) * cmpScale);
    }
  } else {
    // J >= t  <=>  S >= t (repSum + cmpSum) / (1 + t), and S can grow by at
    // most the cmp mass not read yet. The margin dwarfs the rounding of
    // sums of up to 2^20 terms; longer rows never give up.
    double giveUpBelow = -1.0;
    if (alpha > 0.0 && cmp.size <= (int64_t(1) << 20)) {
      double t = alpha >= 1.0 ? 1.0 : alpha - kBsaJaccardSlack;
      giveUpBelow = t * (repSum + cmpSum) / (1.0 + t) * (1.0 - 1e-9);
    }
    double rest = cmpSum;
    for (int64_t k = 0; k < cmp.size; ++k) {
      double c = static_cast<double>(cmp.entries[k].count) * cmpScale;
      // min(0, c) = 0 where rep lacks the block: adding it keeps the sum
      // and saves a branch.
      sumMin += std::min(
          static_cast<double>(rep.counts[cmp.entries[k].block]) * repScale, c);
      rest -= c;
      if (sumMin + rest < giveUpBelow)
        return -1.0;
    }
    // Proportional: the same support and cmp_i * |rep|_1 == rep_i * |cmp|_1
    // (then every rep_i > 0). Both products are below 2^62: each sum is at
    // most nnz <= 2^31.
    proportional = cmp.size == rep.nnzb;
    for (int64_t k = 0; proportional && k < cmp.size; ++k)
      proportional = rep.counts[cmp.entries[k].block] * cmp.l1 ==
                     cmp.entries[k].count * rep.l1;
  }
  if (proportional)
    return 1.0;
  // sum max = sum (a + b) - sum min over all blocks.
  double j = sumMin / (repSum + cmpSum - sumMin);
  // Rounding must not turn a non-proportional pair into J = 1.
  return std::min(j, std::nextafter(1.0, 0.0));
}

} // namespace

double detail::weightedJaccard(const DenseEncodingView &rep,
                               const SparseEncodingView &cmp) {
  return jaccardOrGiveUp(rep, cmp, /*alpha=*/0.0);
}

bool detail::bsaSimilar(const DenseEncodingView &rep,
                        const SparseEncodingView &cmp, double alpha) {
  return bsaAccepts(jaccardOrGiveUp(rep, cmp, alpha), alpha);
}

double detail::weightedJaccard(const std::vector<int64_t> &rep,
                               const std::vector<int64_t> &cmp) {
  assert(rep.size() == cmp.size() && "encodings of different lengths");
  DenseEncodingView r;
  r.counts = rep.data();
  std::vector<BlockCount> entries;
  int64_t cmpL1 = 0, cmpSumSq = 0;
  for (size_t i = 0; i < rep.size(); ++i) {
    assert(rep[i] >= 0 && cmp[i] >= 0 && "negative count");
    if (rep[i] > 0) {
      ++r.nnzb;
      r.l1 += rep[i];
      r.sumSq += rep[i] * rep[i];
    }
    if (cmp[i] > 0) {
      assert(cmp[i] <= std::numeric_limits<int32_t>::max());
      entries.push_back(
          {static_cast<int32_t>(i), static_cast<int32_t>(cmp[i])});
      cmpL1 += cmp[i];
      cmpSumSq += cmp[i] * cmp[i];
    }
  }
  if (r.sumSq == 0 || cmpSumSq == 0)
    return 0.0;
  SparseEncodingView c;
  c.entries = entries.data();
  c.size = static_cast<int64_t>(entries.size());
  c.l1 = cmpL1;
  c.sumSq = cmpSumSq;
  return weightedJaccard(r, c);
}

namespace {

/// The growing representative E_rep: dense block counts, the blocks it
/// holds (to reset them) and its sums.
struct Representative {
  explicit Representative(int32_t numBlocks)
      : counts(static_cast<size_t>(numBlocks), 0) {}

  DenseEncodingView view() const {
    DenseEncodingView v;
    v.counts = counts.data();
    v.blocks = blocks.data();
    v.nnzb = static_cast<int64_t>(blocks.size());
    v.l1 = l1;
    v.sumSq = sumSq;
    return v;
  }

  void clear() {
    for (int32_t b : blocks)
      counts[b] = 0;
    blocks.clear();
    l1 = 0;
    sumSq = 0;
  }

  std::vector<int64_t> counts;
  std::vector<int32_t> blocks;
  int64_t l1 = 0;
  int64_t sumSq = 0;
};

/// What comparing with a row needs, in 32 bytes. Entry indices fit int32:
/// there are at most nnz <= INT32_MAX entries.
struct RowInfo {
  int64_t sumSq;
  /// bsaShape(nnz, sumSq).
  double shape;
  /// The row's entries are entries[begin .. begin + nnzb).
  int32_t begin;
  int32_t nnzb;
  int32_t nnz;
};

/// The queue state of a row, apart from RowInfo: it is touched on every
/// stream step, RowInfo only once per candidate.
struct QueueSlot {
  /// The last cluster that queued the row (-1 before any).
  int32_t cluster;
  /// For that cluster, the streams stopped at the row (linked through
  /// Stream::waitNext); -1 when none.
  int32_t waitHead;
};

/// An entry of a block's row list.
struct ListEntry {
  /// Position (in `ascending`) of the row.
  int32_t pos;
  /// This entry's index while it is linked; otherwise a larger index to
  /// look at (path-halving forest; a final sentinel is always linked).
  int32_t next;
};

/// One block's list of candidate rows for the current cluster. An open
/// stream is stopped at its next row, which is queued.
struct Stream {
  int32_t block;
  /// Rejections left before the stream closes (unbounded when exact).
  int32_t budget;
  /// Index of the list entry it is stopped at.
  int32_t cursor;
  /// The next stream stopped at the same row, or -1.
  int32_t waitNext;
};

/// A binary min-heap of positions.
class RowHeap {
public:
  bool empty() const { return h.empty(); }
  int32_t top() const { return h.front(); }
  void clear() { h.clear(); }

  void push(int32_t e) {
    size_t i = h.size();
    h.push_back(e);
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (h[parent] <= e)
        break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = e;
  }

  void pop() {
    int32_t e = h.back();
    h.pop_back();
    const size_t n = h.size();
    if (n == 0)
      return;
    size_t i = 0, child;
    while ((child = 2 * i + 1) < n) {
      // The smaller child without a branch (the comparison is a coin flip).
      int32_t c = h[child];
      if (child + 1 < n) {
        int32_t d = h[child + 1];
        bool right = d < c;
        c = right ? d : c;
        child += right;
      }
      if (e <= c)
        break;
      h[i] = c;
      i = child;
    }
    h[i] = e;
  }

private:
  std::vector<int32_t> h;
};

/// The state of one bsaOrder() run; rows are indexed by their position in
/// `ascending`.
class BsaClustering {
public:
  BsaClustering(const CsrMatrix &m, const PermutationOptions &options,
                Permutation &out);
  void run();

private:
  void buildLists();
  int32_t findLinked(int32_t i);
  void assign(int32_t pos);
  void addToRep(int32_t pos);
  void openStream(int32_t block, int32_t after);
  /// Stops stream `s` at its first linked entry from `cursor` on, queuing
  /// that row; a stream at the end of its list is dropped.
  void stopAtNext(int32_t s, int32_t cursor);
  SparseEncodingView encoding(int32_t pos) const;

  const double alpha;
  /// candidateLimit L; 0 = exact.
  const int64_t limit;
  const int32_t streamBudget;
  Permutation &out;

  /// Non-empty rows by ascending dispersion.
  std::vector<int32_t> ascending;
  std::vector<RowInfo> rows;
  std::vector<QueueSlot> queue;
  /// Encodings by position.
  std::vector<BlockCount> entries;
  /// Index in `lists` of each entry of `entries`.
  std::vector<int32_t> entryListIdx;
  int32_t numBlocks = 0;

  /// lists[listPtr[b] .. listPtr[b + 1]): the rows holding block b by
  /// increasing position; one sentinel entry at the end.
  std::vector<int64_t> listPtr;
  std::vector<ListEntry> lists;
  /// Per block, an index at or before its list's first linked entry (past
  /// the list's end once none is left): where searches for it start.
  std::vector<int32_t> listHead;

  std::vector<char> assigned;
  Representative rep;
  double repShape = 0.0;
  /// Work allowance left to the current cluster (pruned runs).
  int64_t allowance = 0;
  int32_t cluster = 0;
  std::vector<Stream> streams;
  /// The rows some open stream is stopped at, each once.
  RowHeap heap;
};

BsaClustering::BsaClustering(const CsrMatrix &m,
                             const PermutationOptions &options,
                             Permutation &out)
    : alpha(options.alpha), limit(options.candidateLimit),
      streamBudget(options.candidateLimit > 0
                       ? options.candidateLimit
                       : std::numeric_limits<int32_t>::max()),
      out(out), rep(0) {
  BlockEncodings enc = buildBlockEncodings(m, options.tau);
  numBlocks = enc.numBlocks;
  rep = Representative(numBlocks);

  // Empty rows first; the others by (dispersion, row).
  std::vector<int64_t> dispersion(static_cast<size_t>(m.rows), 0);
  for (int32_t r = 0; r < m.rows; ++r) {
    if (m.rowLength(r) == 0) {
      out.order.push_back(r);
      continue;
    }
    dispersion[r] = bsaDispersion(options.tau, enc.nnzb(r), m.rowLength(r));
    ascending.push_back(r);
  }
  // Ties in dispersion: by encoding (lexicographic over (block, count)),
  // then row. Identical rows are therefore adjacent in the walk, so every
  // representative judges them one after the other and they end up in one
  // cluster (the walk's order is otherwise the seed's).
  auto encodingLess = [&](int32_t a, int32_t b) {
    const BlockCount *i = enc.entries.data() + enc.ptr[a];
    const BlockCount *ie = enc.entries.data() + enc.ptr[a + 1];
    const BlockCount *j = enc.entries.data() + enc.ptr[b];
    const BlockCount *je = enc.entries.data() + enc.ptr[b + 1];
    for (; i != ie && j != je; ++i, ++j) {
      if (i->block != j->block)
        return i->block < j->block;
      if (i->count != j->count)
        return i->count < j->count;
    }
    return i == ie && j != je;
  };
  std::stable_sort(ascending.begin(), ascending.end(),
                   [&](int32_t a, int32_t b) {
                     if (dispersion[a] != dispersion[b])
                       return dispersion[a] < dispersion[b];
                     return encodingLess(a, b);
                   });

  // Re-lay the encodings by position for locality.
  rows.reserve(ascending.size());
  entries.reserve(enc.entries.size());
  for (int32_t r : ascending) {
    RowInfo info;
    info.sumSq = 0;
    info.begin = static_cast<int32_t>(entries.size());
    info.nnzb = enc.nnzb(r);
    info.nnz = m.rowLength(r);
    for (int64_t k = enc.ptr[r]; k < enc.ptr[r + 1]; ++k) {
      entries.push_back(enc.entries[k]);
      info.sumSq +=
          static_cast<int64_t>(enc.entries[k].count) * enc.entries[k].count;
    }
    info.shape = bsaShape(info.nnz, info.sumSq);
    rows.push_back(info);
  }
  buildLists();
  assigned.assign(ascending.size(), 0);
  queue.assign(ascending.size(), QueueSlot{-1, -1});
}

void BsaClustering::buildLists() {
  // Counting sort of the (block, position) pairs by block; positions are
  // visited in increasing order, so each list comes out sorted.
  listPtr.assign(static_cast<size_t>(numBlocks) + 1, 0);
  for (const BlockCount &e : entries)
    ++listPtr[e.block + 1];
  for (int32_t b = 0; b < numBlocks; ++b)
    listPtr[b + 1] += listPtr[b];
  std::vector<int64_t> fill(listPtr.begin(), listPtr.end() - 1);
  lists.resize(entries.size() + 1);
  entryListIdx.resize(entries.size());
  for (size_t pos = 0; pos < rows.size(); ++pos) {
    const RowInfo &info = rows[pos];
    for (int32_t k = info.begin; k < info.begin + info.nnzb; ++k) {
      int32_t i = static_cast<int32_t>(fill[entries[k].block]++);
      lists[i] = {static_cast<int32_t>(pos), i};
      entryListIdx[k] = i;
    }
  }
  int32_t sentinel = static_cast<int32_t>(entries.size());
  lists[sentinel] = {-1, sentinel};
  listHead.resize(static_cast<size_t>(numBlocks));
  for (int32_t b = 0; b < numBlocks; ++b)
    listHead[b] = static_cast<int32_t>(listPtr[b]);
}

int32_t BsaClustering::findLinked(int32_t i) {
  while (lists[i].next != i) {
    lists[i].next = lists[lists[i].next].next;
    i = lists[i].next;
  }
  return i;
}

SparseEncodingView BsaClustering::encoding(int32_t pos) const {
  const RowInfo &info = rows[pos];
  SparseEncodingView v;
  v.entries = entries.data() + info.begin;
  v.size = info.nnzb;
  v.l1 = info.nnz;
  v.sumSq = info.sumSq;
  return v;
}

void BsaClustering::assign(int32_t pos) {
  assigned[pos] = 1;
  out.order.push_back(ascending[pos]);
  const RowInfo &info = rows[pos];
  for (int32_t k = info.begin; k < info.begin + info.nnzb; ++k)
    lists[entryListIdx[k]].next = entryListIdx[k] + 1;
}

void BsaClustering::addToRep(int32_t pos) {
  const RowInfo &info = rows[pos];
  allowance += limit * info.nnzb;
  for (int32_t k = info.begin; k < info.begin + info.nnzb; ++k) {
    int32_t b = entries[k].block;
    int64_t c = entries[k].count;
    int64_t &r = rep.counts[b];
    bool isNew = r == 0;
    rep.sumSq += (2 * r + c) * c;
    rep.l1 += c;
    r += c;
    if (isNew) {
      rep.blocks.push_back(b);
      openStream(b, pos);
    }
  }
  repShape = bsaShape(rep.l1, rep.sumSq);
}

void BsaClustering::stopAtNext(int32_t s, int32_t cursor) {
  int32_t i = findLinked(cursor);
  if (i >= listPtr[streams[s].block + 1])
    return;
  streams[s].cursor = i;
  QueueSlot &slot = queue[lists[i].pos];
  if (slot.cluster != cluster) {
    slot.cluster = cluster;
    slot.waitHead = -1;
    heap.push(lists[i].pos);
  }
  streams[s].waitNext = slot.waitHead;
  slot.waitHead = s;
}

void BsaClustering::openStream(int32_t block, int32_t after) {
  // Every row before the seed is assigned, so the first linked entry is
  // after the seed; gallop from there to the first entry after `after`
  // (usually close: a cluster does not get far past its seed).
  const int64_t end = listPtr[block + 1];
  int64_t lo = listHead[block] = findLinked(listHead[block]);
  if (lo >= end)
    return;
  if (lists[lo].pos <= after) {
    int64_t step = 1, hi = lo + 1;
    while (hi < end && lists[hi].pos <= after) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    hi = std::min(hi, end);
    lo = std::upper_bound(
             lists.begin() + lo, lists.begin() + hi, after,
             [](int32_t p, const ListEntry &e) { return p < e.pos; }) -
         lists.begin();
  }
  int32_t s = static_cast<int32_t>(streams.size());
  streams.push_back({block, streamBudget, -1, -1});
  stopAtNext(s, static_cast<int32_t>(lo));
}

void BsaClustering::run() {
  const int32_t n = static_cast<int32_t>(ascending.size());
  for (int32_t seed = 0; seed < n; ++seed) {
    if (assigned[seed])
      continue;
    assign(seed);
    int32_t size = 1;
    allowance = 0;
    addToRep(seed);

    // Candidates in ascending position: every row some stream is stopped
    // at, i.e. every later unassigned row sharing a block with E_rep whose
    // streams are not all closed.
    while (!heap.empty()) {
      if (limit > 0 && allowance <= 0) {
        // Out of work: the rows left are for later clusters.
        heap.clear();
        break;
      }
      int32_t pos = heap.top();
      heap.pop();
      const RowInfo &info = rows[pos];
      int32_t waiting = queue[pos].waitHead;
      bool accepted = false;
      // The O(1) bound first: it skips rows of a very different shape
      // without reading them.
      if (bsaMayAccept(bsaJaccardUpperBound(repShape, info.shape), alpha)) {
        if (bsaSimilar(rep.view(), encoding(pos), alpha)) {
          accepted = true;
          assign(pos);
          ++size;
          // Opens streams after `pos`.
          addToRep(pos);
        } else {
          allowance -= std::min<int64_t>(
              info.nnzb, static_cast<int64_t>(rep.blocks.size()));
        }
      }
      // Move the streams stopped here on; a rejection is charged to each
      // and to the allowance.
      for (int32_t s = waiting; s >= 0;) {
        int32_t next = streams[s].waitNext;
        if (accepted) {
          stopAtNext(s, streams[s].cursor + 1);
        } else {
          --allowance;
          if (--streams[s].budget > 0)
            stopAtNext(s, streams[s].cursor + 1);
        }
        s = next;
      }
    }
    out.clusterSizes.push_back(size);
    rep.clear();
    streams.clear();
    ++cluster;
  }
}

} // namespace

Permutation detail::bsaOrder(const CsrMatrix &m,
                             const PermutationOptions &options) {
  Permutation p;
  p.order.reserve(static_cast<size_t>(m.rows));
  BsaClustering clustering(m, options, p);
  clustering.run();
  return p;
}
