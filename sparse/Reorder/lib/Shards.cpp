//===- Shards.cpp - Cutting a matrix's rows into shards -------------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Shards.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace spperm {

std::string_view shardCutName(ShardCut cut) {
  switch (cut) {
  case ShardCut::Balanced:
    return "balanced";
  case ShardCut::EqualRows:
    return "equal-rows";
  }
  return "balanced";
}

std::optional<ShardCut> parseShardCut(std::string_view name) {
  if (name == "balanced")
    return ShardCut::Balanced;
  if (name == "equal-rows")
    return ShardCut::EqualRows;
  return std::nullopt;
}

StatusOr<std::vector<int32_t>> planShards(const CsrMatrix &m, int32_t shards,
                                          ShardCut cut) {
  if (shards < 1 || shards > std::max<int32_t>(m.rows, 1))
    return Status::error(
        "shards must be an integer in [1, " +
        std::to_string(std::max<int32_t>(m.rows, 1)) +
        (m.rows == 0 ? "] (the matrix has no rows to cut)"
                     : "] (at least one row per shard; the matrix has " +
                           std::to_string(m.rows) + " rows)") +
        ", got " + std::to_string(shards));
  std::vector<int32_t> bounds(static_cast<size_t>(shards) + 1, 0);
  bounds.back() = m.rows;
  if (cut == ShardCut::EqualRows) {
    for (int32_t i = 1; i < shards; ++i)
      bounds[i] = static_cast<int32_t>(static_cast<int64_t>(m.rows) * i /
                                       shards);
    return bounds;
  }
  // prefix[r]: the weight of rows [0, r).
  std::vector<double> prefix(static_cast<size_t>(m.rows) + 1, 0.0);
  for (int32_t r = 0; r < m.rows; ++r)
    prefix[r + 1] = prefix[r] + rowWeight(m.rowLength(r));
  const double total = prefix.back();
  for (int32_t i = 1; i < shards; ++i) {
    const double target = total * i / shards;
    // The first r with prefix[r] >= target, or the one before it when that
    // is nearer.
    auto it = std::lower_bound(prefix.begin(), prefix.end(), target);
    int32_t r = static_cast<int32_t>(it - prefix.begin());
    if (r > 0 && target - prefix[r - 1] < prefix[r] - target)
      --r;
    // At least one row per shard, before and after.
    r = std::max(r, bounds[i - 1] + 1);
    r = std::min(r, m.rows - (shards - i));
    bounds[i] = r;
  }
  return bounds;
}

std::vector<double> shardWeights(const CsrMatrix &m,
                                 const std::vector<int32_t> &bounds) {
  std::vector<double> out;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    double w = 0;
    for (int32_t r = bounds[i]; r < bounds[i + 1]; ++r)
      w += rowWeight(m.rowLength(r));
    out.push_back(w);
  }
  return out;
}

CsrMatrix sliceRows(const CsrMatrix &m, int32_t begin, int32_t end) {
  assert(0 <= begin && begin <= end && end <= m.rows && "rows out of range");
  CsrMatrix s;
  s.rows = end - begin;
  s.cols = m.cols;
  const int32_t first = m.rowPtr[begin], last = m.rowPtr[end];
  s.rowPtr.resize(static_cast<size_t>(s.rows) + 1);
  for (int32_t r = 0; r <= s.rows; ++r)
    s.rowPtr[r] = m.rowPtr[begin + r] - first;
  s.colIdx.assign(m.colIdx.begin() + first, m.colIdx.begin() + last);
  s.values.assign(m.values.begin() + first, m.values.begin() + last);
  return s;
}

} // namespace spperm
