//===- MlirNesting.cpp - Bracket nesting of MLIR text -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/MlirNesting.h"

#include <algorithm>
#include <cctype>
#include <vector>

using namespace spperm;

namespace {

bool isSuffixIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '$' || c == '.' ||
         c == '_' || c == '-';
}

bool isBareIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '$' || c == '.' ||
         c == '_';
}

} // namespace

MlirTextShape spperm::measureMlirText(std::string_view text) {
  MlirTextShape shape;
  // Operators at each open bracket level since its last separator.
  std::vector<int64_t> operators{0};
  auto addOperator = [&] {
    shape.operators = std::max(shape.operators, ++operators.back());
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '"') {
      // A string literal: up to the closing quote, escapes skipped.
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
    } else if (c == '%' || c == '^' || c == '#' || c == '!' || c == '@') {
      // A value, block, alias or type name (its '-' are not minus signs).
      while (i + 1 < n && isSuffixIdChar(text[i + 1]))
        ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // A number, with an exponent's sign.
      while (i + 1 < n && (isBareIdChar(text[i + 1]) ||
                           ((text[i + 1] == '-' || text[i + 1] == '+') &&
                            (text[i] == 'e' || text[i] == 'E'))))
        ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = i;
      while (end + 1 < n && isBareIdChar(text[end + 1]))
        ++end;
      std::string_view word = text.substr(i, end - i + 1);
      if (word == "floordiv" || word == "ceildiv" || word == "mod")
        addOperator();
      i = end;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      shape.depth = std::max<int64_t>(shape.depth, operators.size());
      operators.push_back(0);
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      if (operators.size() > 1)
        operators.pop_back();
      else
        operators.back() = 0;
    } else if (c == '+' || c == '*' ||
               (c == '-' && (i + 1 >= n || text[i + 1] != '>'))) {
      addOperator();
    } else if (c == ',' || c == ';' || c == ':' || c == '=') {
      operators.back() = 0;
    }
  }
  return shape;
}

std::string spperm::checkMlirNesting(std::string_view text,
                                     const std::string &name) {
  const MlirTextShape shape = measureMlirText(text);
  if (shape.depth > kMaxMlirNesting)
    return name + ": brackets nested " + std::to_string(shape.depth) +
           " levels deep; the limit is " + std::to_string(kMaxMlirNesting);
  if (shape.operators > kMaxMlirOperators)
    return name + ": an expression of " + std::to_string(shape.operators) +
           " operators in a row; the limit is " +
           std::to_string(kMaxMlirOperators);
  return "";
}
