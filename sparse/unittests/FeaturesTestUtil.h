//===- FeaturesTestUtil.h - Helpers for the feature tests -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the tests of the static features share: feature options by their
// kernel model's three parameters.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_UNITTESTS_SPARSE_FEATURESTESTUTIL_H
#define SPPERM_UNITTESTS_SPARSE_FEATURESTESTUTIL_H

#include "spperm/Sparse/Features.h"

#include <cstdint>

namespace spperm::test {

/// Options with `warps` warps, `lineWidth` columns per cache line and
/// `rowsPerWarp` rows per warp.
inline FeatureOptions options(int32_t warps, int32_t lineWidth,
                              int32_t rowsPerWarp) {
  FeatureOptions o;
  o.warps = warps;
  o.lineWidth = lineWidth;
  o.rowsPerWarp = rowsPerWarp;
  return o;
}

} // namespace spperm::test

#endif // SPPERM_UNITTESTS_SPARSE_FEATURESTESTUTIL_H
