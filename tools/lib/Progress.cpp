//===- Progress.cpp - Progress lines for long tool stages -----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Tools/Progress.h"

#include <cstdlib>

double spperm::progressThreshold() {
  if (const char *env = std::getenv("SPPERM_PROGRESS_SECONDS"))
    return std::atof(env);
  return 1.0;
}
