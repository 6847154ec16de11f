//===- TileKernels.cpp - Blocked-ELL blocks in fp32 register tiles --------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The fp32 kernel for the dense tau x tau blocks of a bell layer
// (docs/Kernels.md, "bell-tile"). A *unit* is a group of `lanes` lanes, each
// owning 4 consecutive columns of C; it computes `sliceRows` rows of a block
// row (a slice) for every column of C, over the block row's stored blocks
// i = part, part + parts, ... (parts > 1 when the block rows are too few to
// fill the GPU). Per block, the unit copies the slice's sliceRows x tau
// values into its region of shared memory, transposed (column c's values
// contiguous, their 4-float chunks XOR-swizzled by c so that the copy's
// stores spread over the banks), between two warp barriers; then every B
// row of the block is loaded once (16 bytes a lane) and feeds sliceRows x 4
// multiply-adds, the values read as 16-byte broadcasts. The csr kernel
// feeds 4 multiply-adds per B load; the L1 wavefronts of those loads are
// what bounds it on dense rows (docs/Kernels.md, "Families", bell-tile).
// The result is ADDED to C, which the layer's row kernel over the CSR
// residual stored first: a plain read-modify-write with one part, atomic
// additions with several. With 16-bit operands (B and the values widened
// exactly as they are read) the kernel runs first instead and writes the
// fp32 accumulator (stored with one part, added into it cleared with
// several); the row kernel after it adds the accumulator to its sums and
// rounds C once.
//
// Every lane of a warp runs the same trip counts (all units see the
// layer's width, padding slots included), so the warp barriers are
// reached by all lanes; units past the last block row compute nothing and
// store nothing.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

class TileKernelEmitter {
public:
  TileKernelEmitter(const TileKernelSpec &spec, gpu::GPUFuncOp func,
                    ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b),
        kb(b, spec.vectorReductions, spec.gridDependencies) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    tile = func.getWorkgroupAttributions()[0];
    kb.launchDependents();
    K = spec.k > 0 ? kb.idx(spec.k) : params.at(::spperm::call_arg::kK);
    const int64_t unitsPerCta = spec.threads / spec.lanes;
    const int64_t slices = spec.tau / spec.sliceRows;
    Value tid = kb.threadIdX();
    Value local = kb.div(tid, spec.lanes);
    lane = kb.rem(tid, spec.lanes);
    Value unit = kb.add(kb.mul(kb.blockIdX(), unitsPerCta), local);
    // Innermost the K chunk group, so that the units of a warp share their
    // block row and part (the same values, staged from the same lines).
    Value chunkGroup = kb.rem(unit, spec.chunkGroups);
    unit = kb.div(unit, spec.chunkGroups);
    part = kb.rem(unit, spec.parts);
    Value rest = kb.div(unit, spec.parts);
    Value slice = kb.rem(rest, slices);
    Value blockRow = kb.div(rest, slices);
    valid = kb.lt(blockRow, spec.blockRows);
    // Units past the end read block row 0's slots (in bounds) and drop
    // them.
    blockRow = kb.select(valid, blockRow, kb.idx(0));
    sliceRow0 = kb.mul(slice, spec.sliceRows);
    rowBase = kb.add(kb.mul(blockRow, spec.tau), sliceRow0);
    slotBase = kb.mul(blockRow, spec.width);
    tileBase = kb.mul(local, spec.sliceRows * spec.tau);
    // Columns of C in chunks of 4 * lanes; group g takes chunks g, g +
    // chunkGroups, ... Every unit of a warp runs the same trip count (the
    // warp barriers of `stage`): a unit whose chunk lies past K computes
    // with its columns out of range and stores nothing.
    const int64_t chunkCols = 4 * spec.lanes;
    Value trips = kb.div(
        kb.add(K, kb.idx(chunkCols * spec.chunkGroups - 1)),
        chunkCols * spec.chunkGroups);
    Value first = kb.add(kb.mul(chunkGroup, chunkCols), kb.mul(lane, 4));
    kb.forLoop(kb.idx(0), trips, kb.idx(1), {},
               [&](Value t, ValueRange) -> SmallVector<Value> {
                 emitChunk(kb.add(
                     first, kb.mul(t, chunkCols * spec.chunkGroups)));
                 return {};
               });
    gpu::ReturnOp::create(b);
  }

private:
  Type vecType() { return VectorType::get({4}, b.getF32Type()); }

  /// The element offset of column c's chunk q (rows 4q .. 4q + 3 of the
  /// slice) in the unit's transposed tile.
  Value tileAt(Value c, Value q4) {
    Value swizzle =
        kb.mul(kb.rem(c, spec.sliceRows / 4), 4); // (c mod chunks) * 4
    return kb.add(tileBase,
                  kb.add(kb.mul(c, spec.sliceRows),
                         arith::XOrIOp::create(b, q4, swizzle).getResult()));
  }

  /// C[order[row], col .. col + 3] (+)= the slice's sums for this lane's 4
  /// columns `col`.
  void emitChunk(Value col) {
    Value colOk = kb.lt(col, K);
    // Lanes past K read columns K - 4 .. K - 1 (their sums are dropped).
    Value colIn = kb.min(col, kb.sub(K, kb.idx(4)));
    SmallVector<Value> inits(spec.sliceRows, kb.zero(vecType()));
    SmallVector<Type> types(spec.sliceRows, vecType());
    SmallVector<Value> acc = kb.forLoop(
        part, kb.idx(spec.width), kb.idx(spec.parts), inits,
        [&](Value i, ValueRange it) -> SmallVector<Value> {
          Value slot = kb.add(slotBase, i);
          Value bc = kb.loadIndex(params.at(::spperm::buffer::kBellBlockCol), slot);
          Value present = kb.andI(valid, kb.ge(bc, kb.idx(0)));
          stage(slot, present);
          return kb.ifThenElse(
              present, types,
              [&]() -> SmallVector<Value> {
                return emitBlock(slot, kb.mul(bc, spec.tau), colIn, colOk,
                                 it);
              },
              [&]() -> SmallVector<Value> { return SmallVector<Value>(it); });
        });
    // The sums read only A and B: with grid dependencies they overlap the
    // row kernel, and only the read-modify-write of C waits for it.
    kb.waitForPrerequisites();
    Value order = params.at(::spperm::buffer::kOrder);
    Value out = params.at(spec.accumulator ? ::spperm::call_arg::kAccumulator
                                           : ::spperm::call_arg::kC);
    for (int64_t r = 0; r < spec.sliceRows; ++r) {
      Value row = kb.add(rowBase, kb.idx(r));
      kb.ifThen(kb.andI(kb.andI(valid, colOk), kb.lt(row, spec.rows)), [&] {
        Value at = kb.add(kb.mul(kb.loadIndex(order, row), K), col);
        if (spec.parts > 1) {
          kb.atomicAddF32(acc[r], out, at);
          return;
        }
        if (spec.accumulator) {
          kb.storeF32(acc[r], out, at);
          return;
        }
        kb.storeF32(kb.fadd(kb.loadF32(out, at, 4), acc[r]), out, at);
      });
    }
  }

  /// Copies the slice's sliceRows x tau values of stored block `slot`
  /// into the unit's tile, transposed, when `present`; the two warp
  /// barriers around it are reached by every lane.
  void stage(Value slot, Value present) {
    Value all = kb.i32(-1);
    NVVM::SyncWarpOp::create(b, all);
    Value values = params.at(::spperm::buffer::kBellBlockValues);
    Value base = kb.add(kb.mul(slot, spec.tau * spec.tau),
                        kb.mul(sliceRow0, spec.tau));
    // Straight-line, in batches of 8 loads then 8 stores, so that a batch's
    // loads are in flight together (a loop would wait out each load's
    // latency); padding slots copy nothing. A slice smaller than the unit
    // (4 x 4 values for 32 lanes) leaves the lanes past it idle.
    const int64_t elements = spec.sliceRows * spec.tau;
    const int64_t perLane = (elements + spec.lanes - 1) / spec.lanes;
    kb.ifThen(present, [&] {
      for (int64_t j0 = 0; j0 < perLane; j0 += 8) {
        SmallVector<std::tuple<Value, Value, Value>> batch;
        for (int64_t j = j0; j < std::min<int64_t>(perLane, j0 + 8); ++j) {
          Value e = kb.add(lane, kb.idx(j * spec.lanes));
          if ((j + 1) * spec.lanes <= elements) {
            batch.push_back(
                {e, kb.loadF32(values, kb.add(base, e), 1), Value()});
            continue;
          }
          Value in = kb.lt(e, elements);
          batch.push_back(
              {e,
               kb.guarded(
                   in,
                   [&] { return kb.loadF32(values, kb.add(base, e), 1); },
                   kb.f32(0.0f)),
               in});
        }
        for (auto [e, v, in] : batch) {
          auto store = [&, e = e, v = v] {
            Value r = kb.div(e, spec.tau), c = kb.rem(e, spec.tau);
            Value at =
                kb.add(tileAt(c, kb.mul(kb.div(r, 4), 4)), kb.rem(r, 4));
            memref::StoreOp::create(b, v, tile, ValueRange{at});
          };
          if (in)
            kb.ifThen(in, store);
          else
            store();
        }
      }
    });
    NVVM::SyncWarpOp::create(b, all);
  }

  /// The block of `slot`, whose first column is col0, for this lane's
  /// columns `colIn` (in bounds; the lane's own when `colOk`): `unroll` B
  /// rows in flight, each multiplied with the slice's values of its column.
  /// Consecutive blocks read B rows col0 + c; condensed tiles read the rows
  /// their tile columns list (-1: none).
  SmallVector<Value> emitBlock(Value slot, Value col0, Value colIn,
                               Value colOk, ValueRange accIn) {
    Value B = params.at(::spperm::call_arg::kB);
    return kb.forLoop(
        kb.idx(0), kb.idx(spec.tau), kb.idx(spec.unroll), accIn,
        [&](Value c0, ValueRange accRange) -> SmallVector<Value> {
          SmallVector<Value> acc(accRange);
          SmallVector<Value> bRows;
          // Rows past N (the last block column's) and columns past K read
          // an in-bounds element and are replaced by zeros: a select, not a
          // branch, so the unroll's loads are in flight together.
          for (int64_t u = 0; u < spec.unroll; ++u) {
            Value c = kb.add(c0, kb.idx(u));
            Value brow, ok;
            if (spec.condensed) {
              brow = kb.loadIndex(params.at(::spperm::buffer::kBellTileCol),
                                  kb.add(kb.mul(slot, spec.tau), c));
              ok = kb.andI(colOk, kb.ge(brow, kb.idx(0)));
              brow = kb.max(brow, kb.idx(0));
            } else {
              brow = kb.add(col0, c);
              ok = kb.andI(colOk, kb.lt(brow, spec.cols));
            }
            Value at = kb.add(kb.mul(kb.min(brow, kb.idx(spec.cols - 1)), K),
                              colIn);
            bRows.push_back(
                kb.select(ok, kb.loadF32(B, at, 4), kb.zero(vecType())));
          }
          for (int64_t u = 0; u < spec.unroll; ++u) {
            Value c = kb.add(c0, kb.idx(u));
            for (int64_t q = 0; q < spec.sliceRows / 4; ++q) {
              Value a = kb.loadF32(tile, tileAt(c, kb.idx(4 * q)), 4);
              for (int64_t e = 0; e < 4; ++e) {
                Value ae =
                    vector::ExtractOp::create(b, a, ArrayRef<int64_t>{e});
                acc[4 * q + e] = kb.fma(ae, bRows[u], acc[4 * q + e]);
              }
            }
          }
          return acc;
        });
  }

  const TileKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  Value K, tile, lane, part, valid, sliceRow0, rowBase, slotBase, tileBase;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitTileKernel(gpu::GPUModuleOp module,
                                      const TileKernelSpec &spec) {
  assert(spec.tau % spec.sliceRows == 0 && spec.sliceRows % 4 == 0 &&
         spec.tau % spec.unroll == 0 && "bad tile kernel shape");
  assert((spec.accumulator || spec.operandType == ::spperm::ValueType::F32) &&
         "16-bit C is rounded once: the tile kernel writes the accumulator");
  MLIRContext *ctx = module.getContext();
  SmallVector<KernelArg> args =
      bellBlockArgs(ctx, spec.condensed, spec.valueType, spec.operandType,
                    spec.accumulator);
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  addSharedF32Buffer(func,
                     spec.threads / spec.lanes * spec.sliceRows * spec.tau);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  TileKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
