//===- JsonSyntax.h - Where a JSON text stops being JSON ----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The core's JSON files (a package's manifest.json, a selector model) are
// untrusted input read without exceptions; their "not valid JSON" errors say
// where, in one line, by this one function.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_JSONSYNTAX_H
#define SPPERM_SPARSE_JSONSYNTAX_H

#include <string>

namespace spperm {

/// "" when `text` is one JSON value (RFC 8259); else where and why it is
/// not, as "line L, column C: ..." in printable ASCII, for a message
/// "FILE: not valid JSON: ...".
std::string jsonSyntaxError(const std::string &text);

} // namespace spperm

#endif // SPPERM_SPARSE_JSONSYNTAX_H
