//===- HalfFloat.cpp - fp16 and bf16 values, as the GPU rounds them -------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/HalfFloat.h"

#include <cstring>
#include <utility>

using namespace spperm;

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// `magnitude` (a non-negative integer) shifted right by `shift` bits,
/// rounded to nearest, ties to even.
uint32_t shiftRoundEven(uint32_t magnitude, int shift) {
  if (shift <= 0)
    return magnitude;
  if (shift >= 32)
    return 0;
  const uint32_t kept = magnitude >> shift;
  const uint32_t rest = magnitude & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return kept + (rest > half || (rest == half && (kept & 1)) ? 1 : 0);
}

} // namespace

/// Every element type with its name (value_type_name, Names.h).
static constexpr std::pair<ValueType, std::string_view> kValueTypeNames[] = {
    {ValueType::F32, value_type_name::kF32},
    {ValueType::F16, value_type_name::kF16},
    {ValueType::BF16, value_type_name::kBF16},
};

std::string_view spperm::valueTypeName(ValueType type) {
  for (const auto &[t, name] : kValueTypeNames)
    if (t == type)
      return name;
  return value_type_name::kF32;
}

std::optional<ValueType> spperm::parseValueType(std::string_view name) {
  for (const auto &[t, n] : kValueTypeNames)
    if (n == name)
      return t;
  return std::nullopt;
}

uint16_t spperm::floatToHalf(float value) {
  const uint32_t bits = bitsOf(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponent = (bits >> 23) & 0xffu;
  const uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu) // Inf, or NaN made quiet (its top payload bits kept).
    return mantissa == 0 ? static_cast<uint16_t>(sign | 0x7c00u)
                         : static_cast<uint16_t>(sign | 0x7e00u |
                                                 (mantissa >> 13));
  // The value is 1.mantissa × 2^(exponent - 127) (or 0.mantissa × 2^-126).
  // binary16 has 10 fraction bits and exponents -14 … 15.
  const int unbiased = static_cast<int>(exponent) - 127;
  if (unbiased > 15)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (unbiased >= -14) {
    // Normal: round the 23-bit fraction to 10 bits; a carry out of the
    // fraction moves to the exponent (and may reach Inf, 0x7c00).
    const uint32_t significand = (1u << 23) | mantissa;
    const uint32_t rounded = shiftRoundEven(significand, 13);
    const uint32_t half =
        (static_cast<uint32_t>(unbiased + 15) << 10) + (rounded - (1u << 10));
    return static_cast<uint16_t>(sign | half);
  }
  // Subnormal in binary16 (units of 2^-24), or zero after rounding. fp32
  // subnormals (exponent 0) are far below 2^-25 and round to zero.
  if (exponent == 0)
    return sign;
  const uint32_t significand = (1u << 23) | mantissa; // × 2^(unbiased - 23)
  // In units of 2^-24: significand × 2^(unbiased - 23 + 24).
  const int shift = -(unbiased + 1);
  return static_cast<uint16_t>(sign | shiftRoundEven(significand, shift));
}

float spperm::halfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu)
    return floatOf(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return floatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0)
    return floatOf(sign);
  // Subnormal: normalize into fp32's wider exponent range.
  int e = -14;
  while (!(mantissa & 0x400u)) {
    mantissa <<= 1;
    --e;
  }
  return floatOf(sign | (static_cast<uint32_t>(e + 127) << 23) |
                 ((mantissa & 0x3ffu) << 13));
}

uint16_t spperm::floatToBFloat16(float value) {
  const uint32_t bits = bitsOf(value);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu))
    return static_cast<uint16_t>((bits >> 16) | 0x40u); // Quiet NaN.
  // bfloat16 is fp32's top half: round the low 16 bits away, ties to even.
  // A carry propagates into the exponent, reaching Inf past the largest.
  const uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lsb) >> 16);
}

float spperm::bfloat16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t spperm::narrowToValueType(float value, ValueType type) {
  return type == ValueType::F16 ? floatToHalf(value) : floatToBFloat16(value);
}

float spperm::widenFromValueType(uint16_t bits, ValueType type) {
  return type == ValueType::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

float spperm::roundToValueType(float value, ValueType type) {
  if (type == ValueType::F32)
    return value;
  return widenFromValueType(narrowToValueType(value, type), type);
}

void spperm::narrowArray(const float *values, size_t count, ValueType type,
                         uint16_t *out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = narrowToValueType(values[i], type);
}

std::vector<uint16_t> spperm::narrowArray(const std::vector<float> &values,
                                          ValueType type) {
  std::vector<uint16_t> bits(values.size());
  narrowArray(values.data(), values.size(), type, bits.data());
  return bits;
}

void spperm::widenArray(const uint16_t *bits, size_t count, ValueType type,
                        float *out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = widenFromValueType(bits[i], type);
}
