//===- KernelBuilder.h - Helpers for writing gpu.func bodies ----*- C++ -*-===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the SpPermToGPU library: a thin layer over ImplicitLocOpBuilder
// that keeps the kernel generators readable (index arithmetic, loads and
// stores of 1-D memrefs, structured control flow with results, warp
// shuffles and atomics). Index values are 64-bit on the device
// (convert-gpu-to-nvvm{index-bitwidth=64}).
//
//===----------------------------------------------------------------------===//

#ifndef SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELBUILDER_H
#define SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cstdint>
#include <functional>

namespace mlir::spperm::codegen {

/// Lanes of a warp.
constexpr int64_t kWarpSize = 32;

/// Builds the body of one kernel at the builder's insertion point.
class KernelBuilder {
public:
  /// `vectorReductions`: atomicAddF32 adds a 2- or 4-wide vector with one
  /// `red.global.add.v{2,4}.f32` (sm_90 and later, PTX ISA 8.1) instead of
  /// one scalar atomic per element.
  /// `gridDependencies`: launchDependents and waitForPrerequisites emit
  /// `griddepcontrol` (sm_90 and later); without it they emit nothing.
  explicit KernelBuilder(ImplicitLocOpBuilder &b,
                         bool vectorReductions = false,
                         bool gridDependencies = false)
      : b(b), vectorReductions(vectorReductions),
        gridDependencies(gridDependencies) {}

  ImplicitLocOpBuilder &builder() { return b; }

  // Constants.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value i32(int32_t v) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), v);
  }
  Value f32(float v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(), APFloat(v));
  }
  /// A zero of `type` (f32 or vector<Vxf32>).
  Value zero(Type type) {
    return arith::ConstantOp::create(b, type, b.getZeroAttr(type));
  }
  /// A constant of `type` (f32, or a vector of f32 with every element
  /// `v`).
  Value splatF32(Type type, float v) {
    auto vt = dyn_cast<VectorType>(type);
    if (!vt)
      return f32(v);
    return arith::ConstantOp::create(
        b, vt, DenseElementsAttr::get(vt, b.getF32FloatAttr(v)));
  }
  /// A vector of i32 (`type`) with every element `v` (its bits).
  Value splatI32(VectorType type, uint32_t v) {
    return arith::ConstantOp::create(
        b, type,
        DenseElementsAttr::get(
            type, b.getI32IntegerAttr(static_cast<int32_t>(v))));
  }

  // Index arithmetic (operands of equal type).
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, idx(y)); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, idx(y)); }
  /// x / y and x % y for non-negative x; shifts and masks for powers of 2.
  Value div(Value x, int64_t y);
  Value rem(Value x, int64_t y);
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  }
  Value lt(Value x, int64_t y) { return lt(x, idx(y)); }
  Value ge(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::sge, x, y);
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, b.getIndexType(), v);
  }
  Value toI32(Value v) {
    return arith::IndexCastOp::create(b, b.getI32Type(), v);
  }

  // Float arithmetic (f32 or vectors of it).
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  /// acc + a * x, with `a` a scalar broadcast when x is a vector.
  Value fma(Value a, Value x, Value acc);

  // Threads.
  /// A CTA-wide barrier (every thread must reach it).
  void barrier() { gpu::BarrierOp::create(b); }
  Value threadIdX() { return gpu::ThreadIdOp::create(b, gpu::Dimension::x); }
  Value blockIdX() { return gpu::BlockIdOp::create(b, gpu::Dimension::x); }

  // Grid dependencies (with the builder's gridDependencies; else nothing).
  /// Lets the grid launched as this kernel's programmatic dependent start
  /// once every CTA has executed this (or exited): a no-op when there is
  /// none.
  void launchDependents() {
    if (gridDependencies)
      NVVM::GriddepcontrolOp::create(
          b, NVVM::GridDepActionKind::launch_dependents);
  }
  /// Waits until the grids this kernel depends on have completed and their
  /// memory operations are visible: returns at once when the kernel was
  /// launched in plain stream order.
  void waitForPrerequisites() {
    if (gridDependencies)
      NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
  }

  // Memory (1-D memrefs).
  Value load(Value memref, Value i) { return memref::LoadOp::create(b, memref, i); }
  /// Loads an integer element, zero-extended to i32 when narrower (the
  /// 16-bit column indices, always unsigned); i32 and i64 as they are.
  Value loadInteger(Value memref, Value i) {
    Value v = load(memref, i);
    if (v.getType().getIntOrFloatBitWidth() < 32)
      v = arith::ExtUIOp::create(b, b.getI32Type(), v);
    return v;
  }
  /// Loads an integer element and casts it to index (narrower than 32 bits
  /// zero-extended first, as loadInteger does).
  Value loadIndex(Value memref, Value i) { return toIndex(loadInteger(memref, i)); }
  /// Loads `width` consecutive elements from `memref[i]` (one vector load
  /// aligned to its size, or a scalar when width is 1) as f32 (vector<width
  /// x f32>): f16 and bf16 memrefs are widened exactly.
  Value loadF32(Value memref, Value i, int64_t width);
  /// loadF32 of `width` elements of row `row` of a row-major matrix with
  /// `rowLength` elements a row, held in `memref`, from column `col`: the
  /// address is the column's (hoisted out of loops over rows) plus one
  /// unsigned 32 x 32 -> 64-bit product of the row and the row's bytes,
  /// which ptxas folds with the addition into one IMAD.WIDE.U32, as it
  /// does for a row length known at compile time. `row` and `rowLength`
  /// must be below 2^31 and `rowLength` times the element's bytes below
  /// 2^32 (maxRunTimeK, RowPlan.h).
  Value loadRowF32(Value memref, Value row, Value rowLength, Value col,
                   int64_t width);
  /// Stores `value` (f32 or vector) at memref[i], aligned like loadF32; into
  /// an f16 or bf16 memref rounded once to nearest even.
  void storeF32(Value value, Value memref, Value i);
  /// A 1-D vector of an even number of bf16 as f32, exactly, by integer
  /// operations on each pair's 32-bit word: the low element is the word
  /// shifted left by 16, the high one the word with its low half cleared (a
  /// bf16 is the top half of the f32 of the same value). One instruction an
  /// element, where cvt.f32.bf16 of a high half takes two (docs/Kernels.md,
  /// "Half precision").
  Value widenBF16Pairs(Value pairs);
  /// `loaded` (`width` elements of `element` as loaded, a scalar when width
  /// is 1) as f32, as loadF32 returns it.
  Value widenToF32(Value loaded, Type element, int64_t width);
  /// Atomically adds `value` (f32 or vector) at memref[i], a global f32
  /// memref, subnormal operands and results kept (the hardware's add
  /// flushes them; docs/Kernels.md, "Subnormals"): one vector reduction for
  /// 2 or 4 elements (one per 4 for a multiple of 4) when the builder has
  /// them, else element by element.
  void atomicAddF32(Value value, Value memref, Value i);
  /// Atomically adds `v` to the i32 at memref[i] and returns the old value.
  Value atomicAddI32(Value memref, Value i, Value v);

  /// x * y (i64) for x and y in [0, 2^32) (index or integer values, taken
  /// as their low 32 bits): one unsigned 32 x 32 -> 64-bit multiply
  /// (`mul.wide.u32`, inline PTX) instead of a 64-bit one, which the
  /// backend emits for a factor read at run time.
  Value mulWide(Value x, Value y);

  // Warp shuffles of f32 or i32 values (shuffleXor also vectors of f32,
  // element by element) inside aligned segments of `width` lanes, with
  // `mask` the participating lanes (i32); shuffleIdx's source lane is an
  // index or an i32.
  Value shuffleIdx(Value v, Value srcLane, int64_t width, Value mask);
  Value shuffleXor(Value v, int64_t offset, int64_t width, Value mask);
  /// The lanes of the `width`-lane segment that contains lane `laneInWarp`
  /// (index), as an i32 mask.
  Value segmentMask(Value laneInWarp, int64_t width);
  /// The number of the warp's lanes for which `pred` (i1) holds, as an
  /// index: a ballot of the whole warp and its population count.
  Value countLanes(Value pred);

  // Structured control flow. Bodies return the values they yield.
  using Body = std::function<SmallVector<Value>(Value iv, ValueRange args)>;
  /// scf.for lb..ub step `step` carrying `inits`.
  SmallVector<Value> forLoop(Value lb, Value ub, Value step, ValueRange inits,
                             const Body &body);
  /// scf.if with results of `types`.
  SmallVector<Value>
  ifThenElse(Value cond, TypeRange types,
             const std::function<SmallVector<Value>()> &thenBody,
             const std::function<SmallVector<Value>()> &elseBody);
  /// scf.if without results.
  void ifThen(Value cond, const std::function<void()> &thenBody);
  /// scf.if without results, with an else branch.
  void ifThenElse(Value cond, const std::function<void()> &thenBody,
                  const std::function<void()> &elseBody);
  /// A value that is `load()` when `cond` holds and `otherwise` else (the
  /// load is not executed when cond is false).
  Value guarded(Value cond, const std::function<Value()> &load,
                Value otherwise);

private:
  /// `red.global.add.v2/v4.f32` of `value` at memref[i] (inline PTX).
  void vectorReduceAddF32(Value value, Value memref, Value i);
  /// atomicAddF32 of a 2- or 4-element vector: one vector reduction when
  /// no element could lose a subnormal to its flush, else element by
  /// element.
  void atomicAddF32Vector(Value value, Value memref, Value i);
  /// Whether the f32 `value` (or each element of a vector of them: a vector
  /// of i1) is at least 2^-102 in magnitude, NaN or infinite: the
  /// hardware's atomic add cannot lose a subnormal that matters to it.
  Value largeF32(Value value);
  /// largeF32 of every element of the f32 vector `value` (i1).
  Value allLargeF32(Value value);
  /// atomicAddF32Element of each element of `value` (f32 or a vector).
  void atomicAddF32Elements(Value value, Value memref, Value i);
  /// Atomically adds the f32 `x` at memref[i], subnormals kept: the
  /// hardware's atomic add where it cannot flush one that matters, a
  /// compare-and-swap loop of a plain add where it could, nothing for a
  /// zero (docs/Kernels.md, "Subnormals").
  void atomicAddF32Element(Value x, Value memref, Value i);
  /// memref[i] += x by a compare-and-swap loop (inline PTX).
  void compareAndSwapAddF32(Value x, Value memref, Value i);
  /// The address of the f32 memref[i] as a global (address space 1)
  /// pointer.
  Value globalF32Pointer(Value memref, Value i);

  ImplicitLocOpBuilder &b;
  const bool vectorReductions;
  const bool gridDependencies;
};

} // namespace mlir::spperm::codegen

#endif // SPPERM_CODEGEN_LIB_SPPERMTOGPU_KERNELBUILDER_H
