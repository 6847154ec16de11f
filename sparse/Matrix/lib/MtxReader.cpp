//===- MtxReader.cpp - The Matrix Market reader -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Matrix Market coordinate files: the banner (object, format, field and
// symmetry, case-insensitive), the size line, and the entries, each parsed
// from the scanner's buffer when it is a plain `I J [V]` line (parseEntryFast)
// and otherwise token by token with a precise error; symmetric and
// skew-symmetric matrices are mirrored.
//
//===----------------------------------------------------------------------===//

#include "MatrixScanner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

using namespace spperm;
using namespace spperm::detail;

namespace {

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
                      " is out of range [1, " + std::to_string(bound) + "]" +
                      (v == 0 ? " (Matrix Market indices are 1-based)" : ""));
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
      if (options.values.mode == ValueMode::File)
        if (const char *problem = float32ValueProblem(value))
          return failHere("value " + quoted(tok) + " " + problem);
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

} // namespace

StatusOr<CsrMatrix> detail::readMatrixMarket(Scanner &sc, std::string_view name,
                                             const ReadOptions &options) {
  return MtxReader(sc, name, options).read();
}
