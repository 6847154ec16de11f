//===- Escape.h - Input text quoted in one-line messages --------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The readers quote pieces of their input in error messages; these helpers
// keep such a message one printable line whatever the input holds.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_ESCAPE_H
#define SPPERM_SPARSE_ESCAPE_H

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

namespace spperm {

/// `tok` for a message: at most 40 bytes, non-printable bytes and `\`
/// escaped as `\xNN`, `...` appended when cut.
inline std::string escaped(std::string_view tok) {
  constexpr size_t kMax = 40;
  std::string out;
  for (size_t i = 0; i < tok.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(tok[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (tok.size() > kMax)
    out += "...";
  return out;
}

/// escaped(tok) in single quotes.
inline std::string quoted(std::string_view tok) {
  return "'" + escaped(tok) + "'";
}

/// `x` for a message in the fewest significant digits that read back as
/// `x`, so that a value just outside a range is not shown rounded into it
/// (1.0000001, not 1).
inline std::string exactNumber(double x) {
  char text[32];
  const std::to_chars_result r = std::to_chars(text, text + sizeof(text), x);
  return std::string(text, r.ptr);
}

} // namespace spperm

#endif // SPPERM_SPARSE_ESCAPE_H
