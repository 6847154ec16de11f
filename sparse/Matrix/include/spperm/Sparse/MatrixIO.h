//===- MatrixIO.h - Reading sparse matrix files -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Readers for Matrix Market (`.mtx`) and DLMC (`.smtx`) files, each optionally
// gzip-compressed, into a CsrMatrix. Parsing streams through fixed-size
// buffers; no allocation is ever sized by a header field before it has been
// validated. Errors read `FILE:LINE: what is wrong`.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_MATRIXIO_H
#define SPPERM_SPARSE_MATRIXIO_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace spperm {

/// Where a matrix's values come from (the `--values` flag).
enum class ValueMode {
  /// The values stored in the file; pattern entries are 1.0.
  File,
  /// Every entry is 1.0.
  Ones,
  /// Entry number e (0-based, in file order, before symmetric expansion) gets
  /// randomValue(seed, e); a mirrored entry gets the same value (negated for
  /// skew-symmetric files).
  Random,
};

/// A parsed `--values` argument.
struct ValuesSpec {
  ValueMode mode = ValueMode::File;
  uint64_t seed = 0;

  bool operator==(const ValuesSpec &o) const {
    return mode == o.mode && (mode != ValueMode::Random || seed == o.seed);
  }
};

/// Parses `file`, `ones` or `random:SEED` (SEED a decimal uint64).
StatusOr<ValuesSpec> parseValuesSpec(std::string_view text);
/// The inverse of parseValuesSpec.
std::string formatValuesSpec(const ValuesSpec &spec);

/// The standard splitmix64 finalizer.
uint64_t splitmix64(uint64_t x);
/// The contract's random value of entry `entry` under `seed`: the top 24 bits
/// of splitmix64(seed ^ entry) mapped to [-1, 1) as (x >> 40) / 2^23 - 1.
float randomValue(uint64_t seed, uint64_t entry);

/// The file formats the readers understand.
enum class MatrixFileFormat { MatrixMarket, Smtx };

/// Options that control how a matrix file becomes a CsrMatrix.
struct ReadOptions {
  ValuesSpec values;
  /// The largest number of rows, columns or entries accepted (values above
  /// kMaxIndex act as kMaxIndex). A lower limit bounds the memory a file can
  /// make the reader allocate (the row offsets are sized by the header once
  /// it is validated); the fuzz targets set it.
  int64_t maxIndex = kMaxIndex;
};

/// Reads a matrix file; the format is chosen from the extension (`.mtx`,
/// `.smtx`, either followed by `.gz`), and gzip is detected from the content.
/// Duplicates are summed, symmetric storage is expanded.
StatusOr<CsrMatrix> readMatrixFile(const std::string &path,
                                   const ReadOptions &options = {});

/// Parses matrix text already in memory (uncompressed). `name` is used as the
/// FILE part of error messages.
StatusOr<CsrMatrix> parseMatrixText(std::string_view text,
                                    MatrixFileFormat format,
                                    std::string_view name,
                                    const ReadOptions &options = {});

/// The error for the directory `path` given where a `what` file ("matrix",
/// ".npy") was expected: a spperm package is named as one, with the tools
/// that read it.
Status directoryGivenForFile(const std::string &path, std::string_view what);

/// Whether `path` ends with `suffix`, letters compared in any case (the
/// readers and writers take `.MTX.GZ` as `.mtx.gz`).
bool endsWithIgnoreCase(std::string_view path, std::string_view suffix);

/// Writes `m` as a `real general` Matrix Market file (1-based, one entry per
/// line, values in the shortest form that reads back to the same float),
/// gzip-compressed when `path` ends in `.gz`. Written atomically.
Status writeMatrixMarket(const std::string &path, const CsrMatrix &m);

} // namespace spperm

#endif // SPPERM_SPARSE_MATRIXIO_H
