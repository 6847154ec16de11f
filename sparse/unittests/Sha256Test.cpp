//===- Sha256Test.cpp - The incremental SHA-256 -----------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The incremental hasher over OpenSSL's libcrypto: the FIPS 180-4 vectors,
// and random messages of every length around the block and padding
// boundaries fed whole, in random pieces and through the one-shot
// sha256Hex, which must all agree. (The public one-shot helpers have their
// own tests in RuntimeTests.)
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"

#include "spperm/Sparse/Package.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using spperm::detail::Sha256;

namespace {

/// The digest of `message` fed in the given piece sizes (cycled).
std::string digest(const std::vector<uint8_t> &message,
                   const std::vector<size_t> &pieces = {}) {
  Sha256 hasher;
  size_t at = 0, piece = 0;
  while (at < message.size()) {
    size_t n = pieces.empty() ? message.size()
                              : std::min(pieces[piece++ % pieces.size()],
                                         message.size() - at);
    hasher.update(message.data() + at, n);
    at += n;
  }
  return hasher.hexDigest();
}

std::vector<uint8_t> bytes(const std::string &s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

TEST(Sha256Test, FipsVectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
  for (const auto &[message, expected] : vectors) {
    EXPECT_EQ(digest(bytes(message)), expected);
    EXPECT_EQ(digest(bytes(message), {1}), expected);
  }
  EXPECT_EQ(digest(std::vector<uint8_t>(1000000, 'a'), {4096}),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, PiecesMatchWholeOnRandomMessages) {
  std::mt19937_64 rng(7);
  for (size_t length = 0; length < 600; ++length) {
    std::vector<uint8_t> message(length);
    for (uint8_t &b : message)
      b = static_cast<uint8_t>(rng());
    std::vector<size_t> pieces = {1 + rng() % 97, 1 + rng() % 200, 64};
    SCOPED_TRACE("length " + std::to_string(length));
    const std::string expected = digest(message);
    ASSERT_EQ(digest(message, pieces), expected);
    ASSERT_EQ(spperm::sha256Hex(message.data(), message.size()), expected);
  }
}

TEST(Sha256Throughput, OneMessage) {
  std::vector<uint8_t> message(64 << 20, 0x5a);
  auto start = std::chrono::steady_clock::now();
  std::string hex = digest(message);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("[ throughput ] SHA-256 (libcrypto): %.0f MB/s\n",
              message.size() / 1e6 / seconds);
  EXPECT_EQ(hex.size(), 64u);
}

} // namespace
