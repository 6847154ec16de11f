//===- HalfFloat.h - fp16 and bf16 values, as the GPU rounds them -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The 16-bit element types of spperm's matrices and dense operands
// (docs/Dialects/SpPerm.md, `!spperm.matrix`): IEEE binary16 (`f16`) and
// bfloat16 (`bf16`), stored as their bit patterns. Conversions from fp32
// round to nearest, ties to even, like `cvt.rn.f16.f32` and
// `cvt.rn.bf16.f32` on the GPU: finite values too large for the format
// become ±Inf, values below its smallest subnormal become ±0, subnormals are
// kept, and a NaN stays a NaN (quiet, sign kept). Conversions to fp32 are
// exact. The CPU executor and the float64 reference use these, so that they
// see the operands the kernels see.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_HALFFLOAT_H
#define SPPERM_SPARSE_HALFFLOAT_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace spperm {

/// The element type of a matrix's values or of B and C.
enum class ValueType : uint8_t { F32, F16, BF16 };

/// The names of the element types: `--dtype`, the IR's `f32`/`f16`/`bf16`.
namespace value_type_name {
inline constexpr std::string_view kF32 = "f32";
inline constexpr std::string_view kF16 = "f16";
inline constexpr std::string_view kBF16 = "bf16";
} // namespace value_type_name

/// The name of `type` (value_type_name).
std::string_view valueTypeName(ValueType type);

/// The element type named `name`, or nullopt.
std::optional<ValueType> parseValueType(std::string_view name);

/// Bytes one element of `type` takes: 4 or 2.
inline int64_t valueTypeBytes(ValueType type) {
  return type == ValueType::F32 ? 4 : 2;
}

/// `value` rounded to the nearest binary16, ties to even; the bit pattern.
uint16_t floatToHalf(float value);

/// The binary16 with bit pattern `bits`, exactly.
float halfToFloat(uint16_t bits);

/// `value` rounded to the nearest bfloat16, ties to even; the bit pattern.
uint16_t floatToBFloat16(float value);

/// The bfloat16 with bit pattern `bits`, exactly.
float bfloat16ToFloat(uint16_t bits);

/// `value` rounded to `type` and back: itself for F32.
float roundToValueType(float value, ValueType type);

} // namespace spperm

#endif // SPPERM_SPARSE_HALFFLOAT_H
