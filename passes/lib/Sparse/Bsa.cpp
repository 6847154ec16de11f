//===- Bsa.cpp - Block-sparsity-aware row clustering ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// BSA (Euro-Par 2024), as a sequential definition; the paper's GPU kernel
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
//     and E_rep += E_cmp, so the
//     representative grows; a rejected row is not reconsidered by this
//     cluster. At the end of the walk the next unassigned row seeds the next
//     cluster.
//  4. Output: empty rows, then the clusters in creation order, each in
//     ascending-dispersion order (the order its rows joined). clusterSizes
//     lists the cluster sizes in that order.
//
// Candidate generation (exact). A row sharing no column block with E_rep
// has J = 0 < alpha, so only rows sharing a block are compared. Each block
// has a list of the rows holding it, by ascending position; a cluster keeps
// one cursor ("stream") per block of E_rep and merges the streams with a
// min-heap on position, so candidates come out in exactly the order of the
// sequential walk. A stream opened when an accepted row at position q brings
// a new block starts after q: the walk has passed the earlier rows, which
// then shared nothing with E_rep (J = 0). Assigned rows are unlinked from
// every list (a path-halving "next alive entry" forest over the lists), so
// later clusters never step over them. With candidateLimit == 0 this is the
// sequential algorithm exactly; its cost is the sum over clusters of the
// list lengths behind the representative's blocks (O(M^2) in the worst
// case, e.g. one column shared by all rows).
//
// Pruning (candidateLimit = L > 0). A stream closes for the current cluster
// after it has yielded L rows that the cluster rejects (rows rejected
// earlier in the cluster through another block count again); accepted rows
// cost a stream nothing, so a run of rows similar to the cluster is never
// cut short. A cluster thus evaluates J at most L times per block of its
// representative, and the whole run at most L times per (row, block) pair
// that enters a representative. Rows a closed stream would have reached are
// left for later clusters, exactly as a rejection would leave them.
//
// J is computed in double with a fixed summation order (increasing block
// index) and no operation whose rounding depends on the machine, so the
// order is the same everywhere. It is exactly 1 for proportional encodings
// (an integer test) and below 1 otherwise; the threshold test accepts J
// down to alpha - 1e-12 for alpha < 1, so a J equal to alpha in exact
// arithmetic passes however its sums round.
//
//===----------------------------------------------------------------------===//

#include "Bsa.h"
#include "Strategies.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

using namespace spperm;
using namespace spperm::detail;

BlockEncodings detail::buildBlockEncodings(const CsrMatrix &m, int32_t tau) {
  assert(tau >= 1 && "block width must be positive");
  BlockEncodings e;
  e.rows = m.rows;
  e.tau = tau;
  e.numBlocks = static_cast<int32_t>(
      (static_cast<int64_t>(m.cols) + tau - 1) / tau);
  e.ptr.assign(static_cast<size_t>(m.rows) + 1, 0);
  for (int32_t r = 0; r < m.rows; ++r) {
    int32_t last = -1;
    for (int32_t k = m.rowPtr[r]; k < m.rowPtr[r + 1]; ++k) {
      int32_t block = m.colIdx[k] / tau;
      if (block != last) {
        e.blocks.push_back(block);
        e.counts.push_back(0);
        last = block;
      }
      ++e.counts.back();
    }
    e.ptr[r + 1] = static_cast<int64_t>(e.blocks.size());
  }
  return e;
}

double detail::weightedJaccard(const DenseEncodingView &rep,
                               const SparseEncodingView &cmp) {
  assert(rep.sumSq > 0 && cmp.sumSq > 0 && "J of an empty encoding");
  const double repNorm = std::sqrt(static_cast<double>(rep.sumSq));
  const double cmpNorm = std::sqrt(static_cast<double>(cmp.sumSq));
  // Proportional: the same support and cmp_i * |rep|_1 == rep_i * |cmp|_1.
  // Both products are below 2^62: each sum is at most nnz <= 2^31.
  bool proportional = cmp.size == rep.nnzb;
  double sumMin = 0.0;
  for (int64_t k = 0; k < cmp.size; ++k) {
    int64_t r = rep.counts[cmp.blocks[k]];
    int64_t c = cmp.counts[k];
    if (r == 0) {
      proportional = false;
      continue;
    }
    if (r * cmp.l1 != c * rep.l1)
      proportional = false;
    sumMin += std::min(static_cast<double>(r) / repNorm,
                       static_cast<double>(c) / cmpNorm);
  }
  if (proportional)
    return 1.0;
  // sum max = sum (a + b) - sum min over all blocks.
  double sumMax = static_cast<double>(rep.l1) / repNorm +
                  static_cast<double>(cmp.l1) / cmpNorm - sumMin;
  double j = sumMin / sumMax;
  // Rounding must not turn a non-proportional pair into J = 1.
  return std::min(j, std::nextafter(1.0, 0.0));
}

double detail::weightedJaccard(const std::vector<int64_t> &rep,
                               const std::vector<int64_t> &cmp) {
  assert(rep.size() == cmp.size() && "encodings of different lengths");
  DenseEncodingView r;
  r.counts = rep.data();
  std::vector<int32_t> blocks, counts;
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
      blocks.push_back(static_cast<int32_t>(i));
      counts.push_back(static_cast<int32_t>(cmp[i]));
      cmpL1 += cmp[i];
      cmpSumSq += cmp[i] * cmp[i];
    }
  }
  if (r.sumSq == 0 || cmpSumSq == 0)
    return 0.0;
  SparseEncodingView c;
  c.blocks = blocks.data();
  c.counts = counts.data();
  c.size = static_cast<int64_t>(blocks.size());
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

/// One block's list of candidate rows for the current cluster.
struct Stream {
  int32_t block;
  /// Rejections left before the stream closes.
  int32_t budget;
  /// Index in the block lists of the next entry to look at (possibly
  /// unlinked: resolve with findAlive).
  int32_t cursor;
};

/// The state of one bsaOrder() run, indexed by position in `ascending`.
class BsaClustering {
public:
  BsaClustering(const CsrMatrix &m, const PermutationOptions &options,
                Permutation &out);
  void run();

private:
  void buildLists();
  int32_t findAlive(int32_t i);
  void assign(int32_t pos);
  void openStream(int32_t block, int32_t after);
  void pushStream(int32_t stream);
  SparseEncodingView encoding(int32_t pos) const;

  const double alpha;
  const int32_t budget;
  Permutation &out;

  /// Non-empty rows by ascending dispersion.
  std::vector<int32_t> ascending;
  /// Encodings by position.
  std::vector<int64_t> encPtr{0};
  std::vector<int32_t> encBlock, encCount, encListIdx;
  std::vector<int32_t> rowNnz;
  std::vector<int64_t> rowSumSq;
  int32_t numBlocks = 0;

  /// listPos[listPtr[b] .. listPtr[b + 1]): positions of the rows holding
  /// block b, increasing; alive[i] == i while entry i is linked, otherwise
  /// a larger index to look at (alive has a final always-linked sentinel).
  std::vector<int64_t> listPtr;
  std::vector<int32_t> listPos;
  std::vector<int32_t> alive;

  std::vector<char> assigned;
  /// The cluster that last examined each position.
  std::vector<int32_t> examined;
  std::vector<Stream> streams;
  /// (position of the stream's next entry, stream).
  using HeapEntry = std::pair<int32_t, int32_t>;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>,
                      std::greater<HeapEntry>>
      heap;
};

BsaClustering::BsaClustering(const CsrMatrix &m,
                             const PermutationOptions &options,
                             Permutation &out)
    : alpha(options.alpha),
      budget(options.candidateLimit > 0
                 ? options.candidateLimit
                 : std::numeric_limits<int32_t>::max()),
      out(out) {
  BlockEncodings enc = buildBlockEncodings(m, options.tau);
  numBlocks = enc.numBlocks;

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
  std::stable_sort(ascending.begin(), ascending.end(),
                   [&](int32_t a, int32_t b) {
                     return dispersion[a] < dispersion[b];
                   });

  // Re-lay the encodings by position for locality.
  const size_t n = ascending.size();
  encPtr.reserve(n + 1);
  encBlock.reserve(enc.blocks.size());
  encCount.reserve(enc.blocks.size());
  rowNnz.reserve(n);
  rowSumSq.reserve(n);
  for (int32_t r : ascending) {
    int64_t sumSq = 0;
    for (int64_t k = enc.ptr[r]; k < enc.ptr[r + 1]; ++k) {
      encBlock.push_back(enc.blocks[k]);
      encCount.push_back(enc.counts[k]);
      sumSq += static_cast<int64_t>(enc.counts[k]) * enc.counts[k];
    }
    encPtr.push_back(static_cast<int64_t>(encBlock.size()));
    rowNnz.push_back(m.rowLength(r));
    rowSumSq.push_back(sumSq);
  }
  buildLists();
  assigned.assign(n, 0);
  examined.assign(n, -1);
}

void BsaClustering::buildLists() {
  // Counting sort of the (block, position) pairs by block; positions are
  // visited in increasing order, so each list comes out sorted.
  listPtr.assign(static_cast<size_t>(numBlocks) + 1, 0);
  for (int32_t b : encBlock)
    ++listPtr[b + 1];
  for (int32_t b = 0; b < numBlocks; ++b)
    listPtr[b + 1] += listPtr[b];
  std::vector<int64_t> fill(listPtr.begin(), listPtr.end() - 1);
  listPos.resize(encBlock.size());
  encListIdx.resize(encBlock.size());
  const int32_t n = static_cast<int32_t>(ascending.size());
  for (int32_t pos = 0; pos < n; ++pos)
    for (int64_t k = encPtr[pos]; k < encPtr[pos + 1]; ++k) {
      int64_t i = fill[encBlock[k]]++;
      listPos[i] = pos;
      // At most nnz <= INT32_MAX entries, so indices fit int32.
      encListIdx[k] = static_cast<int32_t>(i);
    }
  alive.resize(listPos.size() + 1);
  for (size_t i = 0; i < alive.size(); ++i)
    alive[i] = static_cast<int32_t>(i);
}

int32_t BsaClustering::findAlive(int32_t i) {
  while (alive[i] != i) {
    alive[i] = alive[alive[i]];
    i = alive[i];
  }
  return i;
}

SparseEncodingView BsaClustering::encoding(int32_t pos) const {
  SparseEncodingView v;
  v.blocks = encBlock.data() + encPtr[pos];
  v.counts = encCount.data() + encPtr[pos];
  v.size = encPtr[pos + 1] - encPtr[pos];
  v.l1 = rowNnz[pos];
  v.sumSq = rowSumSq[pos];
  return v;
}

void BsaClustering::assign(int32_t pos) {
  assigned[pos] = 1;
  out.order.push_back(ascending[pos]);
  for (int64_t k = encPtr[pos]; k < encPtr[pos + 1]; ++k)
    alive[encListIdx[k]] = encListIdx[k] + 1;
}

void BsaClustering::pushStream(int32_t s) {
  Stream &st = streams[s];
  int32_t i = findAlive(st.cursor);
  if (i >= listPtr[st.block + 1])
    return;
  st.cursor = i;
  heap.emplace(listPos[i], s);
}

void BsaClustering::openStream(int32_t block, int32_t after) {
  const int32_t *first = listPos.data() + listPtr[block];
  const int32_t *last = listPos.data() + listPtr[block + 1];
  const int32_t *it = std::upper_bound(first, last, after);
  streams.push_back(
      {block, budget, static_cast<int32_t>(it - listPos.data())});
  pushStream(static_cast<int32_t>(streams.size()) - 1);
}

void BsaClustering::run() {
  const int32_t n = static_cast<int32_t>(ascending.size());
  Representative rep(numBlocks);
  int32_t cluster = 0;
  for (int32_t seed = 0; seed < n; ++seed) {
    if (assigned[seed])
      continue;
    assign(seed);
    examined[seed] = cluster;
    int32_t size = 1;
    auto addToRep = [&](int32_t pos) {
      for (int64_t k = encPtr[pos]; k < encPtr[pos + 1]; ++k) {
        int32_t b = encBlock[k];
        int64_t c = encCount[k];
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
    };
    addToRep(seed);

    while (!heap.empty()) {
      auto [key, s] = heap.top();
      heap.pop();
      // The entry may have been unlinked since it was pushed: re-queue the
      // stream at its true next position (never smaller than `key`).
      int32_t i = findAlive(streams[s].cursor);
      if (i >= listPtr[streams[s].block + 1])
        continue;
      int32_t pos = listPos[i];
      if (pos != key) {
        streams[s].cursor = i;
        heap.emplace(pos, s);
        continue;
      }
      streams[s].cursor = i + 1;
      bool accepted = false;
      if (examined[pos] != cluster) {
        examined[pos] = cluster;
        if (bsaAccepts(weightedJaccard(rep.view(), encoding(pos)), alpha)) {
          accepted = true;
          assign(pos);
          ++size;
          // May grow `streams`: no references into it are held here.
          addToRep(pos);
        }
      }
      if (!accepted && --streams[s].budget == 0)
        continue;
      pushStream(s);
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
