//===- Sha256.h - Incremental SHA-256 (internal) ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SHA-256 (FIPS 180-4) with an incremental interface, for the package checks
// that hash a file while streaming it. The public one-shot helpers are
// sha256Hex and sha256File in spperm/Sparse/Package.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_SHA256_H
#define SPPERM_LIB_SPARSE_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace spperm {
namespace detail {

/// An incremental SHA-256: update() any number of times, then hexDigest()
/// once.
class Sha256 {
public:
  Sha256();

  /// Appends `size` bytes to the message.
  void update(const void *data, size_t size);
  /// Pads the message and returns the digest as 64 lowercase hex digits.
  /// The hasher must not be used afterwards.
  std::string hexDigest();

  /// Whether compress() runs on the x86 SHA extensions (checked once, with
  /// CPUID); otherwise the portable code of FIPS 180-4 runs.
  static bool usesShaExtensions();
  /// Forces the portable code (tests compare the two paths); returns the
  /// previous setting.
  static bool setPortableOnly(bool portable);

private:
  /// Compresses `blocks` consecutive 64-byte blocks into the state.
  void compress(const uint8_t *data, size_t blocks);

  std::array<uint32_t, 8> state;
  std::array<uint8_t, 64> buffer;
  size_t buffered = 0;
  uint64_t totalBytes = 0;
};

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_SHA256_H
