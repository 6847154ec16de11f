//===- HalfFloat.h - fp16 and bf16 values, as the GPU rounds them -*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The 16-bit element types of spperm's matrices and dense operands
// (docs/Dialects/SpPerm.md, `!spperm.matrix`): IEEE binary16 (`f16`) and
// bfloat16 (`bf16`), stored as their bit patterns. Conversions from fp32
// round to nearest, ties to even, as `cvt.rn.f16.f32` and
// `cvt.rn.bf16.f32` round finite values on the GPU: from halfway past the
// largest finite value up they give ±Inf, up to half the smallest
// subnormal they give ±0, and subnormals are kept. A NaN gives a quiet NaN
// of the same sign (the GPU may give another NaN pattern: compare NaNs as
// NaNs, not by their bits). Conversions to fp32 are exact. The CPU executor
// uses these, so that it sees the operands the kernels see.
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_SPARSE_HALFFLOAT_H
#define SPPERM_SPARSE_HALFFLOAT_H

#include "spperm/Sparse/Names.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace spperm {

/// The element type of a matrix's values or of B and C.
enum class ValueType : uint8_t { F32, F16, BF16 };

/// The name of `type` (value_type_name in Names.h).
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

/// `value` rounded to the 16-bit `type` (F16 or BF16); the bit pattern.
uint16_t narrowToValueType(float value, ValueType type);

/// The value of the 16-bit `type` (F16 or BF16) with bit pattern `bits`.
float widenFromValueType(uint16_t bits, ValueType type);

/// `value` rounded to `type` and back: itself for F32.
float roundToValueType(float value, ValueType type);

/// `count` floats rounded to the 16-bit `type` (narrowToValueType of each)
/// into `out`.
void narrowArray(const float *values, size_t count, ValueType type,
                 uint16_t *out);

/// `values` rounded to the 16-bit `type`: their bit patterns.
std::vector<uint16_t> narrowArray(const std::vector<float> &values,
                                  ValueType type);

/// `count` bit patterns of the 16-bit `type` widened (widenFromValueType of
/// each) into `out`.
void widenArray(const uint16_t *bits, size_t count, ValueType type,
                float *out);

} // namespace spperm

#endif // SPPERM_SPARSE_HALFFLOAT_H
