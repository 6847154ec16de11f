//===- MlirNesting.h - Bracket nesting of MLIR text -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser descends recursively into every nested attribute, type and
// region, with no depth limit of its own: a few thousand nested `[` overflow
// the stack (found by spperm-fuzz-mlir). The tools that parse MLIR text
// measure the nesting first and refuse text nested deeper than any real IR
// with a one-line error instead of crashing.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_TOOLS_MLIRNESTING_H
#define SPPERM_TOOLS_MLIRNESTING_H

#include <cstdint>
#include <string>
#include <string_view>

namespace spperm {

/// The deepest nesting the tools hand to MLIR's parser: far beyond real IR
/// (a few dozen levels), far below what overflows an 8 MB stack, also with
/// the sanitizers' larger frames.
constexpr int64_t kMaxMlirNesting = 256;

/// The deepest nesting of `(`, `[`, `{` and `<` in MLIR text, outside string
/// literals and `//` comments; the `>` of `->` closes nothing.
int64_t mlirNestingDepth(std::string_view text);

/// An error message naming `name` when `text` is nested deeper than
/// kMaxMlirNesting, else an empty string.
std::string checkMlirNesting(std::string_view text, const std::string &name);

} // namespace spperm

#endif // SPPERM_TOOLS_MLIRNESTING_H
