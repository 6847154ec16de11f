//===- Sha256Test.cpp - The two SHA-256 compression paths ------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The x86 SHA-extension compression against the portable one, on the FIPS
// 180-4 vectors and random messages of every length around the block and
// padding boundaries, fed whole and in random pieces. On a CPU without the
// extensions only the portable path exists and the comparison is skipped,
// visibly. (The public one-shot helpers have their own tests in
// RuntimeTests.)
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using spperm::detail::Sha256;

namespace {

/// The digest of `message` fed in the given piece sizes (cycled), on the
/// portable path or not.
std::string digest(const std::vector<uint8_t> &message, bool portable,
                   const std::vector<size_t> &pieces = {}) {
  bool previous = Sha256::setPortableOnly(portable);
  Sha256 hasher;
  size_t at = 0, piece = 0;
  while (at < message.size()) {
    size_t n = pieces.empty() ? message.size()
                              : std::min(pieces[piece++ % pieces.size()],
                                         message.size() - at);
    hasher.update(message.data() + at, n);
    at += n;
  }
  std::string hex = hasher.hexDigest();
  Sha256::setPortableOnly(previous);
  return hex;
}

std::vector<uint8_t> bytes(const std::string &s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

TEST(Sha256Test, FipsVectorsOnBothPaths) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
  for (bool portable : {true, false}) {
    SCOPED_TRACE(portable ? "portable" : "default");
    for (const auto &[message, expected] : vectors)
      EXPECT_EQ(digest(bytes(message), portable), expected);
    EXPECT_EQ(digest(std::vector<uint8_t>(1000000, 'a'), portable, {4096}),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST(Sha256Test, ExtensionsMatchPortableOnRandomMessages) {
  if (!Sha256::usesShaExtensions())
    GTEST_SKIP() << "this CPU has no SHA extensions: only the portable "
                    "path exists";
  std::mt19937_64 rng(7);
  for (size_t length = 0; length < 600; ++length) {
    std::vector<uint8_t> message(length);
    for (uint8_t &b : message)
      b = static_cast<uint8_t>(rng());
    std::vector<size_t> pieces = {1 + rng() % 97, 1 + rng() % 200, 64};
    SCOPED_TRACE("length " + std::to_string(length));
    const std::string expected = digest(message, true);
    ASSERT_EQ(digest(message, false), expected);
    ASSERT_EQ(digest(message, false, pieces), expected);
  }
}

TEST(Sha256Throughput, BothPaths) {
  std::vector<uint8_t> message(64 << 20, 0x5a);
  for (bool portable : {true, false}) {
    if (!portable && !Sha256::usesShaExtensions())
      continue;
    auto start = std::chrono::steady_clock::now();
    std::string hex = digest(message, portable);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    std::printf("[ throughput ] SHA-256 %s: %.0f MB/s\n",
                portable ? "portable" : "SHA extensions",
                message.size() / 1e6 / seconds);
    EXPECT_EQ(hex.size(), 64u);
  }
}

} // namespace
