//===- KernelBuilder.cpp - Helpers for writing gpu.func bodies ------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

Value KernelBuilder::div(Value x, int64_t y) {
  if (y == 1)
    return x;
  if (llvm::isPowerOf2_64(y))
    return arith::ShRUIOp::create(b, x, idx(llvm::Log2_64(y)));
  return arith::DivUIOp::create(b, x, idx(y));
}

Value KernelBuilder::rem(Value x, int64_t y) {
  if (y == 1)
    return idx(0);
  if (llvm::isPowerOf2_64(y))
    return arith::AndIOp::create(b, x, idx(y - 1));
  return arith::RemUIOp::create(b, x, idx(y));
}

Value KernelBuilder::fma(Value a, Value x, Value acc) {
  if (auto vt = dyn_cast<VectorType>(x.getType())) {
    Value splat = vector::BroadcastOp::create(b, vt, a);
    return vector::FMAOp::create(b, splat, x, acc);
  }
  // Scalars: a contractable multiply-add (math.fma would become a libdevice
  // call); the NVPTX backend emits fma.rn.f32.
  auto contract = arith::FastMathFlagsAttr::get(b.getContext(),
                                                arith::FastMathFlags::contract);
  Value prod = arith::MulFOp::create(b, a, x, contract);
  return arith::AddFOp::create(b, prod, acc, contract);
}

Value KernelBuilder::loadF32(Value memref, Value i, int64_t width) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  const int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  Value loaded;
  if (width == 1) {
    loaded = load(memref, i);
  } else {
    auto vt = VectorType::get({width}, element);
    loaded = vector::LoadOp::create(b, vt, memref, ValueRange{i},
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(bytes * width));
  }
  return widenToF32(loaded, element, width);
}

Value KernelBuilder::loadRowF32(Value memref, Value row, Value rowLength,
                                Value col, int64_t width) {
  MLIRContext *ctx = b.getContext();
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  const int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  // The column's address in the global address space (the memref's
  // aligned base, its offset is 0), then the row's bytes past it.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value column =
      arith::IndexCastOp::create(b, b.getI64Type(), add(base, mul(col, bytes)));
  auto global = LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1);
  Value start = LLVM::AddrSpaceCastOp::create(
      b, global,
      LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx), column));
  Value length = toI32(rowLength);
  Value rowBytes =
      arith::MulIOp::create(b, length, i32(static_cast<int32_t>(bytes)));
  Value at = LLVM::GEPOp::create(b, global, b.getI8Type(), start,
                                 ValueRange{mulWide(row, rowBytes)},
                                 LLVM::GEPNoWrapFlags::inbounds);
  Type type = width == 1 ? element : VectorType::get({width}, element);
  Value loaded =
      LLVM::LoadOp::create(b, type, at, static_cast<unsigned>(bytes * width));
  return widenToF32(loaded, element, width);
}

Value KernelBuilder::widenToF32(Value loaded, Type element, int64_t width) {
  if (element.isF32())
    return loaded;
  if (element.isBF16() && width % 2 == 0)
    return widenBF16Pairs(loaded);
  // 16-bit operands: widened exactly (cvt.f32.f16 / cvt.f32.bf16).
  Type wide = width == 1 ? Type(b.getF32Type())
                         : Type(VectorType::get({width}, b.getF32Type()));
  return arith::ExtFOp::create(b, wide, loaded);
}

Value KernelBuilder::widenBF16Pairs(Value pairs) {
  const int64_t n = cast<VectorType>(pairs.getType()).getNumElements();
  assert(n % 2 == 0 && "bf16 elements come in pairs");
  auto words = VectorType::get({n / 2}, b.getI32Type());
  auto floats = VectorType::get({n / 2}, b.getF32Type());
  Value w = vector::BitCastOp::create(b, words, pairs);
  Value low = arith::BitcastOp::create(
      b, floats, arith::ShLIOp::create(b, w, splatI32(words, 16)).getResult());
  Value high = arith::BitcastOp::create(
      b, floats,
      arith::AndIOp::create(b, w, splatI32(words, 0xFFFF0000u)).getResult());
  // Element 2j is pair j's low half, element 2j + 1 its high half.
  SmallVector<int64_t> interleave;
  for (int64_t j = 0; j < n / 2; ++j)
    interleave.append({j, n / 2 + j});
  return vector::ShuffleOp::create(b, low, high, interleave);
}

void KernelBuilder::storeF32(Value value, Value memref, Value i) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  auto vt = dyn_cast<VectorType>(value.getType());
  if (!element.isF32()) {
    // 16-bit results: rounded once, to nearest even (cvt.rn).
    Type narrow = vt ? Type(VectorType::get(vt.getShape(), element)) : element;
    value = arith::TruncFOp::create(b, narrow, value);
  }
  if (vt) {
    const int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    vector::StoreOp::create(b, value, memref, ValueRange{i},
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(bytes * vt.getNumElements()));
    return;
  }
  memref::StoreOp::create(b, value, memref, ValueRange{i});
}

void KernelBuilder::atomicAddF32(Value value, Value memref, Value i) {
  auto vt = dyn_cast<VectorType>(value.getType());
  int64_t n = vt ? vt.getNumElements() : 1;
  if (vectorReductions && (n == 2 || n == 4))
    return atomicAddF32Vector(value, memref, i);
  // Wider vectors (8 fp32 sums of 16-bit operands): reductions of 4. The
  // quarters are shuffles, which lower to LLVM as they are (the tests of
  // largeF32 keep them alive, and vector.extract_strided_slice has no
  // lowering of its own).
  if (vectorReductions && n % 4 == 0) {
    for (int64_t e = 0; e < n; e += 4)
      atomicAddF32Vector(
          vector::ShuffleOp::create(b, value, value,
                                    ArrayRef<int64_t>{e, e + 1, e + 2, e + 3}),
          memref, add(i, e));
    return;
  }
  if (!vt)
    return atomicAddF32Element(value, memref, i);
  // One test for the whole vector: the hardware's adds one after the
  // other when every element is large (the common case, one branch), else
  // each element as atomicAddF32Element chooses.
  ifThenElse(
      allLargeF32(value),
      [&] {
        for (int64_t e = 0; e < n; ++e)
          memref::AtomicRMWOp::create(
              b, arith::AtomicRMWKind::addf,
              vector::ExtractOp::create(b, value, ArrayRef<int64_t>{e}), memref,
              ValueRange{add(i, e)});
      },
      [&] { atomicAddF32Elements(value, memref, i); });
}

void KernelBuilder::atomicAddF32Elements(Value value, Value memref, Value i) {
  auto vt = dyn_cast<VectorType>(value.getType());
  int64_t n = vt ? vt.getNumElements() : 1;
  for (int64_t e = 0; e < n; ++e) {
    Value elem =
        vt ? vector::ExtractOp::create(b, value, ArrayRef<int64_t>{e})
                 .getResult()
           : value;
    atomicAddF32Element(elem, memref, add(i, e));
  }
}

/// The magnitude below which an fp32 atomic add on global memory, which
/// flushes subnormal operands and results, could lose what matters: a
/// subnormal addend or partial sum in C meets an operand at least 2^24
/// times larger only below half its ulp, and rounds away anyway.
static constexpr float kFlushMatters = 0x1p-102f;

Value KernelBuilder::largeF32(Value value) {
  Type type = value.getType();
  // Not (-kFlushMatters < x < kFlushMatters): the unordered predicates
  // hold for NaN, which is large.
  Value above = arith::CmpFOp::create(b, arith::CmpFPredicate::UGE, value,
                                      splatF32(type, kFlushMatters));
  Value below = arith::CmpFOp::create(b, arith::CmpFPredicate::ULE, value,
                                      splatF32(type, -kFlushMatters));
  return arith::OrIOp::create(b, above, below);
}

Value KernelBuilder::allLargeF32(Value value) {
  auto vt = cast<VectorType>(value.getType());
  Value large = largeF32(value);
  Value all = vector::ExtractOp::create(b, large, ArrayRef<int64_t>{0});
  for (int64_t e = 1; e < vt.getNumElements(); ++e)
    all = andI(all, vector::ExtractOp::create(b, large, ArrayRef<int64_t>{e}));
  return all;
}

void KernelBuilder::atomicAddF32Vector(Value value, Value memref, Value i) {
  // The vector reduction flushes as the scalar add does: it adds the vector
  // when every element is a large one, else element by element.
  ifThenElse(
      allLargeF32(value), [&] { vectorReduceAddF32(value, memref, i); },
      [&] { atomicAddF32Elements(value, memref, i); });
}

void KernelBuilder::atomicAddF32Element(Value x, Value memref, Value i) {
  // The fp32 atomic add on global memory flushes subnormal operands and
  // results to zero (PTX ISA, atom: "without .noftz"; .noftz for f32 needs
  // PTX ISA 9.4). Adds below kFlushMatters go through a compare-and-swap
  // loop of a plain add; a zero adds nothing (C starts at +0, and x + 0 is
  // x for every x that is not -0).
  ifThenElse(
      largeF32(x),
      [&] {
        memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addf, x, memref,
                                    ValueRange{i});
      },
      [&] {
        Value nonzero =
            arith::CmpFOp::create(b, arith::CmpFPredicate::ONE, x, f32(0.0f));
        ifThen(nonzero, [&] { compareAndSwapAddF32(x, memref, i); });
      });
}

Value KernelBuilder::globalF32Pointer(Value memref, Value i) {
  MLIRContext *ctx = b.getContext();
  // The memref's aligned base (its offset is 0) plus 4 bytes an element,
  // cast from the generic address space (cvta.to.global).
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value address = arith::IndexCastOp::create(b, b.getI64Type(),
                                             add(base, mul(i, int64_t{4})));
  Value generic =
      LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx), address);
  return LLVM::AddrSpaceCastOp::create(
      b, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1), generic);
}

void KernelBuilder::compareAndSwapAddF32(Value x, Value memref, Value i) {
  MLIRContext *ctx = b.getContext();
  Value global = globalF32Pointer(memref, i);
  // Labels made unique per emitted copy (${:uid}); the registers are local
  // to the braces. add.rn.f32 without .ftz keeps subnormals.
  static constexpr const char *kLoop =
      "{\n"
      ".reg .pred %spperm_retry;\n"
      ".reg .b32 %spperm_old, %spperm_seen, %spperm_sum;\n"
      "ld.relaxed.gpu.global.b32 %spperm_old, [$0];\n"
      "spperm_cas_${:uid}:\n"
      "mov.b32 %spperm_seen, %spperm_old;\n"
      "add.rn.f32 %spperm_sum, %spperm_seen, $1;\n"
      "atom.relaxed.gpu.global.cas.b32 %spperm_old, [$0], %spperm_seen, "
      "%spperm_sum;\n"
      "setp.ne.b32 %spperm_retry, %spperm_old, %spperm_seen;\n"
      "@%spperm_retry bra spperm_cas_${:uid};\n"
      "}";
  LLVM::InlineAsmOp::create(
      b, TypeRange{}, ValueRange{global, x}, kLoop, "l,f,~{memory}",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

void KernelBuilder::vectorReduceAddF32(Value value, Value memref, Value i) {
  MLIRContext *ctx = b.getContext();
  Value global = globalF32Pointer(memref, i);
  int64_t n = cast<VectorType>(value.getType()).getNumElements();
  SmallVector<Value> operands = {global};
  std::string asmString =
      "red.global.add.v" + std::to_string(n) + ".f32 [$0], {";
  std::string constraints = "l";
  for (int64_t e = 0; e < n; ++e) {
    operands.push_back(
        vector::ExtractOp::create(b, value, ArrayRef<int64_t>{e}));
    asmString += (e ? ", $" : "$") + std::to_string(e + 1);
    constraints += ",f";
  }
  asmString += "};";
  constraints += ",~{memory}";
  LLVM::InlineAsmOp::create(
      b, TypeRange{}, operands, asmString, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

Value KernelBuilder::mulWide(Value x, Value y) {
  MLIRContext *ctx = b.getContext();
  auto as32 = [&](Value v) { return v.getType().isInteger(32) ? v : toI32(v); };
  auto op = LLVM::InlineAsmOp::create(
      b, TypeRange{b.getI64Type()}, ValueRange{as32(x), as32(y)},
      "mul.wide.u32 $0, $1, $2;", "=l,r,r",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return op.getResult(0);
}

Value KernelBuilder::atomicAddI32(Value memref, Value i, Value v) {
  return memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, v, memref,
                                     ValueRange{i});
}

static Value clampFor(KernelBuilder &kb, int64_t width) {
  return kb.i32(static_cast<int32_t>(((kWarpSize - width) << 8) | 0x1f));
}

Value KernelBuilder::shuffleIdx(Value v, Value srcLane, int64_t width,
                                Value mask) {
  Value lane32 = srcLane.getType().isInteger(32) ? srcLane : toI32(srcLane);
  return NVVM::ShflOp::create(b, v.getType(), mask, v, lane32,
                              clampFor(*this, width), NVVM::ShflKind::idx,
                              UnitAttr());
}

Value KernelBuilder::shuffleXor(Value v, int64_t offset, int64_t width,
                                Value mask) {
  if (auto vt = dyn_cast<VectorType>(v.getType())) {
    Value out = v;
    for (int64_t e = 0; e < vt.getNumElements(); ++e) {
      Value elem = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{e});
      out = vector::InsertOp::create(b, shuffleXor(elem, offset, width, mask),
                                     out, ArrayRef<int64_t>{e});
    }
    return out;
  }
  return NVVM::ShflOp::create(b, v.getType(), mask, v,
                              i32(static_cast<int32_t>(offset)),
                              clampFor(*this, width), NVVM::ShflKind::bfly,
                              UnitAttr());
}

Value KernelBuilder::segmentMask(Value laneInWarp, int64_t width) {
  if (width >= kWarpSize)
    return i32(-1);
  Value first = toI32(sub(laneInWarp, rem(laneInWarp, width)));
  Value bits = i32(static_cast<int32_t>((uint64_t(1) << width) - 1));
  return arith::ShLIOp::create(b, bits, first);
}

Value KernelBuilder::countLanes(Value pred) {
  Value ballot = NVVM::VoteSyncOp::create(b, b.getI32Type(), i32(-1), pred,
                                          NVVM::VoteSyncKind::ballot);
  return toIndex(LLVM::CtPopOp::create(b, b.getI32Type(), ballot));
}

SmallVector<Value> KernelBuilder::forLoop(Value lb, Value ub, Value step,
                                          ValueRange inits, const Body &body) {
  auto loop = scf::ForOp::create(b, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(b);
  // Without loop-carried values the builder adds a terminator; ours
  // replaces it.
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> results =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  scf::YieldOp::create(b, results);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value>
KernelBuilder::ifThenElse(Value cond, TypeRange types,
                          const std::function<SmallVector<Value>()> &thenBody,
                          const std::function<SmallVector<Value>()> &elseBody) {
  assert(!types.empty() && "use ifThen for an scf.if without results");
  auto op = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(op.thenBlock());
  scf::YieldOp::create(b, thenBody());
  b.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(b, elseBody());
  return SmallVector<Value>(op.getResults());
}

void KernelBuilder::ifThen(Value cond, const std::function<void()> &thenBody) {
  auto op = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
}

void KernelBuilder::ifThenElse(Value cond,
                               const std::function<void()> &thenBody,
                               const std::function<void()> &elseBody) {
  auto op = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
  b.setInsertionPoint(op.elseBlock()->getTerminator());
  elseBody();
}

Value KernelBuilder::guarded(Value cond, const std::function<Value()> &load,
                             Value otherwise) {
  return ifThenElse(
      cond, otherwise.getType(), [&]() -> SmallVector<Value> { return {load()}; },
      [&]() -> SmallVector<Value> { return {otherwise}; })[0];
}
