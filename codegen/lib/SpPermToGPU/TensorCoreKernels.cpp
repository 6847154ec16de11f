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
// threadID_in_group = lane % 4). The result is ADDED to C: the layer's row
// kernel over the CSR residual has stored C before this launch, and every
// element of C belongs to one warp here, so no atomics are needed.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

/// Columns of C a warp keeps in registers at once: kTiles tiles of 8.
constexpr int64_t kTiles = 4;

class MmaKernelEmitter {
public:
  MmaKernelEmitter(const MmaKernelSpec &spec, gpu::GPUFuncOp func,
                   ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, /*vectorReductions=*/false, spec.gridDependencies) {}

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
    gid = kb.div(lane, 4);
    tig = kb.rem(lane, 4);
    const int64_t slices = spec.tau / 16;
    const int64_t warps = spec.blockRows * slices * spec.chunkGroups;
    kb.ifThen(kb.lt(warp, warps), [&] {
      // Innermost the chunk group: the warps of a slice take its chunks of
      // 8 * kTiles columns of C round-robin.
      Value chunkGroup = kb.rem(warp, spec.chunkGroups);
      Value slice = kb.div(warp, spec.chunkGroups);
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
  bool f16() const { return spec.precision == MmaPrecision::F16; }
  bool split() const { return spec.precision == MmaPrecision::TF32x3; }

  /// The TF32 high part of each element of `v` (its top 19 bits: sign,
  /// exponent, 10 mantissa bits) and the low part, v - high, exact in
  /// fp32; the MMA unit reads the low part's top 19 bits too, so high * b
  /// + low * b carries 21 bits of a.
  std::pair<Value, Value> splitTf32(Value v) {
    auto vecType = cast<VectorType>(v.getType());
    auto intType = VectorType::get(vecType.getShape(), b.getI32Type());
    Value bits = arith::BitcastOp::create(b, intType, v);
    Value mask = arith::ConstantOp::create(
        b, intType,
        DenseElementsAttr::get(intType, b.getI32IntegerAttr(
                                            static_cast<int32_t>(0xFFFFE000u))));
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
                                      /*tf32Enabled=*/!f16());
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

  /// B[row, col] as f32 (f16 when the precision asks), 0 outside N x K
  /// (and for a condensed tile's -1 row).
  Value loadB(Value row, Value col) {
    Value ok = kb.andI(kb.lt(row, spec.cols), kb.lt(col, K));
    if (spec.condensed)
      ok = kb.andI(ok, kb.ge(row, kb.idx(0)));
    Value v = kb.guarded(
        ok, [&] { return kb.load(params.at(::spperm::call_arg::kB), kb.add(kb.mul(row, K), col)); },
        kb.f32(0.0f));
    return f16() ? arith::TruncFOp::create(b, b.getF16Type(), v).getResult()
                 : v;
  }

  /// The block value at (row, col) of stored block `base` (an element
  /// offset), converted like loadB.
  Value loadA(Value base, Value row, Value col) {
    Value v = kb.load(params.at(::spperm::buffer::kBellBlockValues),
                      kb.add(base, kb.add(kb.mul(row, spec.tau), col)));
    return f16() ? arith::TruncFOp::create(b, b.getF16Type(), v).getResult()
                 : v;
  }

  /// 8 * kTiles columns of C from kBase: accumulate over the block row's
  /// stored blocks, then add into C.
  void emitChunk(Value kBase) {
    auto accType = VectorType::get({2, 2}, b.getF32Type());
    SmallVector<Value> inits(kTiles, kb.zero(accType));
    Value blockCol = params.at(::spperm::buffer::kBellBlockCol);
    SmallVector<Type> types(kTiles, accType);
    SmallVector<Value> acc = kb.forLoop(
        kb.idx(0), kb.idx(spec.width), kb.idx(1), inits,
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
    // Epilogue: C[order[r]] += acc for the rows of this slice below M.
    Value order = params.at(::spperm::buffer::kOrder), C = params.at(::spperm::call_arg::kC);
    for (int64_t t = 0; t < kTiles; ++t)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = kb.add(kb.add(kb.mul(blockRow, spec.tau), rowInBlock),
                           kb.add(gid, kb.idx(8 * half)));
        kb.ifThen(kb.lt(row, spec.rows), [&] {
          Value out = kb.mul(kb.loadIndex(order, row), K);
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

  /// One stored block (`slot`, first column col0): its tau / kStep k-slices.
  SmallVector<Value> emitBlock(Value slot, Value col0, Value kBase,
                               ValueRange accIn) {
    if (!split())
      return emitBlockProducts(slot, col0, kBase, accIn);
    // 3xTF32: the tensor cores add with truncation, which over a long
    // chain of MMAs into one accumulator drifts past fp32 accuracy
    // (normwise 1.3e-5 over 2,048 columns of A on the H200). So each block
    // is summed from zero (its 3 * tau / 8 MMAs) and added to the running
    // sums with fp32 additions, rounded to nearest.
    SmallVector<Value> zeros;
    for (Value v : accIn)
      zeros.push_back(kb.zero(v.getType()));
    SmallVector<Value> block = emitBlockProducts(slot, col0, kBase, zeros);
    SmallVector<Value> out;
    for (auto [sum, part] : llvm::zip(accIn, block))
      out.push_back(arith::AddFOp::create(b, sum, part));
    return out;
  }

  /// accIn + the products of stored block `slot` (first column col0), on
  /// the tensor cores: its tau / kStep k-slices.
  SmallVector<Value> emitBlockProducts(Value slot, Value col0, Value kBase,
                                       ValueRange accIn) {
    const int64_t kStep = f16() ? 16 : 8;
    Value base = kb.mul(slot, spec.tau * spec.tau);
    return kb.forLoop(
        kb.idx(0), kb.idx(spec.tau), kb.idx(kStep), accIn,
        [&](Value k0, ValueRange acc) -> SmallVector<Value> {
          Value r0 = kb.add(rowInBlock, gid), r1 = kb.add(r0, kb.idx(8));
          Value a;
          if (f16()) {
            Value c0 = kb.add(k0, kb.mul(tig, 2));
            Value c8 = kb.add(c0, kb.idx(8));
            SmallVector<Value> e = {
                loadA(base, r0, c0), loadA(base, r0, kb.add(c0, 1)),
                loadA(base, r1, c0), loadA(base, r1, kb.add(c0, 1)),
                loadA(base, r0, c8), loadA(base, r0, kb.add(c8, 1)),
                loadA(base, r1, c8), loadA(base, r1, kb.add(c8, 1))};
            a = vector::FromElementsOp::create(
                b, VectorType::get({4, 2}, b.getF16Type()), e);
          } else {
            Value c0 = kb.add(k0, tig), c4 = kb.add(c0, kb.idx(4));
            SmallVector<Value> e = {loadA(base, r0, c0), loadA(base, r1, c0),
                                    loadA(base, r0, c4), loadA(base, r1, c4)};
            a = vector::FromElementsOp::create(
                b, VectorType::get({4, 1}, b.getF32Type()), e);
          }
          SmallVector<Value> out;
          for (int64_t t = 0; t < kTiles; ++t) {
            Value col = kb.add(kBase, kb.add(gid, kb.idx(8 * t)));
            Value bm;
            if (f16()) {
              Value c = kb.add(k0, kb.mul(tig, 2));
              Value c8 = kb.add(c, kb.idx(8));
              SmallVector<Value> e = {
                  loadB(bRowOf(slot, col0, c), col),
                  loadB(bRowOf(slot, col0, kb.add(c, 1)), col),
                  loadB(bRowOf(slot, col0, c8), col),
                  loadB(bRowOf(slot, col0, kb.add(c8, 1)), col)};
              bm = vector::FromElementsOp::create(
                  b, VectorType::get({2, 2}, b.getF16Type()), e);
            } else {
              Value c = kb.add(k0, tig);
              SmallVector<Value> e = {
                  loadB(bRowOf(slot, col0, c), col),
                  loadB(bRowOf(slot, col0, kb.add(c, kb.idx(4))), col)};
              bm = vector::FromElementsOp::create(
                  b, VectorType::get({2, 1}, b.getF32Type()), e);
            }
            SmallVector<int64_t> shape =
                f16() ? SmallVector<int64_t>{16, 8, 16}
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
  Value K, gid, tig, blockRow, rowInBlock;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitMmaKernel(gpu::GPUModuleOp module,
                                     const MmaKernelSpec &spec) {
  MLIRContext *ctx = module.getContext();
  SmallVector<KernelArg> args = bellBlockArgs(ctx, spec.condensed);
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  MmaKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
