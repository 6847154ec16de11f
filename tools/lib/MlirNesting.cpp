//===- MlirNesting.cpp - Bracket nesting of MLIR text -----------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/MlirNesting.h"

#include <algorithm>

using namespace spperm;

int64_t spperm::mlirNestingDepth(std::string_view text) {
  int64_t depth = 0, deepest = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      // A string literal: up to the closing quote, escapes skipped.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      depth = std::max<int64_t>(depth - 1, 0);
    }
  }
  return deepest;
}

std::string spperm::checkMlirNesting(std::string_view text,
                                     const std::string &name) {
  const int64_t depth = mlirNestingDepth(text);
  if (depth <= kMaxMlirNesting)
    return "";
  return name + ": brackets nested " + std::to_string(depth) +
         " levels deep; the limit is " + std::to_string(kMaxMlirNesting);
}
