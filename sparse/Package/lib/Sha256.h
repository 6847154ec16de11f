//===- Sha256.h - Incremental SHA-256 (internal) ----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SHA-256 (FIPS 180-4) with an incremental interface, for the package checks
// that hash a file while streaming it; OpenSSL's libcrypto computes it. The
// public one-shot helpers are sha256Hex and sha256File in
// spperm/Sparse/Package.h.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_LIB_SPARSE_SHA256_H
#define SPPERM_LIB_SPARSE_SHA256_H

#include <cstddef>
#include <string>

// OpenSSL's digest context (EVP_MD_CTX in <openssl/types.h>), declared here
// so that this header needs no OpenSSL include path.
struct evp_md_ctx_st;

namespace spperm {
namespace detail {

/// An incremental SHA-256: update() any number of times, then hexDigest()
/// once.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;

  /// Appends `size` bytes to the message.
  void update(const void *data, size_t size);
  /// Pads the message and returns the digest as 64 lowercase hex digits.
  /// The hasher must not be used afterwards.
  std::string hexDigest();

private:
  evp_md_ctx_st *context;
};

} // namespace detail
} // namespace spperm

#endif // SPPERM_LIB_SPARSE_SHA256_H
