//===- TensorCoreKernels.cpp - Blocked-ELL blocks on tensor cores ---------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The opt-in tensor-core path for the dense tau x tau blocks of a bell layer
// (`--precision tf32|f16`, docs/Kernels.md): one warp per 16-row slice of a
// block row; for every stored block of the block row and every 8 (tf32) or
// 16 (f16) columns of the block, the warp loads its A fragment from the
// block values and multiplies it with B in 8-column tiles through
// `nvgpu.mma.sync` (m16n8k8 tf32 or m16n8k16 f16, f32 accumulation). The
// fragments follow the PTX ISA's per-lane layouts (groupID = lane / 4,
// threadID_in_group = lane % 4). Per stored block and 32 columns of C the
// warp first stages the slice's 16 x tau values and the block's tau rows of
// B (those 32 columns) in its region of shared memory with 16-byte loads,
// between two warp barriers, and reads the fragments from there (rows
// padded so that a fragment's reads hit distinct banks). The result is
// ADDED to C: the layer's row kernel over the CSR residual has stored C
// before this launch. With one part every element of C belongs to one warp
// here and the addition is a plain read-modify-write; layers whose slices
// are too few to fill the GPU share a slice's blocks among `parts` warps,
// which add atomically.
//
// With 16-bit operands (f16 or bf16 B and values, m16n8k16 of that type)
// nothing is widened: the warp's stored blocks are software-pipelined, the
// next block's B rows copied in their own type into the other of two
// shared-memory buffers by `cp.async` and its A fragments loaded straight
// from the block values while this block is multiplied, with B fragments
// read by `ldmatrix.trans`. The kernel runs before the row kernel and
// writes the fp32 accumulator instead of adding into C, and each stored
// block is summed from zero as for 3xTF32; bf16 fragments go to
// `nvvm.mma.sync` as packed pairs (nvgpu.mma.sync takes f16, tf32 and
// integers only).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

/// Columns of C a warp keeps in registers at once: kTiles tiles of 8.
constexpr int64_t kTiles = 4;
/// The staged B rows' stride in floats: 32 columns plus 8, so that the
/// lanes of a B fragment (row = threadID_in_group, column = groupID) hit
/// distinct banks; a multiple of 4 for 16-byte stores.
constexpr int64_t kStrideB = 8 * kTiles + 8;

/// The staged A slice's stride in floats (tau values per row plus 4, for
/// the same reason).
int64_t strideA(int64_t tau) { return tau + 4; }

/// Floats of shared memory one warp stages a block in.
int64_t warpTileFloats(int64_t tau) {
  return 16 * strideA(tau) + tau * kStrideB;
}

/// 16-bit operands: the staged B rows' stride in elements (32 columns plus
/// 8: 80 bytes, so that the 8 rows an `ldmatrix` 8 x 8 matrix reads start
/// in distinct 16-byte bank groups, and every row 16-byte aligned for
/// `cp.async`).
constexpr int64_t kStrideH = 8 * kTiles + 8;

/// 16-bit elements of shared memory one warp stages B in: two buffers of a
/// block's tau rows.
int64_t warpTileHalves(int64_t tau) { return 2 * tau * kStrideH; }

class MmaKernelEmitter {
public:
  MmaKernelEmitter(const MmaKernelSpec &spec, gpu::GPUFuncOp func,
                   ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, spec.vectorReductions, spec.gridDependencies) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    K = spec.k > 0 ? kb.idx(spec.k) : params.at(::spperm::call_arg::kK);
    kb.launchDependents();
    kb.waitForPrerequisites();
    Value tid = kb.threadIdX();
    Value warp = kb.add(kb.mul(kb.blockIdX(), spec.threads / mlir::spperm::codegen::kWarpSize),
                        kb.div(tid, mlir::spperm::codegen::kWarpSize));
    Value lane = kb.rem(tid, mlir::spperm::codegen::kWarpSize);
    laneId = lane;
    tile = func.getWorkgroupAttributions()[0];
    Value warpInCta = kb.div(tid, mlir::spperm::codegen::kWarpSize);
    if (accumulator()) {
      tileB = kb.mul(warpInCta, warpTileHalves(spec.tau));
    } else {
      tileA = kb.mul(warpInCta, warpTileFloats(spec.tau));
      tileB = kb.add(tileA, kb.idx(16 * strideA(spec.tau)));
    }
    gid = kb.div(lane, 4);
    tig = kb.rem(lane, 4);
    const int64_t slices = spec.tau / 16;
    const int64_t warps =
        spec.blockRows * slices * spec.chunkGroups * spec.parts;
    kb.ifThen(kb.lt(warp, warps), [&] {
      // Innermost the chunk group: the warps of a slice take its chunks of
      // 8 * kTiles columns of C round-robin; then the part: the warps of a
      // (slice, chunk group) take its stored blocks round-robin.
      Value chunkGroup = kb.rem(warp, spec.chunkGroups);
      Value rest = kb.div(warp, spec.chunkGroups);
      part = kb.rem(rest, spec.parts);
      Value slice = kb.div(rest, spec.parts);
      blockRow = kb.div(slice, slices);
      rowInBlock = kb.mul(kb.rem(slice, slices), 16);
      kb.forLoop(kb.mul(chunkGroup, 8 * kTiles), K,
                 kb.idx(8 * kTiles * spec.chunkGroups), {},
                 [&](Value kBase, ValueRange) -> SmallVector<Value> {
                   emitChunk(kBase);
                   return {};
                 });
    });
    gpu::ReturnOp::create(b);
  }

private:
  /// m16n8k16 on 16-bit fragments (f16 or bf16).
  bool k16() const {
    return spec.precision == MmaPrecision::F16 ||
           spec.precision == MmaPrecision::BF16;
  }
  bool split() const { return spec.precision == MmaPrecision::TF32x3; }
  /// 16-bit operands: the result goes to the fp32 accumulator.
  bool accumulator() const {
    return spec.operandType != ::spperm::ValueType::F32;
  }
  /// The fragments' element type for m16n8k16.
  Type halfType() {
    return spec.precision == MmaPrecision::BF16 ? Type(b.getBF16Type())
                                                : Type(b.getF16Type());
  }

  /// Two 16-bit elements as one 32-bit register, the first in the low half
  /// (the PTX fragment layout).
  Value pack(Value lo, Value hi) {
    Value pair = vector::FromElementsOp::create(
        b, VectorType::get({2}, lo.getType()), ValueRange{lo, hi});
    Value word = vector::BitCastOp::create(
        b, VectorType::get({1}, b.getI32Type()), pair);
    return vector::ExtractOp::create(b, word, ArrayRef<int64_t>{0});
  }

  /// acc + a * b for bf16 fragments (a: 8 elements, b: 4, acc
  /// vector<2x2xf32>): nvvm.mma.sync m16n8k16 on packed registers.
  Value mmaBf16(ArrayRef<Value> a, ArrayRef<Value> bm, Value acc) {
    SmallVector<Value> regsA, regsB, c;
    for (size_t i = 0; i < a.size(); i += 2)
      regsA.push_back(pack(a[i], a[i + 1]));
    for (size_t i = 0; i < bm.size(); i += 2)
      regsB.push_back(pack(bm[i], bm[i + 1]));
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e)
        c.push_back(vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{r, e}));
    Type f32 = b.getF32Type();
    auto result =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    Value d = NVVM::MmaOp::create(
        b, result, regsA, regsB, c, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{i}));
    return vector::FromElementsOp::create(
        b, VectorType::get({2, 2}, f32), out);
  }

  /// The TF32 high part of each element of `v` (its top 19 bits: sign,
  /// exponent, 10 mantissa bits) and the low part, v - high, exact in
  /// fp32; the MMA unit reads the low part's top 19 bits too, so high * b
  /// + low * b carries 21 bits of a.
  std::pair<Value, Value> splitTf32(Value v) {
    auto vecType = cast<VectorType>(v.getType());
    auto intType = VectorType::get(vecType.getShape(), b.getI32Type());
    Value bits = arith::BitcastOp::create(b, intType, v);
    Value mask = kb.splatI32(intType, 0xFFFFE000u);
    Value high = arith::BitcastOp::create(
        b, vecType, arith::AndIOp::create(b, bits, mask).getResult());
    Value low = arith::SubFOp::create(b, v, high);
    return {high, low};
  }

  /// acc + a * b on the tensor cores: one TF32 product, or for TF32x3 the
  /// three of the split operands, the small ones first.
  Value mma(Value a, Value bm, Value acc, ArrayRef<int64_t> shape) {
    if (!split())
      return nvgpu::MmaSyncOp::create(b, b.getLoc(), a, bm, acc, shape,
                                      /*tf32Enabled=*/!k16());
    auto [aHigh, aLow] = splitTf32(a);
    auto [bHigh, bLow] = splitTf32(bm);
    acc = nvgpu::MmaSyncOp::create(b, b.getLoc(), aHigh, bLow, acc, shape,
                                   /*tf32Enabled=*/true);
    acc = nvgpu::MmaSyncOp::create(b, b.getLoc(), aLow, bHigh, acc, shape,
                                   /*tf32Enabled=*/true);
    return nvgpu::MmaSyncOp::create(b, b.getLoc(), aHigh, bHigh, acc, shape,
                                    /*tf32Enabled=*/true);
  }

  /// The B row of column c of stored block `slot` (first column col0):
  /// col0 + c for consecutive blocks, the listed column (-1: none) for
  /// condensed tiles.
  Value bRowOf(Value slot, Value col0, Value c) {
    if (!spec.condensed)
      return kb.add(col0, c);
    return kb.loadIndex(params.at(::spperm::buffer::kBellTileCol),
                        kb.add(kb.mul(slot, spec.tau), c));
  }

  /// fp32 operands: stages the warp's slice of stored block `slot` (first
  /// column col0):
  /// its 16 x tau values, and the block's tau rows of B at columns kBase ..
  /// kBase + 31 (zeros past N, past K and for a condensed tile's -1 rows),
  /// with 16-byte loads, all issued before the stores, between two warp
  /// barriers. The variants of this kernel have K a multiple of 8, so a
  /// 4-column chunk lies wholly inside or outside K.
  void stage(Value slot, Value col0, Value kBase) {
    Value all = kb.i32(-1);
    NVVM::SyncWarpOp::create(b, all);
    const int64_t tau = spec.tau;
    Value values = params.at(::spperm::buffer::kBellBlockValues);
    Value aBase = kb.add(kb.mul(slot, tau * tau), kb.mul(rowInBlock, tau));
    SmallVector<std::pair<Value, Value>> pending;
    for (int64_t i = 0; i < tau / 8; ++i) {
      Value e = kb.mul(kb.add(laneId, kb.idx(32 * i)), 4);
      Value r = kb.div(e, tau), c = kb.rem(e, tau);
      pending.push_back({kb.add(tileA, kb.add(kb.mul(r, strideA(tau)), c)),
                         kb.loadF32(values, kb.add(aBase, e), 4)});
    }
    Value B = params.at(::spperm::call_arg::kB);
    auto vec4 = VectorType::get({4}, b.getF32Type());
    for (int64_t i = 0; i < tau / 4; ++i) {
      Value e4 = kb.add(laneId, kb.idx(32 * i));
      Value c = kb.div(e4, 8), q = kb.rem(e4, 8);
      Value col = kb.add(kBase, kb.mul(q, 4));
      Value row = bRowOf(slot, col0, c);
      Value ok = kb.andI(kb.lt(row, spec.cols), kb.lt(col, K));
      if (spec.condensed)
        ok = kb.andI(ok, kb.ge(row, kb.idx(0)));
      Value v = kb.guarded(
          ok, [&] { return kb.loadF32(B, kb.add(kb.mul(row, K), col), 4); },
          kb.zero(vec4));
      pending.push_back(
          {kb.add(tileB, kb.add(kb.mul(c, kStrideB), kb.mul(q, 4))), v});
    }
    for (auto [at, v] : pending)
      kb.storeF32(v, tile, at);
    NVVM::SyncWarpOp::create(b, all);
  }

  /// B[row of block column c, col] from the staged rows, as f32 (rounded to
  /// f16 for `--precision f16`, m16n8k16).
  Value loadB(Value c, Value col) {
    Value v = kb.load(tile, kb.add(tileB, kb.add(kb.mul(c, kStrideB),
                                                kb.sub(col, chunkBase))));
    return k16() ? arith::TruncFOp::create(b, halfType(), v).getResult() : v;
  }

  /// The staged block value at (row, col) of the warp's slice (row counted
  /// from the block's first row), converted like loadB.
  Value loadA(Value row, Value col) {
    Value v = kb.load(
        tile, kb.add(tileA, kb.add(kb.mul(kb.sub(row, rowInBlock),
                                          strideA(spec.tau)),
                                   col)));
    return k16() ? arith::TruncFOp::create(b, halfType(), v).getResult() : v;
  }

  /// 8 * kTiles columns of C from kBase: accumulate over the block row's
  /// stored blocks, then add into C.
  void emitChunk(Value kBase) {
    auto accType = VectorType::get({2, 2}, b.getF32Type());
    SmallVector<Value> inits(kTiles, kb.zero(accType));
    SmallVector<Value> acc = accumulator() ? emitHalfBlocks(kBase, inits)
                                           : emitStagedBlocks(kBase, inits);
    // Epilogue: C[order[r]] += acc for the rows of this slice below M; with
    // 16-bit operands the fp32 accumulator instead of C, stored by one part.
    Value order = params.at(::spperm::buffer::kOrder);
    Value C = params.at(accumulator() ? ::spperm::call_arg::kAccumulator
                                      : ::spperm::call_arg::kC);
    for (int64_t t = 0; t < kTiles; ++t)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = kb.add(kb.add(kb.mul(blockRow, spec.tau), rowInBlock),
                           kb.add(gid, kb.idx(8 * half)));
        kb.ifThen(kb.lt(row, spec.rows), [&] {
          Value out = kb.mul(kb.loadIndex(order, row), K);
          if (spec.parts > 1 || accumulator()) {
            // The lane's two adjacent columns, both inside K or both past
            // it (K is a multiple of 8), as one 8-byte-aligned pair: added
            // atomically by parts, else stored into the accumulator.
            Value col = kb.add(kBase, kb.add(kb.idx(8 * t), kb.mul(tig, 2)));
            kb.ifThen(kb.lt(col, K), [&] {
              Value pair = vector::ExtractOp::create(
                  b, acc[t], ArrayRef<int64_t>{half});
              if (spec.parts > 1)
                kb.atomicAddF32(pair, C, kb.add(out, col));
              else
                kb.storeF32(pair, C, kb.add(out, col));
            });
            return;
          }
          for (int64_t e = 0; e < 2; ++e) {
            Value col = kb.add(kBase, kb.add(kb.idx(8 * t + e),
                                             kb.mul(tig, 2)));
            kb.ifThen(kb.lt(col, K), [&] {
              Value v = vector::ExtractOp::create(
                  b, acc[t], ArrayRef<int64_t>{half, e});
              Value at = kb.add(out, col);
              memref::StoreOp::create(b, kb.fadd(kb.load(C, at), v), C,
                                      ValueRange{at});
            });
          }
        });
      }
  }

  /// fp32 operands: the warp's stored blocks of its block row (slots part,
  /// part + parts, ...) multiplied into `inits`, each staged and waited
  /// for in turn (emitBlock); padding slots skipped.
  SmallVector<Value> emitStagedBlocks(Value kBase, ValueRange inits) {
    Value blockCol = params.at(::spperm::buffer::kBellBlockCol);
    SmallVector<Type> types;
    for (Value v : inits)
      types.push_back(v.getType());
    return kb.forLoop(
        part, kb.idx(spec.width), kb.idx(spec.parts), inits,
        [&](Value w, ValueRange it) -> SmallVector<Value> {
          Value slot = kb.add(kb.mul(blockRow, spec.width), w);
          Value bc = kb.loadIndex(blockCol, slot);
          return kb.ifThenElse(
              kb.ge(bc, kb.idx(0)), types,
              [&]() -> SmallVector<Value> {
                return emitBlock(slot, kb.mul(bc, spec.tau), kBase, it);
              },
              [&]() -> SmallVector<Value> { return SmallVector<Value>(it); });
        });
  }

  /// sums + one block's products, the products summed from zero by
  /// `products` (given zeros) and added to `sums` with fp32 additions,
  /// rounded to nearest: the tensor cores add with truncation, which over a
  /// long chain of MMAs into one accumulator drifts past fp32 accuracy
  /// (normwise 1.3e-5 over 2,048 columns of A on the H200).
  SmallVector<Value>
  sumFromZero(ValueRange sums,
              llvm::function_ref<SmallVector<Value>(ValueRange)> products) {
    SmallVector<Value> zeros;
    for (Value v : sums)
      zeros.push_back(kb.zero(v.getType()));
    SmallVector<Value> block = products(zeros);
    SmallVector<Value> out;
    for (auto [sum, part] : llvm::zip(sums, block))
      out.push_back(arith::AddFOp::create(b, sum, part));
    return out;
  }

  /// 16-bit operands: the warp's stored blocks of its block row (slots
  /// part, part + parts, ...) multiplied into `inits`, software-pipelined:
  /// while one block is multiplied, the next one's B rows are copied into
  /// the other of the warp's two buffers by `cp.async` and its A fragments
  /// loaded. B fragments come from the staged rows through `ldmatrix`
  /// (transposed), A fragments straight from the block values (a lane's
  /// two adjacent values are one 4-byte load); nothing is widened.
  SmallVector<Value> emitHalfBlocks(Value kBase, ValueRange inits) {
    Value rowSlots = kb.mul(blockRow, spec.width);
    Value firstSlot = kb.add(rowSlots, part);
    Value firstCol = blockColAt(rowSlots, part);
    // The block columns are loaded two blocks ahead, so that a block's
    // copies never wait for its column's load.
    Value secondCol = blockColAt(rowSlots, kb.add(part, kb.idx(spec.parts)));
    copyHalfBlock(firstSlot, firstCol, kBase, kb.idx(0));
    Value firstGroup = group;
    // A block row of padding only (the warp's first slot padding) loads
    // no values.
    SmallVector<Type> aTypes(4 * (spec.tau / 16),
                             VectorType::get({2}, halfType()));
    SmallVector<Value> firstA = kb.ifThenElse(
        kb.ge(firstCol, kb.idx(0)), aTypes,
        [&]() -> SmallVector<Value> { return loadHalfA(firstSlot); },
        [&]() -> SmallVector<Value> {
          return SmallVector<Value>(aTypes.size(), kb.zero(aTypes.front()));
        });
    const size_t numA = firstA.size();
    SmallVector<Value> iter(inits.begin(), inits.end());
    iter.append(firstA);
    iter.append({firstCol, secondCol});
    Value all = kb.i32(-1);
    SmallVector<Type> iterTypes;
    for (Value v : iter)
      iterTypes.push_back(v.getType());
    // Padding is trailing (docs/Formats.md, "bell"; the package reader
    // checks it), so once a slot is padding the rest of the warp's are too
    // and their iterations do nothing.
    SmallVector<Value> out = kb.forLoop(
        part, kb.idx(spec.width), kb.idx(spec.parts), iter,
        [&](Value w, ValueRange it) -> SmallVector<Value> {
          Value bc = it[kTiles + numA], nextCol = it[kTiles + numA + 1];
          return kb.ifThenElse(
              kb.ge(bc, kb.idx(0)), iterTypes,
              [&]() -> SmallVector<Value> {
                return halfBlockStep(w, it, rowSlots, kBase, numA, nextCol);
              },
              [&]() -> SmallVector<Value> { return SmallVector<Value>(it); });
        });
    // The last iteration's copies (zeros) are not left in flight: the next
    // chunk reuses the buffers.
    nvgpu::DeviceAsyncWaitOp::create(b, firstGroup, b.getI32IntegerAttr(0));
    NVVM::SyncWarpOp::create(b, all);
    return SmallVector<Value>(out.begin(), out.begin() + kTiles);
  }

  /// One stored block of emitHalfBlocks (slot w, its state `it`: the
  /// running sums, its A fragments, its column and the next slot's): copies
  /// the next block's B rows (zeros past the stored blocks) and loads its A
  /// fragments, then multiplies this block from the buffer its copies
  /// filled. Returns the state of the next slot.
  SmallVector<Value> halfBlockStep(Value w, ValueRange it, Value rowSlots,
                                   Value kBase, size_t numA, Value nextCol) {
    SmallVector<Value> sums(it.take_front(kTiles));
    SmallVector<Value> a(it.slice(kTiles, numA));
    Value which = kb.rem(kb.div(kb.sub(w, part), spec.parts), 2);
    // The next slot, clamped into the block row.
    Value next = kb.add(w, kb.idx(spec.parts));
    Value nextSlot = kb.add(rowSlots, kb.min(next, kb.idx(spec.width - 1)));
    copyHalfBlock(nextSlot, nextCol, kBase, kb.sub(kb.idx(1), which));
    SmallVector<Type> aTypes;
    for (Value v : a)
      aTypes.push_back(v.getType());
    SmallVector<Value> nextA = kb.ifThenElse(
        kb.ge(nextCol, kb.idx(0)), aTypes,
        [&]() -> SmallVector<Value> { return loadHalfA(nextSlot); },
        [&]() -> SmallVector<Value> { return a; });
    Value afterCol = blockColAt(rowSlots, kb.add(next, kb.idx(spec.parts)));
    Value all = kb.i32(-1);
    nvgpu::DeviceAsyncWaitOp::create(b, group, b.getI32IntegerAttr(1));
    NVVM::SyncWarpOp::create(b, all);
    SmallVector<Value> result = halfBlockProducts(
        a, kb.add(tileB, kb.mul(which, spec.tau * kStrideH)), sums);
    // Every lane's reads of the buffer are done before the next iteration
    // copies into it.
    NVVM::SyncWarpOp::create(b, all);
    result.append(nextA);
    result.append({nextCol, afterCol});
    return result;
  }

  /// The block column of slot w of the block row whose first slot is
  /// rowSlots, -1 (padding) for w past the row.
  Value blockColAt(Value rowSlots, Value w) {
    Value blockCol = params.at(::spperm::buffer::kBellBlockCol);
    Value slot = kb.add(rowSlots, kb.min(w, kb.idx(spec.width - 1)));
    return kb.select(kb.lt(w, kb.idx(spec.width)),
                     kb.loadIndex(blockCol, slot), kb.idx(-1));
  }

  /// Copies the tau rows of B of stored block `slot` (block column bc, -1
  /// for padding: zeros) at columns kBase .. kBase + 31 into the warp's
  /// buffer `which` by `cp.async`, 8 elements (16 bytes) a copy, zeros past
  /// N, past K and for a condensed tile's -1 rows; the copies' group in
  /// `group`. K is a multiple of 8, so a copy lies wholly inside or outside
  /// K.
  void copyHalfBlock(Value slot, Value bc, Value kBase, Value which) {
    const int64_t tau = spec.tau;
    Value B = params.at(::spperm::call_arg::kB);
    Value col0 = kb.mul(bc, tau);
    Value base = kb.add(tileB, kb.mul(which, tau * kStrideH));
    Value stored = kb.ge(bc, kb.idx(0));
    SmallVector<Value> tokens;
    for (int64_t i = 0; i < tau * 4 / mlir::spperm::codegen::kWarpSize; ++i) {
      Value e = kb.add(laneId, kb.idx(mlir::spperm::codegen::kWarpSize * i));
      Value c = kb.div(e, 4), q = kb.rem(e, 4);
      Value col = kb.add(kBase, kb.mul(q, 8));
      Value row = bRowOf(slot, col0, c);
      Value ok = kb.andI(stored,
                         kb.andI(kb.lt(row, spec.cols), kb.lt(col, K)));
      if (spec.condensed)
        ok = kb.andI(ok, kb.ge(row, kb.idx(0)));
      Value src = kb.select(ok, kb.add(kb.mul(row, K), col), kb.idx(0));
      Value dst = kb.add(base, kb.add(kb.mul(c, kStrideH), kb.mul(q, 8)));
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          b, tile, ValueRange{dst}, B, ValueRange{src}, b.getIndexAttr(8),
          kb.select(ok, kb.idx(8), kb.idx(0)), UnitAttr()));
    }
    group = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
  }

  /// The warp's A fragments of stored block `slot` for its tau / 16
  /// k-slices, four pairs each (m16n8k16's a0a1, a2a3, a4a5, a6a7: rows
  /// gid and gid + 8 of the slice, columns 2 tig and 2 tig + 8), loaded
  /// from the block values as they are.
  SmallVector<Value> loadHalfA(Value slot) {
    const int64_t tau = spec.tau;
    Value values = params.at(::spperm::buffer::kBellBlockValues);
    Value r0 = kb.add(kb.add(kb.mul(slot, tau * tau),
                             kb.mul(kb.add(rowInBlock, gid), tau)),
                      kb.mul(tig, 2));
    Value r1 = kb.add(r0, kb.idx(8 * tau));
    auto pair = VectorType::get({2}, halfType());
    SmallVector<Value> out;
    for (int64_t k0 = 0; k0 < tau; k0 += 16)
      for (Value at : {kb.add(r0, k0), kb.add(r1, k0), kb.add(r0, k0 + 8),
                       kb.add(r1, k0 + 8)})
        out.push_back(vector::LoadOp::create(b, pair, values, ValueRange{at},
                                             /*nontemporal=*/false,
                                             llvm::MaybeAlign(4)));
    return out;
  }

  /// sums + the products of one stored block on the tensor cores, from its
  /// A fragments `a` (loadHalfA) and its B rows staged at `staged`: per
  /// k-slice, two `ldmatrix.x4.trans` give the B fragments of the 4 tiles.
  /// The block is summed from zero and added to the running sums in fp32.
  SmallVector<Value> halfBlockProducts(ArrayRef<Value> a, Value staged,
                                       ValueRange sums) {
    return sumFromZero(sums, [&](ValueRange zeros) {
      return halfProducts(a, staged, zeros);
    });
  }

  /// accIn + one block's products (halfBlockProducts).
  SmallVector<Value> halfProducts(ArrayRef<Value> a, Value staged,
                                  ValueRange accIn) {
    SmallVector<Value> block(accIn);
    auto scalars = [&](ArrayRef<Value> pairs) {
      SmallVector<Value> out;
      for (Value p : pairs)
        for (int64_t e = 0; e < 2; ++e)
          out.push_back(vector::ExtractOp::create(b, p, ArrayRef<int64_t>{e}));
      return out;
    };
    // ldmatrix's lanes 0-15 address k rows 0-15 of a 16-column pair of
    // tiles' first tile, lanes 16-31 the same rows of the second.
    Value laneRow = kb.rem(laneId, 16);
    Value laneCol = kb.mul(kb.div(laneId, 16), 8);
    auto fourTiles = VectorType::get({4, 2}, halfType());
    for (int64_t s = 0; s < spec.tau / 16; ++s) {
      SmallVector<Value> aElems = scalars(a.slice(4 * s, 4));
      for (int64_t p = 0; p < kTiles / 2; ++p) {
        Value at = kb.add(
            staged, kb.add(kb.mul(kb.add(laneRow, kb.idx(16 * s)), kStrideH),
                           kb.add(laneCol, kb.idx(16 * p))));
        Value frags = nvgpu::LdMatrixOp::create(b, fourTiles, tile,
                                                ValueRange{at},
                                                /*transpose=*/true,
                                                /*numTiles=*/4);
        for (int64_t h = 0; h < 2; ++h) {
          const int64_t t = 2 * p + h;
          SmallVector<Value> bElems;
          for (int64_t r = 0; r < 2; ++r)
            for (int64_t e = 0; e < 2; ++e)
              bElems.push_back(vector::ExtractOp::create(
                  b, frags, ArrayRef<int64_t>{2 * h + r, e}));
          if (spec.precision == MmaPrecision::BF16) {
            block[t] = mmaBf16(aElems, bElems, block[t]);
            continue;
          }
          Value av = vector::FromElementsOp::create(
              b, VectorType::get({4, 2}, b.getF16Type()), aElems);
          Value bv = vector::FromElementsOp::create(
              b, VectorType::get({2, 2}, b.getF16Type()), bElems);
          block[t] = nvgpu::MmaSyncOp::create(b, b.getLoc(), av, bv, block[t],
                                              ArrayRef<int64_t>{16, 8, 16},
                                              /*tf32Enabled=*/false);
        }
      }
    }
    return block;
  }

  /// One stored block (`slot`, first column col0): its tau / kStep
  /// k-slices, for 3xTF32 summed from zero (sumFromZero).
  SmallVector<Value> emitBlock(Value slot, Value col0, Value kBase,
                               ValueRange accIn) {
    if (!split())
      return emitBlockProducts(slot, col0, kBase, accIn);
    return sumFromZero(accIn, [&](ValueRange zeros) {
      return emitBlockProducts(slot, col0, kBase, zeros);
    });
  }

  /// accIn + the products of stored block `slot` (first column col0), on
  /// the tensor cores: its tau / kStep k-slices.
  SmallVector<Value> emitBlockProducts(Value slot, Value col0, Value kBase,
                                       ValueRange accIn) {
    const int64_t kStep = k16() ? 16 : 8;
    chunkBase = kBase;
    stage(slot, col0, kBase);
    return kb.forLoop(
        kb.idx(0), kb.idx(spec.tau), kb.idx(kStep), accIn,
        [&](Value k0, ValueRange acc) -> SmallVector<Value> {
          Value r0 = kb.add(rowInBlock, gid), r1 = kb.add(r0, kb.idx(8));
          Value a;
          if (k16()) {
            Value c0 = kb.add(k0, kb.mul(tig, 2));
            Value c8 = kb.add(c0, kb.idx(8));
            SmallVector<Value> e = {loadA(r0, c0), loadA(r0, kb.add(c0, 1)),
                                    loadA(r1, c0), loadA(r1, kb.add(c0, 1)),
                                    loadA(r0, c8), loadA(r0, kb.add(c8, 1)),
                                    loadA(r1, c8), loadA(r1, kb.add(c8, 1))};
            a = vector::FromElementsOp::create(
                b, VectorType::get({4, 2}, b.getF16Type()), e);
          } else {
            Value c0 = kb.add(k0, tig), c4 = kb.add(c0, kb.idx(4));
            SmallVector<Value> e = {loadA(r0, c0), loadA(r1, c0),
                                    loadA(r0, c4), loadA(r1, c4)};
            a = vector::FromElementsOp::create(
                b, VectorType::get({4, 1}, b.getF32Type()), e);
          }
          SmallVector<Value> out;
          for (int64_t t = 0; t < kTiles; ++t) {
            Value col = kb.add(kBase, kb.add(gid, kb.idx(8 * t)));
            Value bm;
            if (k16()) {
              Value c = kb.add(k0, kb.mul(tig, 2));
              Value c8 = kb.add(c, kb.idx(8));
              SmallVector<Value> e = {
                  loadB(c, col),
                  loadB(kb.add(c, 1), col),
                  loadB(c8, col),
                  loadB(kb.add(c8, 1), col)};
              bm = vector::FromElementsOp::create(
                  b, VectorType::get({2, 2}, b.getF16Type()), e);
            } else {
              Value c = kb.add(k0, tig);
              SmallVector<Value> e = {
                  loadB(c, col),
                  loadB(kb.add(c, kb.idx(4)), col)};
              bm = vector::FromElementsOp::create(
                  b, VectorType::get({2, 1}, b.getF32Type()), e);
            }
            SmallVector<int64_t> shape =
                k16() ? SmallVector<int64_t>{16, 8, 16}
                      : SmallVector<int64_t>{16, 8, 8};
            out.push_back(mma(a, bm, acc[t], shape));
          }
          return out;
        });
  }

  const MmaKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  Value K, gid, tig, blockRow, rowInBlock, part;
  /// The lane, the workgroup buffer, the warp's A and B regions in it, and
  /// the first column of C the staged B rows hold.
  Value laneId, tile, tileA, tileB, chunkBase;
  /// 16-bit operands: the last group of B copies issued (copyHalfBlock).
  Value group;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitMmaKernel(gpu::GPUModuleOp module,
                                     const MmaKernelSpec &spec) {
  MLIRContext *ctx = module.getContext();
  const bool half = spec.operandType != ::spperm::ValueType::F32;
  assert((!half || (spec.precision ==
                    (spec.operandType == ::spperm::ValueType::BF16
                         ? MmaPrecision::BF16
                         : MmaPrecision::F16))) &&
         "16-bit operands are multiplied in their own type");
  // A warp's first slot (part < parts) lies inside its block row: the
  // 16-bit path reads its column and tiles unclamped.
  assert(spec.parts <= std::max<int64_t>(spec.width, 1) &&
         "parts share a block row's slots");
  SmallVector<KernelArg> args = bellBlockArgs(
      ctx, spec.condensed, spec.valueType, spec.operandType, half);
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  if (half)
    addSharedBuffer(func, spec.threads / kWarpSize * warpTileHalves(spec.tau),
                    spec.operandType == ::spperm::ValueType::BF16
                        ? Type(BFloat16Type::get(ctx))
                        : Type(Float16Type::get(ctx)));
  else
    addSharedF32Buffer(func,
                       spec.threads / kWarpSize * warpTileFloats(spec.tau));
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  MmaKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
