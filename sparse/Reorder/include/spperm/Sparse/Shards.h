//===- Shards.h - Cutting a matrix's rows into shards -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A layer compiled for N GPUs (`spperm-compile --shards N`) is cut into N
// shards of consecutive rows, one per rank; each shard is then permuted,
// stored and given kernels on its own (docs/Distributed.md). The cut
// balances the predicted time of the shards: a row costs its C row plus one
// B row per entry (the traffic of every spperm kernel family), so a row of
// n entries weighs n + 1 and a power-law matrix's heavy rows do not all land
// on one rank, as an equal-rows cut would put them.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_SHARDS_H
#define SPPERM_SPARSE_SHARDS_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace spperm {

/// How the rows are cut.
enum class ShardCut {
  /// Shards of equal predicted time (rowWeight).
  Balanced,
  /// Shards of equal row counts (the baseline the balanced cut is measured
  /// against).
  EqualRows,
};

/// The CLI and pass-option name of `cut` ("balanced", "equal-rows").
std::string_view shardCutName(ShardCut cut);

/// The cut named `name`, if any.
std::optional<ShardCut> parseShardCut(std::string_view name);

/// The predicted cost of a row of `entries` entries, in units of one B row:
/// entries + 1 (its C row).
inline double rowWeight(int64_t entries) {
  return static_cast<double>(entries) + 1.0;
}

/// The shard boundaries of `m` for `shards` shards: shards + 1 row indices,
/// 0 first, m.rows last, strictly increasing (every shard has at least one
/// row). Balanced: boundary i is the row where the prefix of row weights
/// comes nearest i / shards of the total. An error when shards < 1 or
/// shards > m.rows.
StatusOr<std::vector<int32_t>> planShards(const CsrMatrix &m, int32_t shards,
                                          ShardCut cut);

/// The predicted time of each shard of `bounds` (the sum of its rows'
/// weights).
std::vector<double> shardWeights(const CsrMatrix &m,
                                 const std::vector<int32_t> &bounds);

/// Rows [begin, end) of `m` as a matrix of their own (same columns).
CsrMatrix sliceRows(const CsrMatrix &m, int32_t begin, int32_t end);

} // namespace spperm

#endif // SPPERM_SPARSE_SHARDS_H
