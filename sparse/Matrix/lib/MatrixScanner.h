//===- MatrixScanner.h - The readers' scanner (internal) --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the Matrix Market and DLMC readers (MtxReader.cpp, SmtxReader.cpp)
// share. Both formats are parsed by hand from a Scanner: a cursor over
// either text already in memory or a fixed 1 MiB buffer refilled from zlib
// (which reads plain files transparently, so `.gz` and plain files share one
// path). The parse loops allocate nothing per entry; the only growth is the
// triplet arrays, reserved up to a cap and grown by push_back, because a
// header can lie about its entry count. The scanner and the token parsers
// the entry loops call are inline here; MatrixScanner.cpp has the others.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_MATRIXSCANNER_H
#define SPPERM_LIB_SPARSE_MATRIXSCANNER_H

#include "spperm/Sparse/Escape.h"
#include "spperm/Sparse/MatrixIO.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace spperm {
namespace detail {

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

/// The classes of CharTable.
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
/// The class of every byte.
inline constexpr CharTable kChars;

/// Whether `c` separates tokens within a line.
inline bool isBlank(char c) {
  return kChars.cls[static_cast<unsigned char>(c)] & kBlank;
}
/// Whether `c` ends a token.
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

/// Whether `a` and `b` are equal up to ASCII case.
bool equalsIgnoreCase(std::string_view a, std::string_view b);

/// Whether `c` is an ASCII digit.
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Parses a token of decimal digits. Values too large for int64 saturate to
/// INT64_MAX (callers bound everything by kMaxIndex). False if not all
/// digits.
inline bool parseUnsigned(std::string_view tok, int64_t &v) {
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
bool parseSigned(std::string_view tok, int64_t &v);

/// Parses a real number token (an optional leading '+' is allowed). Values too
/// large for double become infinities and values too small become zero or
/// subnormal, as strtod does; the caller decides what is acceptable.
bool parseReal(std::string_view tok, double &v);

/// Parses a plain decimal number (`-12.5e-3`, no leading '+') starting at
/// `p` by Clinger's fast path: when the digits form an integer m <= 2^53 and
/// the decimal exponent k has |k| <= 22, both m and 10^|k| are exact doubles,
/// so the single IEEE multiplication or division m * 10^k is correctly
/// rounded, the same double from_chars gives. Returns the end of the number,
/// or nullptr when the number is not of that form (the caller then uses
/// from_chars).
inline const char *parseDecimalFast(const char *p, const char *end, double &v) {
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
int parseIntegerValue(std::string_view tok, int64_t &v);

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

/// Reads a Matrix Market file from `sc` (MtxReader.cpp); `name` prefixes the
/// messages.
StatusOr<CsrMatrix> readMatrixMarket(Scanner &sc, std::string_view name,
                                     const ReadOptions &options);

/// Reads a DLMC .smtx file from `sc` (SmtxReader.cpp); `name` prefixes the
/// messages.
StatusOr<CsrMatrix> readSmtx(Scanner &sc, std::string_view name,
                             const ReadOptions &options);

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_MATRIXSCANNER_H
