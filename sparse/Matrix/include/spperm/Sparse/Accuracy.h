//===- Accuracy.h - How a computed product is compared with its reference -===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The rules spperm-verify and spperm-run --ranks share when they compare an
// fp32 product with a float64 reference (docs/Testing.md): the error fp32's
// subnormal range forces, and what of a difference counts.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_ACCURACY_H
#define SPPERM_SPARSE_ACCURACY_H

#include <cmath>
#include <cstdint>

namespace spperm {

/// The absolute error that fp32's subnormal range forces on a sum of
/// `entries` products when its products and partial sums fall below the
/// normal range: two roundings of half the smallest subnormal (2^-150) an
/// entry. For values of a normal range it is far below any tolerance.
inline double underflowSlack(int64_t entries) {
  return static_cast<double>(entries) * std::ldexp(1.0, -149);
}

/// The part of the difference `d` beyond `allowed` (0 within it); NaN and
/// infinite differences as they are.
inline double beyondAllowance(double d, double allowed) {
  if (std::fabs(d) <= allowed)
    return 0.0;
  return std::isfinite(d) ? d - std::copysign(allowed, d) : d;
}

} // namespace spperm

#endif // SPPERM_SPARSE_ACCURACY_H
