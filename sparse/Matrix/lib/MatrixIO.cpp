//===- MatrixIO.cpp - Reading sparse matrix files ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The entry points of the matrix readers: text in memory or a file, plain or
// gzip (read through zlib), its format named by the extension or sniffed; and
// the --values option with its random value contract. The readers themselves
// are MtxReader.cpp and SmtxReader.cpp, over the scanner of MatrixScanner.h.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/MatrixIO.h"

#include "MatrixScanner.h"
#include "NpzReader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <utility>
#include <zlib.h>

using namespace spperm;
using namespace spperm::detail;

//===----------------------------------------------------------------------===//
// --values and the random value contract
//===----------------------------------------------------------------------===//

StatusOr<ValuesSpec> spperm::parseValuesSpec(std::string_view text) {
  ValuesSpec spec;
  if (text == "file")
    return spec;
  if (text == "ones") {
    spec.mode = ValueMode::Ones;
    return spec;
  }
  auto invalid = [&](const char *why) {
    return Status::error("invalid --values '" + std::string(text) +
                         "': " + why);
  };
  constexpr std::string_view kRandom = "random:";
  if (text.substr(0, kRandom.size()) != kRandom)
    return invalid("expected file, ones or random:SEED");
  std::string_view digits = text.substr(kRandom.size());
  const char *first = digits.data(), *last = first + digits.size();
  // from_chars on an unsigned type rejects signs; require digits throughout.
  if (digits.empty() ||
      !std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; }))
    return invalid("SEED must be a non-negative decimal integer");
  uint64_t seed = 0;
  auto [ptr, ec] = std::from_chars(first, last, seed);
  if (ec == std::errc::result_out_of_range)
    return invalid("SEED does not fit in 64 bits");
  if (ec != std::errc() || ptr != last)
    return invalid("SEED must be a non-negative decimal integer");
  spec.mode = ValueMode::Random;
  spec.seed = seed;
  return spec;
}

std::string spperm::formatValuesSpec(const ValuesSpec &spec) {
  switch (spec.mode) {
  case ValueMode::File:
    return "file";
  case ValueMode::Ones:
    return "ones";
  case ValueMode::Random:
    return "random:" + std::to_string(spec.seed);
  }
  return "file";
}

uint64_t spperm::splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

float spperm::randomValue(uint64_t seed, uint64_t entry) {
  // (x >> 40) / 2^23 - 1 == ((x >> 40) - 2^23) / 2^23; the numerator has at
  // most 24 significant bits, so the float arithmetic is exact.
  int32_t top = static_cast<int32_t>(splitmix64(seed ^ entry) >> 40);
  return static_cast<float>(top - (1 << 23)) * (1.0f / 8388608.0f);
}

//===----------------------------------------------------------------------===//
// Files and formats
//===----------------------------------------------------------------------===//

namespace {

/// A file read through zlib: gzip members are inflated, anything else is
/// passed through unchanged.
class GzFileSource final : public ByteSource {
public:
  GzFileSource(gzFile f, std::string path) : file(f), path(std::move(path)) {}
  ~GzFileSource() override { gzclose_r(file); }
  GzFileSource(const GzFileSource &) = delete;
  GzFileSource &operator=(const GzFileSource &) = delete;

  int64_t read(char *dst, size_t size, std::string &error) override {
    int n = gzread(file, dst, static_cast<unsigned>(size));
    if (n > 0)
      return n;
    // gzread reports a truncated stream by returning what it has and
    // recording Z_BUF_ERROR, so the end of the data is where to ask.
    int errnum = Z_OK;
    const char *msg = gzerror(file, &errnum);
    if (n == 0 && errnum == Z_OK)
      return 0;
    if (errnum == Z_BUF_ERROR)
      error = "truncated gzip data (unexpected end of file)";
    else if (errnum == Z_ERRNO)
      error = std::string("read error: ") + std::strerror(errno);
    else if (errnum == Z_MEM_ERROR) {
      // zlib's allocation failed: the process's policy for a failed
      // allocation decides (a tool's ends it with its one line,
      // spperm/Sparse/Interrupt.h); without one, an error.
      if (std::new_handler handler = std::get_new_handler())
        handler();
      error = "out of memory (zlib's buffers)";
    } else
      error = "corrupt gzip data: " + withoutPathPrefix(msg ? msg : "unknown");
    return -1;
  }

private:
  /// zlib words its messages `PATH: what`; the caller names the file itself.
  std::string withoutPathPrefix(std::string msg) const {
    std::string prefix = path + ": ";
    if (msg.compare(0, prefix.size(), prefix) == 0)
      msg.erase(0, prefix.size());
    return msg;
  }

  gzFile file;
  std::string path;
};

StatusOr<CsrMatrix> parseWith(Scanner &sc, MatrixFileFormat format,
                              std::string_view name,
                              const ReadOptions &options) {
  if (format == MatrixFileFormat::MatrixMarket)
    return readMatrixMarket(sc, name, options);
  return readSmtx(sc, name, options);
}

/// What readMatrixFile reads, for the error about anything else.
constexpr const char *kReadableFormats =
    "spperm reads Matrix Market (.mtx), DLMC (.smtx), either optionally "
    "gzip'd, and scipy.sparse .npz (save_npz); convert others with "
    "scipy.io.mmwrite('A.mtx', A) or scipy.sparse.save_npz('A.npz', A)";

/// Whether `path` ends in .npz.
bool hasNpzExtension(std::string_view path) {
  return path.size() >= 4 &&
         equalsIgnoreCase(path.substr(path.size() - 4), ".npz");
}

/// The format named by the file extension, if any.
std::optional<MatrixFileFormat> formatFromExtension(std::string_view path) {
  if (endsWithIgnoreCase(path, ".gz"))
    path.remove_suffix(3);
  if (endsWithIgnoreCase(path, ".smtx"))
    return MatrixFileFormat::Smtx;
  if (endsWithIgnoreCase(path, ".mtx"))
    return MatrixFileFormat::MatrixMarket;
  return std::nullopt;
}

/// `m` if every stored value is finite, else the error for the first that
/// is not. Every value a reader takes is checked finite and within float32,
/// so only duplicates summed by buildCsr can overflow here.
StatusOr<CsrMatrix> checkSums(StatusOr<CsrMatrix> m, std::string_view name) {
  if (!m)
    return m;
  for (int32_t r = 0; r < m->rows; ++r)
    for (int32_t k = m->rowPtr[r]; k < m->rowPtr[r + 1]; ++k)
      if (!std::isfinite(m->values[k]))
        return Status::error(
            std::string(name) + ": the duplicate entries at row " +
            std::to_string(r + 1) + ", column " +
            std::to_string(m->colIdx[k] + 1) +
            " (1-based) sum past the float32 range; duplicates are summed");
  return m;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool spperm::endsWithIgnoreCase(std::string_view path,
                                std::string_view suffix) {
  return path.size() >= suffix.size() &&
         equalsIgnoreCase(path.substr(path.size() - suffix.size()), suffix);
}

StatusOr<CsrMatrix> spperm::parseMatrixText(std::string_view text,
                                            MatrixFileFormat format,
                                            std::string_view name,
                                            const ReadOptions &options) {
  Scanner sc(text);
  return checkSums(parseWith(sc, format, name, options), name);
}

Status spperm::directoryGivenForFile(const std::string &path,
                                     std::string_view what) {
  // A package is the directory spperm-compile writes, its manifest.json
  // first (docs/Package.md).
  struct stat st;
  if (::stat((path + "/manifest.json").c_str(), &st) == 0)
    return Status::error(path + ": is a spperm package, not a " +
                         std::string(what) +
                         " file (spperm-run and spperm-verify run a "
                         "package; spperm-inspect PKG prints what it holds)");
  return Status::error(path + ": is a directory, not a " + std::string(what) +
                       " file");
}

StatusOr<CsrMatrix> spperm::readMatrixFile(const std::string &path,
                                           const ReadOptions &options) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return directoryGivenForFile(path, "matrix");
  // A pipe or device is read once, as a stream: no sniffing by a second
  // open (which would wait on a FIFO, or find a pipe drained).
  const bool regular = S_ISREG(st.st_mode);
  if (!regular && hasNpzExtension(path))
    return Status::error(path + ": a .npz archive must be a regular file "
                                "(zip needs random access), not a pipe or "
                                "device");
  // .npz (zip) archives by name or by their first bytes, before gzip.
  if (regular) {
    char head[4] = {};
    std::FILE *f = std::fopen(path.c_str(), "rb");
    size_t got = f ? std::fread(head, 1, sizeof(head), f) : 0;
    if (f)
      std::fclose(f);
    if (hasNpzExtension(path) || looksLikeZip(std::string_view(head, got)))
      return checkSums(readNpz(path, options), path);
  }
  errno = 0;
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    return Status::error(path + ": cannot open: " +
                         (errno ? std::strerror(errno) : "out of memory"));
  gzbuffer(file, 256 * 1024);
  GzFileSource source(file, path);
  Scanner sc(source);

  std::optional<MatrixFileFormat> format = formatFromExtension(path);
  if (!format) {
    // Sniff: Matrix Market files start with '%' (the banner); DLMC files
    // start with a digit.
    sc.ensure();
    std::string_view head = sc.visible();
    if (!regular && looksLikeZip(head))
      return Status::error(path + ": a .npz archive must be a regular file "
                                  "(zip needs random access), not a pipe or "
                                  "device");
    if (!head.empty() && head[0] != '%' &&
        !(head[0] >= '0' && head[0] <= '9') && head[0] != ' ' &&
        head[0] != '\t' && head[0] != '\n' && head[0] != '\r')
      return Status::error(path + ": not a matrix file spperm recognizes (" +
                           kReadableFormats + ")");
    format = (!head.empty() && head[0] == '%') ? MatrixFileFormat::MatrixMarket
                                               : MatrixFileFormat::Smtx;
  }
  return checkSums(parseWith(sc, *format, path, options), path);
}
