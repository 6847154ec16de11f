//===- Spelling.cpp - The names a mistyped one is likely a slip of --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Spelling.h"

#include <algorithm>
#include <cctype>

using namespace spperm;

static char lowered(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

size_t spperm::editDistanceIgnoringCase(std::string_view a,
                                        std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = lowered(a[i - 1]) == lowered(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + !same});
      diagonal = above;
    }
  }
  return row[b.size()];
}

static bool equalIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](char x, char y) { return lowered(x) == lowered(y); });
}

std::vector<size_t>
spperm::likelySlips(std::string_view value,
                    const std::vector<std::string_view> &names) {
  std::vector<size_t> slips;
  for (size_t i = 0; i < names.size(); ++i)
    if (equalIgnoringCase(names[i], value))
      slips.push_back(i);
  if (!slips.empty())
    return slips;
  if (value.size() >= 2)
    for (size_t i = 0; i < names.size(); ++i)
      if (equalIgnoringCase(names[i].substr(0, value.size()), value))
        slips.push_back(i);
  if (!slips.empty())
    return slips;
  size_t nearest = names.size();
  size_t best = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const size_t distance = editDistanceIgnoringCase(value, names[i]);
    if (nearest == names.size() || distance < best) {
      nearest = i;
      best = distance;
    }
  }
  if (nearest != names.size() && names[nearest].size() >= 5 && best > 0 &&
      3 * best <= names[nearest].size())
    slips.push_back(nearest);
  return slips;
}

std::string spperm::didYouMean(const std::vector<std::string> &suggestions) {
  if (suggestions.empty())
    return "";
  if (suggestions.size() == 1)
    return "; did you mean '" + suggestions.front() + "'?";
  std::string text = "; did you mean one of ";
  for (size_t i = 0; i < suggestions.size(); ++i)
    text += (i ? ", '" : "'") + suggestions[i] + "'";
  return text + "?";
}

std::string spperm::didYouMean(std::string_view value,
                               const std::vector<std::string_view> &names) {
  std::vector<std::string> suggestions;
  for (size_t i : likelySlips(value, names))
    suggestions.emplace_back(names[i]);
  return didYouMean(suggestions);
}
