//===- Sha256.cpp - SHA-256 through OpenSSL's libcrypto ---------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The package's checksums (manifest.json, data.bin and its buffers, the
// kernels, the source matrix files) are SHA-256, a contract of the manifest
// (docs/Package.md, "Checksums"). They bound how fast a large matrix
// compiles and a package loads; OpenSSL's libcrypto (EVP digests) computes
// them with the fastest code the CPU supports, chosen at run time (the x86
// SHA extensions, AVX2, ...), and keeps that code maintained for us.
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"

#include "spperm/Sparse/Package.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sys/stat.h>

using namespace spperm;
using spperm::detail::Sha256;

namespace {

/// A libcrypto call failed. With the default provider that happens only when
/// memory runs out, which the core treats as fatal everywhere (it is built
/// without exceptions): say which call, and abort.
[[noreturn]] void cryptoFailure(const char *call) {
  char reason[256];
  ERR_error_string_n(ERR_get_error(), reason, sizeof(reason));
  std::fprintf(stderr, "spperm: %s failed: %s\n", call, reason);
  std::abort();
}

/// OpenSSL's SHA-256, fetched once: passing EVP_sha256() to every
/// EVP_DigestInit_ex would look the algorithm up in the providers for each
/// hasher, and the reader makes one per buffer.
const EVP_MD *sha256Method() {
  static EVP_MD *const method = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (!method)
    cryptoFailure("EVP_MD_fetch(SHA256)");
  return method;
}

} // namespace

Sha256::Sha256() : context(EVP_MD_CTX_new()) {
  if (!context)
    cryptoFailure("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(context, sha256Method(), nullptr) != 1)
    cryptoFailure("EVP_DigestInit_ex");
}

Sha256::~Sha256() { EVP_MD_CTX_free(context); }

void Sha256::update(const void *data, size_t size) {
  if (size > 0 && EVP_DigestUpdate(context, data, size) != 1)
    cryptoFailure("EVP_DigestUpdate");
}

std::string Sha256::hexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context, digest, &length) != 1 || length != 32)
    cryptoFailure("EVP_DigestFinal_ex");
  static const char kHex[] = "0123456789abcdef";
  std::string hex(64, '0');
  for (unsigned i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

std::string spperm::sha256Hex(const void *data, size_t size) {
  Sha256 hasher;
  hasher.update(data, size);
  return hasher.hexDigest();
}

StatusOr<std::string> spperm::sha256File(const std::string &path) {
  struct Closer {
    void operator()(std::FILE *f) const { std::fclose(f); }
  };
  // A FIFO would block the open itself until a writer comes.
  struct stat before;
  if (::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode))
    return Status::error(path + ": not a regular file");
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  // A device or a FIFO may never end (a package whose external source was
  // /dev/zero hung the reader: found by spperm-fuzz-package's reach).
  struct stat st;
  if (::fstat(::fileno(file.get()), &st) != 0)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Status::error(path + ": not a regular file");
  Sha256 hasher;
  std::unique_ptr<char[]> chunk(new char[1 << 16]);
  while (true) {
    size_t got = std::fread(chunk.get(), 1, 1 << 16, file.get());
    hasher.update(chunk.get(), got);
    if (got < (1 << 16))
      break;
  }
  if (std::ferror(file.get()))
    return Status::error(path + ": cannot read: " + std::strerror(errno));
  return hasher.hexDigest();
}
