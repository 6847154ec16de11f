//===- MatrixScanner.cpp - The matrix readers' token parsers ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The token parsers of MatrixScanner.h that the readers call off their fast
// paths: header words and fields, and values the fast path declined.
//
//===----------------------------------------------------------------------===//

#include "MatrixScanner.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <system_error>

using namespace spperm;
using namespace spperm::detail;

bool detail::equalsIgnoreCase(std::string_view a, std::string_view b) {
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

bool detail::parseSigned(std::string_view tok, int64_t &v) {
  bool negative = !tok.empty() && tok[0] == '-';
  if (!parseUnsigned(negative ? tok.substr(1) : tok, v))
    return false;
  if (negative)
    v = -v;
  return true;
}

bool detail::parseReal(std::string_view tok, double &v) {
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

int detail::parseIntegerValue(std::string_view tok, int64_t &v) {
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
