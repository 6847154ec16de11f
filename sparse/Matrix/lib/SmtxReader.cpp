//===- SmtxReader.cpp - The DLMC .smtx reader -------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// DLMC .smtx files: `ROWS, COLS, NNZ` on the first line, the rows + 1 row
// offsets on the second and the nnz 0-based column indices on the third; the
// values are ones (or random, --values random:SEED).
//
//===----------------------------------------------------------------------===//

#include "MatrixScanner.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace spperm;
using namespace spperm::detail;

namespace {

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

} // namespace

StatusOr<CsrMatrix> detail::readSmtx(Scanner &sc, std::string_view name,
                                     const ReadOptions &options) {
  return SmtxReader(sc, name, options).read();
}
