//===- Progress.cpp - Progress lines for long tool stages -----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/Progress.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

bool spperm::progressThreshold(double &seconds, std::string &error) {
  seconds = 1.0;
  const char *env = std::getenv("SPPERM_PROGRESS_SECONDS");
  if (!env || !*env)
    return true;
  const std::string text = env;
  double value = 0.0;
  const char *end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p != end || !std::isfinite(value) || value < 0.0) {
    error = "SPPERM_PROGRESS_SECONDS must be a number of seconds >= 0, got '" +
            text + "'";
    return false;
  }
  seconds = value;
  return true;
}
