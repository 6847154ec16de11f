//===- FuzzUtil.h - Shared helpers of the fuzz targets ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The readers that only take a path (gzip matrices, .npy, packages) get the
// fuzz input through a scratch file or directory that each process creates
// once (mkstemps / mkdtemp under $TMPDIR) and removes at exit.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_FUZZ_FUZZUTIL_H
#define SPPERM_FUZZ_FUZZUTIL_H

#include "spperm/Sparse/CsrMatrix.h"
#include "spperm/Sparse/MatrixIO.h"
#include "spperm/Sparse/Status.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace spperm::fuzz {

/// The dimension and entry limit the matrix targets read with: large enough
/// for every seed, small enough that no header can make the reader allocate
/// more than a few MiB (a 2^31-row header is valid and costs 8 GiB).
constexpr int64_t kFuzzMaxIndex = int64_t(1) << 20;

/// Read options for the matrix targets: values from the file, indices
/// bounded by kFuzzMaxIndex.
ReadOptions fuzzReadOptions();

/// Aborts (a finding) unless `status` keeps the readers' contract: a failure
/// carries one non-empty line. With SPPERM_FUZZ_VERBOSE set in the
/// environment, prints the outcome (to see why a seed is refused).
void checkError(const Status &status);

/// Aborts (a finding) unless `m` is a success holding a valid CsrMatrix no
/// larger than kFuzzMaxIndex, or a failure that keeps the contract.
void checkMatrix(const StatusOr<CsrMatrix> &m);

/// The package target's input: `[raw:]MANIFEST[<kDataMarker>DATA]`, the text
/// of manifest.json and the bytes of data.bin (absent without the marker).
/// Without the `raw:` prefix the harness first makes the manifest's
/// checksums agree with the data (see FuzzPackage.cpp).
constexpr std::string_view kRawPrefix = "raw:";
constexpr std::string_view kDataMarker = "\n--data.bin--\n";

/// The source matrix the package target writes beside its package as
/// `src.mtx`, for layers with external data.
constexpr std::string_view kSourceMatrix =
    "%%MatrixMarket matrix coordinate real general\n"
    "6 5 9\n"
    "1 1 1.5\n1 3 -2\n2 2 4\n3 1 1\n3 5 2.25\n"
    "4 4 -1\n5 2 3\n6 1 0.5\n6 5 7\n";

/// The directory scratch files go to: $TMPDIR, else /tmp.
std::string tempRoot();

/// A file with a fixed suffix that is rewritten for every input.
class ScratchFile {
public:
  /// Creates `$TMPDIR/spperm-fuzz-XXXXXX<suffix>`; aborts if it cannot.
  explicit ScratchFile(std::string_view suffix);
  ~ScratchFile();
  ScratchFile(const ScratchFile &) = delete;
  ScratchFile &operator=(const ScratchFile &) = delete;

  /// Replaces the file's contents with `size` bytes at `data`.
  void write(const uint8_t *data, size_t size);
  const std::string &path() const { return filePath; }

private:
  std::string filePath;
  int fd = -1;
};

/// Writes `bytes` to `path` (created or truncated); aborts on failure (a
/// harness problem, not a finding in the code under test).
void writeFileOrDie(const std::string &path, std::string_view bytes);

} // namespace spperm::fuzz

#endif // SPPERM_FUZZ_FUZZUTIL_H
