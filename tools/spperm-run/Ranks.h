//===- Ranks.h - spperm-run on several ranks --------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// `spperm-run --ranks N` (docs/Distributed.md): a driver that starts N rank
// processes of spperm-run, one per GPU, each loading its shard of the
// package (sprt_package_load_shard) and multiplying with B replicated (1-D)
// or row-partitioned and all-gathered over NCCL (1.5-D,
// sprt_spmm_allgather); each rank checks its rows of C against a float64
// product, and the driver gathers the ranks' times, checks, and C.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_SPPERM_RUN_RANKS_H
#define SPPERM_TOOLS_SPPERM_RUN_RANKS_H

#include <cstdint>
#include <string>

namespace spperm {

/// What a driver or a rank runs.
struct RanksOptions {
  std::string package, layer, device = "gpu";
  /// B: a .npy file, or "random:SEED" (cols x k, uniform in [-1, 1),
  /// element i of row r from SEED alone: every rank draws the same B).
  std::string b;
  int64_t k = 0;
  /// Rows of a .npy B (its header read up front; the layer's columns).
  int64_t bRows = 0;
  /// "1d" (B replicated) or "1.5d" (B row-partitioned, all-gathered in
  /// chunks of `chunk` columns of K; 0: all at once).
  std::string algorithm = "1d";
  int64_t chunk = 0;
  int32_t rank = -1, ranks = 0;
  /// The communicator's id in hex (ranks only; the driver makes it).
  std::string commId;
  int64_t warmup = 3, runs = 10;
  /// Rows of C each rank checks against float64 (0: none).
  int64_t checkRows = 4096;
  std::string outPath, jsonPath;
  /// The driver's own executable, to start the ranks.
  std::string self;
};

/// One rank (`--rank R --ranks N`): loads its shard, multiplies, checks,
/// times; writes its C rows (--out) and its record (--json). Returns the
/// exit code.
int runRank(const RanksOptions &options);

/// The driver (`--ranks N` without --rank). Returns the exit code.
int runDriver(const RanksOptions &options);

} // namespace spperm

#endif // SPPERM_TOOLS_SPPERM_RUN_RANKS_H
