//===- HalfFloatTest.cpp - fp16 and bf16 conversions ------------*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Every 16-bit pattern converts to the fp32 value its bit fields give and
// back to itself (NaNs to a quiet NaN of the same sign); fp32 values —
// random bit patterns over the whole range, NaNs, ties and the overflow and
// underflow edges — round to the nearest value of the format with ties to
// even, checked against a search over the format's ordered finite values
// in double precision, computed from the bit fields.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/HalfFloat.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace spperm;

namespace {

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// A 16-bit format as the reference sees it: its ordered non-negative
/// finite values (bit patterns 0 … largest are increasing), computed from
/// the bit fields — not by the conversions under test — and where rounding
/// reaches infinity.
struct Format {
  float (*toFloat)(uint16_t);
  uint16_t (*fromFloat)(float);
  int fractionBits; // 10 (binary16) or 7 (bfloat16).
  int bias;         // 15 or 127.
  uint16_t largest;  // The largest finite pattern.
  uint16_t infinity; // The +Inf pattern.
  std::vector<double> values;

  Format(float (*to)(uint16_t), uint16_t (*from)(float), int fractionBits,
         int bias)
      : toFloat(to), fromFloat(from), fractionBits(fractionBits), bias(bias),
        largest(static_cast<uint16_t>((((2 * bias + 1) << fractionBits)) - 1)),
        infinity(static_cast<uint16_t>((2 * bias + 1) << fractionBits)) {
    for (uint32_t p = 0; p <= largest; ++p) {
      const uint32_t e = p >> fractionBits;
      const uint32_t m = p & ((1u << fractionBits) - 1);
      // Normal: (2^f + m) × 2^(e - bias - f); subnormal: m × 2^(1 - bias - f).
      values.push_back(
          e ? std::ldexp(static_cast<double>((1u << fractionBits) + m),
                         static_cast<int>(e) - bias - fractionBits)
            : std::ldexp(static_cast<double>(m), 1 - bias - fractionBits));
    }
  }

  /// The pattern `value` rounds to: the nearest of the ordered values
  /// (ties to the even pattern), Inf from halfway past the largest.
  uint16_t reference(float value) const {
    const double x = std::fabs(static_cast<double>(value));
    const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double top = values[largest];
    const double ulp = top - values[largest - 1];
    if (x >= top + ulp / 2)
      return sign | infinity;
    size_t hi = std::lower_bound(values.begin(), values.end(), x) -
                values.begin();
    if (hi == values.size())
      hi = values.size() - 1;
    size_t best = hi;
    if (hi > 0) {
      const double below = x - values[hi - 1], above = values[hi] - x;
      if (below < above || (below == above && (hi - 1) % 2 == 0))
        best = hi - 1;
    }
    return static_cast<uint16_t>(sign | best);
  }
};

const Format &half() {
  static const Format f(halfToFloat, floatToHalf, 10, 15);
  return f;
}

const Format &bfloat() {
  static const Format f(bfloat16ToFloat, floatToBFloat16, 7, 127);
  return f;
}

bool isNanPattern(uint16_t bits, uint16_t infinity) {
  return (bits & infinity) == infinity && (bits & ~(infinity | 0x8000)) != 0;
}

void checkRoundTrip(const Format &f, uint16_t quietBit) {
  ASSERT_EQ(f.largest, f.fractionBits == 10 ? 0x7bff : 0x7f7f);
  for (uint32_t p = 0; p <= 0xffff; ++p) {
    const auto bits = static_cast<uint16_t>(p);
    const float value = f.toFloat(bits);
    // The conversion to fp32 against the bit-field value (and its negation).
    if (uint32_t magnitude = p & 0x7fff; magnitude <= f.largest) {
      ASSERT_EQ(static_cast<double>(value),
                (p & 0x8000 ? -1.0 : 1.0) * f.values[magnitude])
          << std::hex << p;
    } else if (magnitude == f.infinity) {
      ASSERT_TRUE(std::isinf(value) && std::signbit(value) == (p >> 15))
          << std::hex << p;
    }
    const uint16_t back = f.fromFloat(value);
    if (isNanPattern(bits, f.infinity)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << p;
      ASSERT_TRUE(isNanPattern(back, f.infinity)) << std::hex << p;
      ASSERT_TRUE(back & quietBit) << "NaN not quiet: " << std::hex << back;
      ASSERT_EQ(back & 0x8000, bits & 0x8000) << std::hex << p;
    } else {
      ASSERT_EQ(back, bits) << std::hex << p << " -> " << value;
    }
  }
}

void checkRounding(const Format &f, uint64_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> anyBits;
  // One failure is enough: stop at the first.
  auto check = [&](float value) {
    if (::testing::Test::HasFailure())
      return;
    const uint16_t got = f.fromFloat(value);
    if (std::isnan(value)) {
      // Any NaN (payload only in the bits rounding drops, either sign): a
      // quiet NaN of the same sign.
      EXPECT_TRUE(isNanPattern(got, f.infinity) &&
                  (got >> 15) == (bitsOf(value) >> 31))
          << std::hex << bitsOf(value) << " -> " << got;
      EXPECT_TRUE(got & (1u << (f.fractionBits - 1)))
          << "NaN not quiet: " << std::hex << got;
      return;
    }
    EXPECT_EQ(got, f.reference(value))
        << "value " << value << " bits " << std::hex << bitsOf(value);
  };
  // Random fp32 patterns (every exponent, subnormals, Inf), and values
  // within the format's range (random magnitudes near its exponents).
  for (int i = 0; i < 200000; ++i)
    check(floatOf(anyBits(rng)));
  for (uint32_t payload : {1u, 0x1fffu, 0x2000u, 0x400000u, 0x7fffffu}) {
    check(floatOf(0x7f800000u | payload));
    check(floatOf(0xff800000u | payload));
  }
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const int e = static_cast<int>(rng() % 60) - 30;
    check(static_cast<float>(std::ldexp(unit(rng), e)));
  }
  // Halfway between neighbours (ties), and just off them.
  for (uint32_t p = 0; p < f.largest; ++p) {
    const double lo = f.values[p], hi = f.values[p + 1];
    const float mid = static_cast<float>((lo + hi) / 2);
    check(mid);
    check(-mid);
    check(std::nextafter(mid, 0.0f));
    check(std::nextafter(mid, std::numeric_limits<float>::infinity()));
  }
  // The overflow edge: halfway past the largest finite value.
  const double top = f.values[f.largest];
  const double edge = top + (top - f.values[f.largest - 1]) / 2;
  check(static_cast<float>(edge));
  check(std::nextafter(static_cast<float>(edge), 0.0f));
  check(std::numeric_limits<float>::max());
  check(-std::numeric_limits<float>::infinity());
}

TEST(HalfFloatTest, EveryHalfRoundTrips) { checkRoundTrip(half(), 0x0200); }

TEST(HalfFloatTest, EveryBFloat16RoundTrips) {
  checkRoundTrip(bfloat(), 0x0040);
}

TEST(HalfFloatTest, HalfRoundsToNearestEven) { checkRounding(half(), 1); }

TEST(HalfFloatTest, BFloat16RoundsToNearestEven) { checkRounding(bfloat(), 2); }

TEST(HalfFloatTest, KnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);        // Halfway past: Inf.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // Smallest.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // Tie to even 0.
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(floatOf(0x3f808000u)), 0x3f80); // Tie: even.
  EXPECT_EQ(floatToBFloat16(floatOf(0x3f818000u)), 0x3f82); // Tie: even.
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bfloat16ToFloat(0xc0a0), -5.0f);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(std::nanf("")))));
  EXPECT_TRUE(
      std::isnan(bfloat16ToFloat(floatToBFloat16(floatOf(0x7f800001u)))));
}

TEST(HalfFloatTest, RoundToValueType) {
  const float third = 1.0f / 3.0f;
  EXPECT_EQ(roundToValueType(third, ValueType::F32), third);
  EXPECT_EQ(roundToValueType(third, ValueType::F16), 0.333251953125f);
  EXPECT_EQ(roundToValueType(third, ValueType::BF16), 0.333984375f);
}

TEST(HalfFloatTest, ArraysNarrowAndWidenElementwise) {
  const std::vector<float> values = {1.0f / 3.0f, -2.0f, 65520.0f, 0.0f,
                                     std::ldexp(1.0f, -25), 1e-3f};
  for (ValueType t : {ValueType::F16, ValueType::BF16}) {
    const std::vector<uint16_t> bits = narrowArray(values, t);
    ASSERT_EQ(bits.size(), values.size());
    std::vector<float> wide(bits.size(), -1.0f);
    widenArray(bits.data(), bits.size(), t, wide.data());
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(bits[i], narrowToValueType(values[i], t)) << i;
      EXPECT_EQ(wide[i], roundToValueType(values[i], t)) << i;
    }
    std::vector<uint16_t> into(values.size());
    narrowArray(values.data(), values.size(), t, into.data());
    EXPECT_EQ(into, bits);
  }
  EXPECT_TRUE(narrowArray(std::vector<float>{}, ValueType::BF16).empty());
}

TEST(HalfFloatTest, Names) {
  for (ValueType t : {ValueType::F32, ValueType::F16, ValueType::BF16})
    EXPECT_EQ(parseValueType(valueTypeName(t)), t);
  EXPECT_EQ(parseValueType("f64"), std::nullopt);
  EXPECT_EQ(parseValueType(""), std::nullopt);
  EXPECT_EQ(valueTypeBytes(ValueType::F32), 4);
  EXPECT_EQ(valueTypeBytes(ValueType::BF16), 2);
}

} // namespace
