//===- MatrixIO.cpp - Reading sparse matrix files ---------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Matrix Market and DLMC readers. Both formats are parsed by hand from a
// Scanner: a cursor over either text already in memory or a fixed 1 MiB buffer
// refilled from zlib (which reads plain files transparently, so `.gz` and
// plain files share one path). The parse loops allocate nothing per entry;
// the only growth is the triplet arrays, reserved up to a cap and grown by
// push_back, because a header can lie about its entry count.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/MatrixIO.h"

#include "spperm/Sparse/Escape.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <system_error>
#include <zlib.h>

using namespace spperm;

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
    return invalid("SEED must be a decimal integer");
  uint64_t seed = 0;
  auto [ptr, ec] = std::from_chars(first, last, seed);
  if (ec == std::errc::result_out_of_range)
    return invalid("SEED does not fit in 64 bits");
  if (ec != std::errc() || ptr != last)
    return invalid("SEED must be a decimal integer");
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
// Byte sources and the scanner
//===----------------------------------------------------------------------===//

namespace {

/// Bytes refilled per read from a stream.
constexpr size_t kChunkSize = size_t(1) << 20;
/// The longest token the readers accept; a longer one is an error. The
/// scanner keeps more than this many bytes visible at a token start.
constexpr ptrdiff_t kWindow = 4096;
/// At most this many triplets are reserved up front; headers can lie.
constexpr int64_t kReserveCap = int64_t(1) << 22;

/// A stream of uncompressed bytes.
class ByteSource {
public:
  virtual ~ByteSource() = default;
  /// Reads up to `size` bytes into `dst`. Returns the count, 0 at the end of
  /// the data, or -1 with `error` set.
  virtual int64_t read(char *dst, size_t size, std::string &error) = 0;
};

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
    else if (errnum == Z_MEM_ERROR)
      error = "out of memory while inflating gzip data";
    else
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

enum CharClass : uint8_t { kBlank = 1, kDelimiter = 2 };

/// Blanks separate tokens within a line; delimiters end a token.
struct CharTable {
  uint8_t cls[256] = {};
  constexpr CharTable() {
    cls[static_cast<unsigned char>(' ')] = kBlank | kDelimiter;
    cls[static_cast<unsigned char>('\t')] = kBlank | kDelimiter;
    cls[static_cast<unsigned char>('\r')] = kBlank | kDelimiter;
    cls[static_cast<unsigned char>('\n')] = kDelimiter;
  }
};
constexpr CharTable kChars;

inline bool isBlank(char c) {
  return kChars.cls[static_cast<unsigned char>(c)] & kBlank;
}
inline bool isDelimiter(char c) {
  return kChars.cls[static_cast<unsigned char>(c)] & kDelimiter;
}

/// A cursor over text, either fully in memory or streamed through a fixed
/// buffer. At a token start, ensure() makes more than kWindow bytes visible
/// (unless the text ends sooner), so a token of up to kWindow bytes and the
/// byte after it never straddle a refill.
class Scanner {
public:
  /// Scans text already in memory, without copying it.
  explicit Scanner(std::string_view text)
      : pos(text.data()), end(text.data() + text.size()), atEnd(true),
        lastByte(text.empty() ? '\0' : text.back()) {}

  /// Scans a stream through a kChunkSize buffer.
  explicit Scanner(ByteSource &src)
      : source(&src), storage(new char[kChunkSize]) {
    pos = end = storage.get();
  }

  /// Makes a token's worth of bytes visible; false at the end of the text.
  bool ensure() {
    if (end - pos <= kWindow && !atEnd)
      refill();
    return pos < end;
  }

  /// The next byte, or -1 at the end of the text.
  int peek() { return ensure() ? static_cast<unsigned char>(*pos) : -1; }

  /// The visible bytes from the cursor (after ensure(): more than kWindow of
  /// them unless the text ends sooner).
  std::string_view visible() const {
    return std::string_view(pos, static_cast<size_t>(end - pos));
  }

  /// Skips spaces, tabs and carriage returns, but not newlines.
  void skipBlanks() {
    for (;;) {
      while (pos < end && isBlank(*pos))
        ++pos;
      if (pos < end || atEnd)
        return;
      refill();
    }
  }

  /// Skips the rest of the line, its newline included.
  void skipLine() {
    for (;;) {
      if (const void *nl = std::memchr(pos, '\n', end - pos)) {
        pos = static_cast<const char *>(nl) + 1;
        ++line;
        return;
      }
      pos = end;
      if (atEnd)
        return;
      refill();
    }
  }

  /// True at a newline or the end of the text.
  bool atLineEnd() {
    int c = peek();
    return c < 0 || c == '\n';
  }

  /// Consumes a newline if the cursor is on one.
  void consumeNewline() {
    if (pos < end && *pos == '\n') {
      ++pos;
      ++line;
    }
  }

  /// The token at the cursor (empty at a newline or the end), not consumed.
  /// Call after skipBlanks().
  std::string_view token() {
    ensure();
    const char *p = pos;
    while (p < end && !isDelimiter(*p))
      ++p;
    return std::string_view(pos, static_cast<size_t>(p - pos));
  }

  void advance(size_t n) { pos += n; }

  /// For fast paths that parse from the raw bytes: the visible bytes are
  /// [cursor(), limit()).
  const char *cursor() const { return pos; }
  const char *limit() const { return end; }
  /// Whether no bytes follow limit().
  bool atEndOfText() const { return atEnd; }
  /// Moves the cursor to `next`, just past a newline in the visible bytes.
  void advanceLine(const char *next) {
    assert(next > pos && next <= end && next[-1] == '\n' && "not a line end");
    pos = next;
    ++line;
  }

  /// The 1-based line of the cursor.
  int64_t lineNumber() const { return line; }

  /// The last line of the text, for errors at its end: a final newline does
  /// not start another line.
  int64_t lastLineNumber() const {
    return (lastByte == '\n' && line > 1) ? line - 1 : line;
  }

  /// Whether reading failed; the text then ended early.
  bool ioFailed() const { return failed; }
  const std::string &ioError() const { return ioMessage; }

private:
  void refill() {
    char *base = storage.get();
    size_t keep = static_cast<size_t>(end - pos);
    std::memmove(base, pos, keep);
    pos = base;
    end = base + keep;
    while (!atEnd && end - pos <= kWindow) {
      size_t room = kChunkSize - static_cast<size_t>(end - base);
      int64_t n = source->read(const_cast<char *>(end), room, ioMessage);
      if (n > 0) {
        end += n;
        lastByte = end[-1];
        continue;
      }
      atEnd = true;
      failed = n < 0;
    }
  }

  const char *pos = nullptr;
  const char *end = nullptr;
  bool atEnd = false;
  char lastByte = '\0';
  int64_t line = 1;
  ByteSource *source = nullptr;
  std::unique_ptr<char[]> storage;
  bool failed = false;
  std::string ioMessage;
};

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z')
      x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z')
      y = static_cast<char>(y - 'A' + 'a');
    if (x != y)
      return false;
  }
  return true;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Parses a token of decimal digits. Values too large for int64 saturate to
/// INT64_MAX (callers bound everything by kMaxIndex). False if not all
/// digits.
bool parseUnsigned(std::string_view tok, int64_t &v) {
  if (tok.empty())
    return false;
  int64_t x = 0;
  for (char c : tok) {
    if (!isDigit(c))
      return false;
    x = x <= (INT64_MAX - 9) / 10 ? x * 10 + (c - '0') : INT64_MAX;
  }
  v = x;
  return true;
}

/// Parses an optionally negative decimal integer (for header fields, so that
/// a negative dimension gets its own message).
bool parseSigned(std::string_view tok, int64_t &v) {
  bool negative = !tok.empty() && tok[0] == '-';
  if (!parseUnsigned(negative ? tok.substr(1) : tok, v))
    return false;
  if (negative)
    v = -v;
  return true;
}

/// Parses a real number token (an optional leading '+' is allowed). Values too
/// large for double become infinities and values too small become zero or
/// subnormal, as strtod does; the caller decides what is acceptable.
bool parseReal(std::string_view tok, double &v) {
  const char *first = tok.data(), *last = first + tok.size();
  if (first != last && *first == '+') {
    ++first;
    if (first != last && (*first == '+' || *first == '-'))
      return false;
  }
  if (first == last)
    return false;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ptr != last)
    return false;
  if (ec == std::errc())
    return true;
  if (ec != std::errc::result_out_of_range)
    return false;
  // Rare: from_chars leaves `v` unset on overflow and underflow alike.
  std::string copy(first, last);
  v = std::strtod(copy.c_str(), nullptr);
  return true;
}

/// Parses a plain decimal number (`-12.5e-3`, no leading '+') starting at
/// `p` by Clinger's fast path: when the digits form an integer m <= 2^53 and
/// the decimal exponent k has |k| <= 22, both m and 10^|k| are exact doubles,
/// so the single IEEE multiplication or division m * 10^k is correctly
/// rounded, the same double from_chars gives. Returns the end of the number,
/// or nullptr when the number is not of that form (the caller then uses
/// from_chars).
const char *parseDecimalFast(const char *p, const char *end, double &v) {
  static constexpr double kPow10[] = {
      1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  constexpr uint64_t kMaxMantissa = uint64_t(1) << 53;
  bool negative = p < end && *p == '-';
  p += negative;
  uint64_t m = 0;
  int digits = 0, fraction = 0;
  for (; p < end && isDigit(*p); ++p, ++digits)
    if ((m = m * 10 + static_cast<unsigned>(*p - '0')) > kMaxMantissa)
      return nullptr;
  if (p < end && *p == '.') {
    for (++p; p < end && isDigit(*p); ++p, ++digits, ++fraction)
      if ((m = m * 10 + static_cast<unsigned>(*p - '0')) > kMaxMantissa)
        return nullptr;
  }
  if (digits == 0)
    return nullptr;
  int exponent = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negativeExponent = p < end && *p == '-';
    if (p < end && (*p == '-' || *p == '+'))
      ++p;
    if (p == end || !isDigit(*p))
      return nullptr;
    for (; p < end && isDigit(*p); ++p)
      if ((exponent = exponent * 10 + (*p - '0')) > 1000)
        return nullptr;
    if (negativeExponent)
      exponent = -exponent;
  }
  int k = exponent - fraction;
  if (k < -22 || k > 22)
    return nullptr;
  double d = static_cast<double>(m);
  d = k < 0 ? d / kPow10[-k] : d * kPow10[k];
  v = negative ? -d : d;
  return p;
}

/// Parses an integer-field value token (an optional leading '+' allowed).
/// Returns 0 on success, 1 if not an integer, 2 if out of int64 range.
int parseIntegerValue(std::string_view tok, int64_t &v) {
  const char *first = tok.data(), *last = first + tok.size();
  if (first != last && *first == '+') {
    ++first;
    if (first != last && (*first == '+' || *first == '-'))
      return 1;
  }
  if (first == last)
    return 1;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ptr != last)
    return 1;
  if (ec == std::errc::result_out_of_range)
    return 2;
  return ec == std::errc() ? 0 : 1;
}

/// State shared by the two readers: the scanner, the name for messages and
/// the value options.
class ReaderBase {
public:
  ReaderBase(Scanner &sc, std::string_view name, const ReadOptions &options)
      : sc(sc), name(name), options(options) {}

protected:
  /// `NAME:LINE: what`; a read failure (corrupt or truncated gzip) takes
  /// precedence, since it is what made the text look wrong.
  Status fail(int64_t line, const std::string &what) const {
    const std::string &msg = sc.ioFailed() ? sc.ioError() : what;
    return Status::error(std::string(name) + ":" + std::to_string(line) + ": " +
                         msg);
  }
  Status failHere(const std::string &what) const {
    return fail(sc.lineNumber(), what);
  }
  Status failAtEnd(const std::string &what) const {
    return fail(sc.lastLineNumber(), what);
  }

  /// The token at the cursor after blanks (empty at the line end), not
  /// consumed; an error if it is longer than kWindow. (A longer token may be
  /// cut at the visible bytes; refusing them all keeps memory and streamed
  /// input alike.)
  StatusOr<std::string_view> nextToken() {
    sc.skipBlanks();
    std::string_view tok = sc.token();
    if (tok.size() > static_cast<size_t>(kWindow))
      return failHere("token " + quoted(tok) + " is longer than " +
                      std::to_string(kWindow) + " bytes");
    return tok;
  }

  /// Checks that only blanks remain on the line and consumes its newline.
  Status finishLine(const char *after) {
    sc.skipBlanks();
    if (!sc.atLineEnd()) {
      std::string_view tok = sc.token();
      return failHere("unexpected " + quoted(tok) + " after " + after);
    }
    sc.consumeNewline();
    return Status::ok();
  }

  /// Ensures the end of the text was reached without a read failure.
  Status finishText() const {
    if (sc.ioFailed())
      return failHere(sc.ioError());
    return Status::ok();
  }

  /// The largest dimension or entry count accepted.
  int64_t indexLimit() const { return std::min(options.maxIndex, kMaxIndex); }
  std::string limitText() const { return std::to_string(indexLimit()); }

  Scanner &sc;
  std::string_view name;
  const ReadOptions &options;
};

//===----------------------------------------------------------------------===//
// Matrix Market
//===----------------------------------------------------------------------===//

enum class MtxField { Real, Integer, Pattern };
enum class MtxSymmetry { General, Symmetric, SkewSymmetric };

class MtxReader : ReaderBase {
public:
  using ReaderBase::ReaderBase;

  StatusOr<CsrMatrix> read() {
    if (!sc.ensure())
      return fail(1, "empty file");
    if (Status s = readBanner(); !s)
      return s;
    if (Status s = readSizeLine(); !s)
      return s;
    CooTriplets coo;
    if (Status s = readEntries(coo); !s)
      return s;
    if (Status s = finishText(); !s)
      return s;
    return buildCsr(coo);
  }

private:
  Status readBanner() {
    StatusOr<std::string_view> banner = nextToken();
    if (!banner)
      return banner.status();
    if (!equalsIgnoreCase(*banner, "%%MatrixMarket"))
      return failHere("missing Matrix Market banner: expected "
                      "'%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
    sc.advance(banner->size());

    static const char *const kWhat[4] = {"object", "format", "field",
                                         "symmetry"};
    for (int i = 0; i < 4; ++i) {
      StatusOr<std::string_view> word = nextToken();
      if (!word)
        return word.status();
      if (word->empty())
        return failHere(std::string("incomplete Matrix Market banner: "
                                    "missing the ") +
                        kWhat[i]);
      if (Status s = checkBannerWord(i, *word); !s)
        return s;
      sc.advance(word->size());
    }
    if (Status s = finishLine("the Matrix Market banner"); !s)
      return s;
    return Status::ok();
  }

  Status checkBannerWord(int i, std::string_view w) {
    switch (i) {
    case 0:
      if (!equalsIgnoreCase(w, "matrix"))
        return failHere("unsupported Matrix Market object " + quoted(w) +
                        " (only 'matrix' is supported)");
      return Status::ok();
    case 1:
      if (equalsIgnoreCase(w, "coordinate"))
        return Status::ok();
      if (equalsIgnoreCase(w, "array"))
        return failHere("unsupported Matrix Market format 'array' (dense "
                        "storage); only 'coordinate' is supported");
      return failHere("unsupported Matrix Market format " + quoted(w) +
                      " (only 'coordinate' is supported)");
    case 2:
      if (equalsIgnoreCase(w, "real") || equalsIgnoreCase(w, "double"))
        field = MtxField::Real;
      else if (equalsIgnoreCase(w, "integer"))
        field = MtxField::Integer;
      else if (equalsIgnoreCase(w, "pattern"))
        field = MtxField::Pattern;
      else
        return failHere("unsupported Matrix Market field " + quoted(w) +
                        " (expected real, integer or pattern)");
      return Status::ok();
    default:
      if (equalsIgnoreCase(w, "general"))
        symmetry = MtxSymmetry::General;
      else if (equalsIgnoreCase(w, "symmetric"))
        symmetry = MtxSymmetry::Symmetric;
      else if (equalsIgnoreCase(w, "skew-symmetric"))
        symmetry = MtxSymmetry::SkewSymmetric;
      else
        return failHere("unsupported Matrix Market symmetry " + quoted(w) +
                        " (expected general, symmetric or skew-symmetric)");
      return Status::ok();
    }
  }

  /// Skips comment lines and blank lines; false at the end of the text.
  bool skipCommentsAndBlankLines() {
    for (;;) {
      sc.skipBlanks();
      int c = sc.peek();
      if (c < 0)
        return false;
      if (c == '\n')
        sc.consumeNewline();
      else if (c == '%')
        sc.skipLine();
      else
        return true;
    }
  }

  /// Reads one size field into `v`, at most indexLimit().
  Status readSizeField(const char *what, int64_t &v) {
    StatusOr<std::string_view> next = nextToken();
    if (!next)
      return next.status();
    std::string_view tok = *next;
    if (tok.empty())
      return failHere(std::string("size line is missing the ") + what +
                      " (expected 'ROWS COLS NNZ')");
    if (!parseSigned(tok, v))
      return failHere(std::string("bad size line: ") + what + " " +
                      quoted(tok) + " is not an integer");
    if (v < 0)
      return failHere(std::string(what) + " is negative (" + escaped(tok) +
                      ")");
    if (v > indexLimit())
      return failHere(std::string(what) + " " + escaped(tok) +
                      " exceeds the limit " + limitText());
    sc.advance(tok.size());
    return Status::ok();
  }

  Status readSizeLine() {
    if (!skipCommentsAndBlankLines())
      return failAtEnd("missing size line 'ROWS COLS NNZ' after the banner");
    if (Status s = readSizeField("number of rows", rows); !s)
      return s;
    if (Status s = readSizeField("number of columns", cols); !s)
      return s;
    if (Status s = readSizeField("number of entries", nnz); !s)
      return s;
    int64_t line = sc.lineNumber();
    if (Status s = finishLine("the size line"); !s)
      return s;

    std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
    if (symmetry != MtxSymmetry::General && rows != cols)
      return fail(line, std::string(symmetry == MtxSymmetry::Symmetric
                                        ? "symmetric"
                                        : "skew-symmetric") +
                            " matrix must be square, but it is " + shape);
    // Duplicates are legal (they are summed), so the entry count is not
    // bounded by the number of positions, except that an empty shape has
    // none at all. Nothing is allocated from `nnz` beyond a capped reserve.
    if (nnz > 0 && rows * cols == 0)
      return fail(line, std::to_string(nnz) + " entries announced, but a " +
                            shape + " matrix has no positions");
    return Status::ok();
  }

  /// Reads one 1-based index and bounds-checks it against `bound`.
  Status readIndex(const char *what, int64_t bound, int32_t &index) {
    StatusOr<std::string_view> next = nextToken();
    if (!next)
      return next.status();
    std::string_view tok = *next;
    if (tok.empty())
      return failHere(std::string("missing ") + what + " index");
    int64_t v;
    if (!parseUnsigned(tok, v))
      return failHere(std::string(what) + " index " + quoted(tok) +
                      " is not a positive integer");
    if (v < 1 || v > bound)
      return failHere(std::string(what) + " index " + escaped(tok) +
                      " is out of range [1, " + std::to_string(bound) + "]");
    index = static_cast<int32_t>(v - 1);
    sc.advance(tok.size());
    return Status::ok();
  }

  /// Reads the value token of a real or integer entry.
  Status readValue(double &value) {
    StatusOr<std::string_view> next = nextToken();
    if (!next)
      return next.status();
    std::string_view tok = *next;
    if (tok.empty())
      return failHere("missing value");
    if (field == MtxField::Integer) {
      int64_t iv;
      int r = parseIntegerValue(tok, iv);
      if (r == 1)
        return failHere("value " + quoted(tok) + " is not an integer");
      if (r == 2)
        return failHere("integer value " + quoted(tok) + " is out of range");
      value = static_cast<double>(iv);
    } else {
      if (!parseReal(tok, value))
        return failHere("value " + quoted(tok) + " is not a number");
      // Only values that will be used must be representable.
      if (options.values.mode == ValueMode::File) {
        if (!std::isfinite(value))
          return failHere("value " + quoted(tok) + " is not a finite number");
        // Values from 2^128 - 2^103 up round to infinity as float32.
        if (std::fabs(value) >= 0x1.ffffffp127)
          return failHere("value " + quoted(tok) +
                          " is out of the float32 range");
      }
    }
    sc.advance(tok.size());
    return Status::ok();
  }

  /// Parses one plain entry line (`I J [V]`, unsigned indices in range, a
  /// finite value that fits float32) straight from the buffer and consumes
  /// it. Returns false having consumed nothing on anything else, including
  /// comment and blank lines, so the careful path handles it with the same
  /// result or a precise error.
  bool parseEntryFast(int32_t &i, int32_t &j, double &value) {
    sc.ensure();
    const char *p = sc.cursor(), *const e = sc.limit();
    auto skipBlanks = [&] {
      while (p < e && isBlank(*p))
        ++p;
    };
    // An index of at most 10 digits followed by a blank or the line end.
    auto index = [&](int64_t bound, int32_t &out) {
      const char *start = p;
      int64_t v = 0;
      while (p < e && isDigit(*p) && p - start < 10)
        v = v * 10 + (*p++ - '0');
      if (p == start || v < 1 || v > bound || (p < e && !isDelimiter(*p)))
        return false;
      out = static_cast<int32_t>(v - 1);
      return true;
    };
    skipBlanks();
    if (!index(rows, i))
      return false;
    skipBlanks();
    if (!index(cols, j))
      return false;
    if (field != MtxField::Pattern) {
      skipBlanks();
      if (p == e || *p == '+')
        return false;
      if (field == MtxField::Real) {
        if (const char *q = parseDecimalFast(p, e, value)) {
          p = q;
        } else {
          auto [q2, ec] = std::from_chars(p, e, value);
          // Also false for NaN, infinities and values beyond float32.
          if (ec != std::errc() || !(std::fabs(value) < 0x1.ffffffp127))
            return false;
          p = q2;
        }
      } else {
        int64_t iv;
        auto [q, ec] = std::from_chars(p, e, iv);
        if (ec != std::errc())
          return false;
        value = static_cast<double>(iv);
        p = q;
      }
      if (p < e && !isDelimiter(*p))
        return false;
    }
    skipBlanks();
    // Long lines go the careful way, which also refuses overlong tokens.
    if (p - sc.cursor() > kWindow)
      return false;
    if (p < e) {
      if (*p != '\n')
        return false;
      sc.advanceLine(p + 1);
      return true;
    }
    // The last line of the text, without a newline; or a line longer than
    // the visible bytes, which the careful path handles.
    if (!sc.atEndOfText())
      return false;
    sc.advance(static_cast<size_t>(p - sc.cursor()));
    return true;
  }

  Status readEntries(CooTriplets &coo) {
    coo.rows = rows;
    coo.cols = cols;
    const bool mirror = symmetry != MtxSymmetry::General;
    const double mirrorSign =
        symmetry == MtxSymmetry::SkewSymmetric ? -1.0 : 1.0;
    size_t reserve =
        static_cast<size_t>(std::min(mirror ? 2 * nnz : nnz, kReserveCap));
    coo.row.reserve(reserve);
    coo.col.reserve(reserve);
    coo.value.reserve(reserve);

    const ValueMode mode = options.values.mode;
    int64_t entry = 0;
    for (;;) {
      int64_t line = sc.lineNumber();
      int32_t i, j;
      double value = 1.0;
      if (entry == nnz || !parseEntryFast(i, j, value)) {
        // The careful path: comments, blank lines, and anything the fast
        // path declined, which it parses again or reports precisely.
        if (!skipCommentsAndBlankLines())
          break;
        if (entry == nnz)
          return failHere("more entries than the " + std::to_string(nnz) +
                          " announced");
        line = sc.lineNumber();
        if (Status s = readIndex("row", rows, i); !s)
          return s;
        if (Status s = readIndex("column", cols, j); !s)
          return s;
        if (field != MtxField::Pattern) {
          if (Status s = readValue(value); !s)
            return s;
        }
        if (Status s = finishLine("the entry"); !s)
          return s;
      }
      if (mode == ValueMode::Ones)
        value = 1.0;
      else if (mode == ValueMode::Random)
        value = randomValue(options.values.seed, static_cast<uint64_t>(entry));

      coo.row.push_back(i);
      coo.col.push_back(j);
      coo.value.push_back(value);
      if (mirror && i != j) {
        if (coo.row.size() >= static_cast<size_t>(indexLimit()))
          return fail(line, "more than " + limitText() +
                                " stored entries after symmetric expansion");
        coo.row.push_back(j);
        coo.col.push_back(i);
        coo.value.push_back(mirrorSign * value);
      }
      ++entry;
    }
    if (entry < nnz)
      return failAtEnd("file ends after " + std::to_string(entry) + " of " +
                       std::to_string(nnz) + " entries");
    return Status::ok();
  }

  MtxField field = MtxField::Real;
  MtxSymmetry symmetry = MtxSymmetry::General;
  int64_t rows = 0, cols = 0, nnz = 0;
};

//===----------------------------------------------------------------------===//
// DLMC .smtx
//===----------------------------------------------------------------------===//

class SmtxReader : ReaderBase {
public:
  using ReaderBase::ReaderBase;

  StatusOr<CsrMatrix> read() {
    if (!sc.ensure())
      return fail(1, "empty file");
    if (Status s = readHeader(); !s)
      return s;
    if (Status s = readOffsets(); !s)
      return s;
    CooTriplets coo;
    if (Status s = readColumns(coo); !s)
      return s;
    // Only blank lines may follow.
    for (;;) {
      sc.skipBlanks();
      int c = sc.peek();
      if (c < 0)
        break;
      if (c != '\n')
        return failHere("unexpected " + quoted(sc.token()) +
                        " after the column indices line");
      sc.consumeNewline();
    }
    if (Status s = finishText(); !s)
      return s;
    return buildCsr(coo);
  }

private:
  /// Line 1: `ROWS, COLS, NNZ` (commas and/or blanks between the numbers).
  Status readHeader() {
    std::string_view text = sc.visible();
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos && text.size() > size_t(kWindow))
      return fail(1, "bad DLMC header: expected 'ROWS, COLS, NNZ' on the "
                     "first line");
    std::string_view line = text.substr(0, nl);
    size_t p = 0;
    auto skipBlanks = [&] {
      while (p < line.size() && isBlank(line[p]))
        ++p;
    };
    auto bad = [&] {
      return fail(1, "bad DLMC header " + quoted(line) +
                         ": expected 'ROWS, COLS, NNZ'");
    };
    static const char *const kWhat[3] = {"number of rows", "number of columns",
                                         "number of nonzeros"};
    int64_t field[3];
    for (int i = 0; i < 3; ++i) {
      skipBlanks();
      if (i > 0 && p < line.size() && line[p] == ',') {
        ++p;
        skipBlanks();
      }
      size_t start = p;
      if (p < line.size() && line[p] == '-')
        ++p;
      while (p < line.size() && isDigit(line[p]))
        ++p;
      std::string_view num = line.substr(start, p - start);
      if (!parseSigned(num, field[i]))
        return bad();
      if (field[i] < 0)
        return fail(1, std::string(kWhat[i]) + " is negative (" + escaped(num) +
                           ")");
      if (field[i] > indexLimit())
        return fail(1, std::string(kWhat[i]) + " " + escaped(num) +
                           " exceeds the limit " + limitText());
    }
    skipBlanks();
    if (p != line.size())
      return bad();
    rows = field[0];
    cols = field[1];
    nnz = field[2];
    if (nnz > 0 && rows * cols == 0)
      return fail(1, std::to_string(nnz) + " nonzeros announced, but a " +
                         std::to_string(rows) + " x " + std::to_string(cols) +
                         " matrix has no positions");
    sc.advance(line.size());
    sc.consumeNewline();
    return Status::ok();
  }

  /// Line 2: the rows + 1 row offsets.
  Status readOffsets() {
    offsets.reserve(static_cast<size_t>(std::min(rows + 1, kReserveCap)));
    const int64_t want = rows + 1;
    for (;;) {
      StatusOr<std::string_view> next = nextToken();
      if (!next)
        return next.status();
      std::string_view tok = *next;
      if (tok.empty())
        break;
      int64_t v;
      if (!parseUnsigned(tok, v))
        return failHere("row offset " + quoted(tok) +
                        " is not a non-negative integer");
      int64_t k = static_cast<int64_t>(offsets.size());
      if (k == want)
        return failHere("more than " + std::to_string(want) +
                        " row offsets (rows + 1)");
      if (k == 0 && v != 0)
        return failHere("first row offset is " + escaped(tok) + ", expected 0");
      if (k > 0 && v < offsets.back())
        return failHere("row offset " + std::to_string(k) + " (" +
                        escaped(tok) + ") is less than the previous one (" +
                        std::to_string(offsets.back()) + ")");
      if (v > nnz)
        return failHere("row offset " + std::to_string(k) + " (" +
                        escaped(tok) + ") exceeds the number of nonzeros " +
                        std::to_string(nnz));
      offsets.push_back(static_cast<int32_t>(v));
      sc.advance(tok.size());
    }
    if (static_cast<int64_t>(offsets.size()) != want)
      return failHere("expected " + std::to_string(want) +
                      " row offsets (rows + 1), found " +
                      std::to_string(offsets.size()));
    if (offsets.back() != nnz)
      return failHere("last row offset is " + std::to_string(offsets.back()) +
                      " but the header announces " + std::to_string(nnz) +
                      " nonzeros");
    sc.consumeNewline();
    return Status::ok();
  }

  /// Line 3: the nnz column indices, 0-based.
  Status readColumns(CooTriplets &coo) {
    coo.rows = rows;
    coo.cols = cols;
    size_t reserve = static_cast<size_t>(std::min(nnz, kReserveCap));
    coo.row.reserve(reserve);
    coo.col.reserve(reserve);
    coo.value.reserve(reserve);
    const bool random = options.values.mode == ValueMode::Random;
    int64_t entry = 0;
    int32_t row = 0;
    for (;;) {
      StatusOr<std::string_view> next = nextToken();
      if (!next)
        return next.status();
      std::string_view tok = *next;
      if (tok.empty())
        break;
      int64_t v;
      if (!parseUnsigned(tok, v))
        return failHere("column index " + quoted(tok) +
                        " is not a non-negative integer");
      if (entry == nnz)
        return failHere("more than " + std::to_string(nnz) +
                        " column indices (the number of nonzeros)");
      if (v >= cols)
        return failHere("column index " + escaped(tok) +
                        " is out of range [0, " + std::to_string(cols) + ")");
      while (offsets[static_cast<size_t>(row) + 1] <= entry)
        ++row;
      coo.row.push_back(row);
      coo.col.push_back(static_cast<int32_t>(v));
      coo.value.push_back(random ? randomValue(options.values.seed,
                                               static_cast<uint64_t>(entry))
                                 : 1.0);
      ++entry;
      sc.advance(tok.size());
    }
    if (entry != nnz)
      return failHere("expected " + std::to_string(nnz) +
                      " column indices (the number of nonzeros), found " +
                      std::to_string(entry));
    sc.consumeNewline();
    return Status::ok();
  }

  int64_t rows = 0, cols = 0, nnz = 0;
  std::vector<int32_t> offsets;
};

StatusOr<CsrMatrix> parseWith(Scanner &sc, MatrixFileFormat format,
                              std::string_view name,
                              const ReadOptions &options) {
  if (format == MatrixFileFormat::MatrixMarket)
    return MtxReader(sc, name, options).read();
  return SmtxReader(sc, name, options).read();
}

bool endsWithIgnoreCase(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         equalsIgnoreCase(s.substr(s.size() - suffix.size()), suffix);
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

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

StatusOr<CsrMatrix> spperm::parseMatrixText(std::string_view text,
                                            MatrixFileFormat format,
                                            std::string_view name,
                                            const ReadOptions &options) {
  Scanner sc(text);
  return parseWith(sc, format, name, options);
}

StatusOr<CsrMatrix> spperm::readMatrixFile(const std::string &path,
                                           const ReadOptions &options) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return Status::error(path + ": is a directory");
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
    format = (!head.empty() && head[0] == '%') ? MatrixFileFormat::MatrixMarket
                                               : MatrixFileFormat::Smtx;
  }
  return parseWith(sc, *format, path, options);
}
