//===- Sha256.cpp - SHA-256 message digest ----------------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// SHA-256 as specified in FIPS 180-4 (section 6.2): 64-byte blocks,
// big-endian words, the 64 round constants of section 4.2.2. The package
// writer and reader use it for the checksums of manifest.json, data.bin, the
// kernels and the source matrix files, so it bounds how fast a large matrix
// compiles and a package loads: on x86 CPUs with the SHA extensions (CPUID
// leaf 7, EBX bit 29) the compression runs on them (sha256rnds2 does two
// rounds, sha256msg1/2 the message schedule), ~5x the portable code's rate;
// elsewhere the portable code of the standard runs.
//
//===----------------------------------------------------------------------===//

#include "Sha256.h"

#include "spperm/Sparse/Package.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SPPERM_SHA_EXTENSIONS 1
#include <cpuid.h>
#include <immintrin.h>
#endif

using namespace spperm;
using spperm::detail::Sha256;

namespace {

constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

inline uint32_t loadBigEndian32(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
         (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/// The portable compression of one block (FIPS 180-4, 6.2.2).
void compressPortable(uint32_t *state, const uint8_t *block) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t)
    w[t] = loadBigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + bigSigma1 + choose + kRoundConstants[t] + w[t];
    uint32_t bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = bigSigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

#ifdef SPPERM_SHA_EXTENSIONS
/// Whether the CPU has the SHA extensions and the SSSE3/SSE4.1 shuffles and
/// blends the state packing needs.
bool cpuHasShaExtensions() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return false;
  const bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return false;
  return ssse3 && sse41 && (b & (1u << 29));
}

/// The compression of `blocks` blocks on the SHA extensions. The state lives
/// in two registers in the order sha256rnds2 wants, ABEF and CDGH (lane 3
/// first); each group of four rounds adds four schedule words W[t..t+3] plus
/// their constants and runs sha256rnds2 twice. W[t] for t >= 16 comes from
/// the four previous groups: sha256msg1 adds sigma0(W[t-15]) to W[t-16],
/// the W[t-7] words are the previous two groups shifted by one word, and
/// sha256msg2 adds sigma1(W[t-2]).
__attribute__((target("sha,sse4.1,ssse3"))) void
compressShaExtensions(uint32_t *state, const uint8_t *data, size_t blocks) {
  const __m128i byteSwap =
      _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i *>(state));
  __m128i hgfe =
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(state + 4));
  // Lanes named from the highest: the loads give D C B A and H G F E.
  dcba = _mm_shuffle_epi32(dcba, 0xB1);             // C D A B
  hgfe = _mm_shuffle_epi32(hgfe, 0x1B);             // E F G H
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);    // A B E F
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0); // C D G H
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abefStart = abef, cdghStart = cdgh;
    __m128i w[4];
    for (int group = 0; group < 16; ++group) {
      __m128i words;
      if (group < 4) {
        words = _mm_shuffle_epi8(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(data) + group),
            byteSwap);
      } else {
        const __m128i w16 = w[group & 3], w12 = w[(group + 1) & 3];
        const __m128i w8 = w[(group + 2) & 3], w4 = w[(group + 3) & 3];
        words = _mm_sha256msg1_epu32(w16, w12);
        words = _mm_add_epi32(words, _mm_alignr_epi8(w4, w8, 4));
        words = _mm_sha256msg2_epu32(words, w4);
      }
      w[group & 3] = words;
      __m128i wk = _mm_add_epi32(
          words, _mm_loadu_si128(reinterpret_cast<const __m128i *>(
                     kRoundConstants + 4 * group)));
      // Two rounds make the old A B E F the new C D G H: after the second
      // pair the registers hold A B E F and C D G H again.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
    }
    abef = _mm_add_epi32(abef, abefStart);
    cdgh = _mm_add_epi32(cdgh, cdghStart);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B); // F E B A
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1); // D C H G
  _mm_storeu_si128(reinterpret_cast<__m128i *>(state),
                   _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i *>(state + 4),
                   _mm_alignr_epi8(dchg, feba, 8));
}
#endif

/// Set by tests to compare the portable code with the extensions.
std::atomic<bool> portableOnly{false};

bool extensionsAvailable() {
#ifdef SPPERM_SHA_EXTENSIONS
  static const bool available = cpuHasShaExtensions();
  return available;
#else
  return false;
#endif
}

} // namespace

bool Sha256::usesShaExtensions() {
  return extensionsAvailable() && !portableOnly.load();
}

bool Sha256::setPortableOnly(bool portable) {
  return portableOnly.exchange(portable);
}

void Sha256::compress(const uint8_t *data, size_t blocks) {
#ifdef SPPERM_SHA_EXTENSIONS
  if (usesShaExtensions()) {
    compressShaExtensions(state.data(), data, blocks);
    return;
  }
#endif
  for (; blocks > 0; --blocks, data += 64)
    compressPortable(state.data(), data);
}

Sha256::Sha256()
    : state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      buffer{} {}

void Sha256::update(const void *data, size_t size) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  totalBytes += size;
  if (buffered > 0) {
    size_t take = std::min(size, buffer.size() - buffered);
    std::memcpy(buffer.data() + buffered, p, take);
    buffered += take;
    p += take;
    size -= take;
    if (buffered < buffer.size())
      return;
    compress(buffer.data(), 1);
    buffered = 0;
  }
  const size_t blocks = size / 64;
  compress(p, blocks);
  p += 64 * blocks;
  size -= 64 * blocks;
  if (size > 0) {
    std::memcpy(buffer.data(), p, size);
    buffered = size;
  }
}

std::string Sha256::hexDigest() {
  // Padding: a 1 bit, zeros up to 56 bytes mod 64, the bit length (64-bit
  // big-endian).
  const uint64_t bitLength = totalBytes * 8;
  uint8_t pad[72] = {0x80};
  size_t padSize = (buffered < 56 ? 56 : 120) - buffered;
  for (int i = 0; i < 8; ++i)
    pad[padSize + i] = static_cast<uint8_t>(bitLength >> (56 - 8 * i));
  update(pad, padSize + 8);

  static const char kHex[] = "0123456789abcdef";
  std::string hex(64, '0');
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) {
      uint8_t byte = static_cast<uint8_t>(state[i] >> (24 - 8 * j));
      hex[8 * i + 2 * j] = kHex[byte >> 4];
      hex[8 * i + 2 * j + 1] = kHex[byte & 15];
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
