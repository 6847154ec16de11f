//===- FormatsDetail.h - Shared by the formats (internal) -------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// What the files of SpPermFormat share: the limits of the formats, the small
// helpers of their builders and verifiers, and the per-format entry points
// behind buildFormat and verifyFormat (Formats.cpp): BellFormat.cpp and
// HbpFormat.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_FORMATSDETAIL_H
#define SPPERM_LIB_SPARSE_FORMATSDETAIL_H

#include "spperm/Sparse/Formats.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace spperm {
namespace detail {

/// Largest HBP row block.
constexpr int32_t kHbpMaxRowBlock = 1 << 16;
/// The lanes of a warp.
constexpr int32_t kWarp = 32;

/// "invalid WHAT" as an error.
inline Status fail(const std::string &what) {
  return Status::error("invalid " + what);
}

/// `v` in decimal.
inline std::string str(int64_t v) { return std::to_string(v); }

/// ceil(a / b) for a >= 0, b > 0.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Bit-exact float comparison (NaN payloads and signed zeros included).
inline bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Whether `tau` is a bell block size: 1, 2, 4, 8, 16 or 32.
inline bool isBellBlock(int32_t tau) {
  return tau == 1 || tau == 2 || tau == 4 || tau == 8 || tau == 16 ||
         tau == 32;
}

/// A FormattedMatrix of `kind` with m's shape and the row order filled in.
FormattedMatrix startFormat(const CsrMatrix &m,
                            const std::vector<int32_t> &order,
                            FormatKind kind);

/// The bell format of `m` under `order` (BellFormat.cpp); the options and
/// the order have been validated.
StatusOr<FormattedMatrix> buildBell(const CsrMatrix &m,
                                    const std::vector<int32_t> &order,
                                    const FormatOptions &options);

/// The hbp format of `m` under `order` (HbpFormat.cpp); the options and the
/// order have been validated.
StatusOr<FormattedMatrix> buildHbp(const CsrMatrix &m,
                                   const std::vector<int32_t> &order,
                                   const FormatOptions &options);

/// The bell part of verifyFormat: every invariant of BellFormat.cpp's file
/// comment, and with `original` that exactly its entries are stored.
Status verifyBellFormat(const FormattedMatrix &f, const CsrMatrix *original);

/// The hbp part of verifyFormat: every invariant of HbpFormat.cpp's file
/// comment, and with `original` that exactly its entries are stored.
Status verifyHbpFormat(const FormattedMatrix &f, const CsrMatrix *original);

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_FORMATSDETAIL_H
