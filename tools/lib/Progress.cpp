//===- Progress.cpp - Progress lines for long tool stages -----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/Progress.h"

#include <charconv>
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
  // At most 1e9 s: a longer wait would overflow the watcher's clock.
  if (ec != std::errc() || p != end || !(value >= 0.0 && value <= 1e9)) {
    error = "SPPERM_PROGRESS_SECONDS must be a number of seconds in [0, 1e9], "
            "got '" +
            text + "'";
    return false;
  }
  seconds = value;
  return true;
}
