//===- Spelling.h - What a mistyped name is likely a slip of -----*- C++ -*-===/
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every "unknown name" error of spperm's tools, passes and Python module
// (an option's value, a tool's flag, a keyword of spperm.compile) names what
// the user likely meant, by one rule, spelled here once.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_SPELLING_H
#define SPPERM_SPARSE_SPELLING_H

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace spperm {

/// The edit distance (insertions, deletions, replacements) of `a` and `b`,
/// letters compared without case.
size_t editDistanceIgnoringCase(std::string_view a, std::string_view b);

/// The positions in `names` of the names `value`, which is none of them, is
/// likely a slip of, in the order of `names`: those that differ from it only
/// in case (`LPT`); else those it begins, for a value of two letters or more
/// (`hybrid-2`: the three `hybrid-2.x`); else the nearest by edit distance,
/// where a third of its letters at most differ and it has five or more
/// (`warp_aware`, `condenced`; bf16 is no misspelt f16). Empty where none is.
std::vector<size_t> likelySlips(std::string_view value,
                                const std::vector<std::string_view> &names);

/// `"; did you mean 'A'?"`, `"; did you mean one of 'A', 'B'?"`, or "" for
/// no suggestions: the end of an "unknown name" message.
std::string didYouMean(const std::vector<std::string> &suggestions);

/// didYouMean of the likelySlips of `value` among `names`.
std::string didYouMean(std::string_view value,
                       const std::vector<std::string_view> &names);

} // namespace spperm

#endif // SPPERM_SPARSE_SPELLING_H
