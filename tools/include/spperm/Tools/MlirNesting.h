//===- MlirNesting.h - Bracket nesting of MLIR text -------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser descends recursively into every nested attribute, type and
// region, with no depth limit of its own: a few thousand nested `[` overflow
// the stack (found by spperm-fuzz-mlir). Its affine expression parser also
// recurses once per operator of a chain (`d0 + d0 + ...`, `- - - d0`): ten
// thousand of them overflow it too. The tools that parse MLIR text measure
// both first and refuse text beyond any real IR with a one-line error
// instead of crashing.
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

/// The most operators in one chain that the tools hand to MLIR's parser:
/// real affine expressions have a handful.
constexpr int64_t kMaxMlirOperators = 1024;

/// What measureMlirText finds.
struct MlirTextShape {
  /// The deepest nesting of `(`, `[`, `{` and `<`.
  int64_t depth = 0;
  /// The most operators (`+`, `-`, `*`, `floordiv`, `ceildiv`, `mod`) in a
  /// row at one bracket level, between separators (`,` `;` `:` `=`).
  int64_t operators = 0;
};

/// The nesting and operator chains of MLIR text, outside string literals,
/// `//` comments, numbers and `%`/`^`/`#`/`!`/`@` names; the `>` of `->`
/// closes nothing and its `-` is no operator.
MlirTextShape measureMlirText(std::string_view text);

/// An error message naming `name` when `text` is nested deeper than
/// kMaxMlirNesting or has a chain of more than kMaxMlirOperators operators,
/// else an empty string.
std::string checkMlirNesting(std::string_view text, const std::string &name);

} // namespace spperm

#endif // SPPERM_TOOLS_MLIRNESTING_H
