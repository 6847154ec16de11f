//===- HbpKernels.cpp - The HBP (hash-based 2-D partition) kernel ---------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// The HBP kernel (docs/Formats.md, "hbp"; docs/Kernels.md, "Families"):
// lane t of a warp group walks its row's entries from
// begin_nnz + t - zero_row — following its add_sign chain, or with the
// whole warp, a batch of the group's rounds at a time through a window of
// add_sign in shared memory (HbpWalk) — and adds the partial row into
// C[order[row]]. A
// work item is a stored block's groups (all of them, the seed's warp per
// block, or one, when the blocks alone would leave the GPU idle) in one
// K slice of vec x unroll columns of C; the grid has one run of CTAs per
// slice. A warp first runs its format warp's fixed blocks, then takes
// competitive items by atomic ticket until none is left; the last warp to
// finish resets the counters for the next launch. The two counters (ticket,
// finished warps) are the "tickets" parameter, which the runtime provides
// per stream (docs/RuntimeABI.md, "Ownership and threading"): launches on
// different streams never share them, and launches on one stream run one
// after the other. The combine step is the atomic addition into C, which
// the runtime clears before the launch; with 16-bit operands (B and the
// values widened as they are read) into the cleared fp32 accumulator
// instead, which the round kernel after it rounds into C once
// (docs/Kernels.md, "Half precision"). When a warp runs whole blocks and
// the column block's tile of B (colBlock x slice columns) fits, the warp
// first copies it into its slice of shared memory (coalesced), and the
// chains read B from there. When a warp runs one group with the rounds
// walk, its work items are parts of groups instead: a constant table of
// (group, first entry, live lanes, end) taken by ticket, the parts of a
// group adding into C atomically like the blocks of a block row.
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "KernelBuilder.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Package.h"

using namespace mlir;
using namespace mlir::spperm::codegen;

namespace {

class HbpKernelEmitter {
public:
  HbpKernelEmitter(const HbpKernelSpec &spec, gpu::GPUFuncOp func,
                   ImplicitLocOpBuilder &b)
      : spec(spec), func(func), b(b), kb(b) {}

  void emit(ArrayRef<KernelArg> args) {
    for (auto [i, a] : llvm::enumerate(args))
      params[a.name] = func.getArgument(i);
    K = spec.k > 0 ? kb.idx(spec.k) : params[::spperm::call_arg::kK];
    const int64_t warpsPerCta = spec.threads / kWarpSize;
    const int64_t ctasPerSlice = spec.ctasPerSlice();
    const int64_t width = spec.sliceColumns();
    slices = kb.div(kb.add(K, width - 1), width);
    Value tid = kb.threadIdX();
    Value cta = kb.blockIdX();
    Value slice = kb.div(cta, ctasPerSlice);
    // The slice's warp v runs group v % groupWarps of format warp
    // v / groupWarps's blocks (every group when groupWarps is 1).
    Value virtualWarp = kb.add(kb.mul(kb.rem(cta, ctasPerSlice), warpsPerCta),
                               kb.div(tid, kWarpSize));
    Value warp = kb.div(virtualWarp, spec.groupWarps);
    Value group =
        spec.groupWarps > 1 ? kb.rem(virtualWarp, spec.groupWarps) : Value();
    lane = kb.rem(tid, kWarpSize);
    if (spec.sharedTile) {
      tile = func.getWorkgroupAttributions().front();
      tileBase = kb.mul(kb.div(tid, kWarpSize), spec.colBlock * width);
    }
    if (spec.walk == HbpWalk::Rounds) {
      window = func.getWorkgroupAttributions().back();
      windowBase = kb.mul(kb.div(tid, kWarpSize), spec.windowEntries());
    }
    kb.ifThen(kb.lt(virtualWarp, spec.warps * spec.groupWarps), [&] {
      if (spec.parts > 0) {
        emitCompetitive();
        return;
      }
      Value ptr = params.at(::spperm::buffer::kHbpFixedBlockPtr);
      Value fixed = params.at(::spperm::buffer::kHbpFixedBlocks);
      Value lo = kb.loadIndex(ptr, warp);
      Value hi = kb.loadIndex(ptr, kb.add(warp, 1));
      Value kBegin = kb.mul(slice, width);
      kb.forLoop(lo, hi, kb.idx(1), {},
                 [&](Value i, ValueRange) -> SmallVector<Value> {
                   processBlock(kb.loadIndex(fixed, i), kBegin, group);
                   return {};
                 });
      if (spec.competitive > 0)
        emitCompetitive();
    });
    gpu::ReturnOp::create(b);
  }

private:
  /// Where the partial rows are added: C, or the fp32 accumulator for
  /// 16-bit operands.
  Value output() {
    return params.at(spec.operandType == ::spperm::ValueType::F32
                         ? ::spperm::call_arg::kC
                         : ::spperm::call_arg::kAccumulator);
  }

  /// Takes tickets until the competitive work runs out, then counts the
  /// warp as finished; the last one resets both counters. A ticket is a
  /// (competitive block, group, K slice) item, block-major, so the
  /// heaviest blocks go first (with groupWarps 1 an item is every group),
  /// or with a part table a (part, K slice) item, longest parts first.
  void emitCompetitive() {
    Value counters = params.at(::spperm::call_arg::kTickets);
    Value first = kb.eq(lane, kb.idx(0));
    Value competitive = params.at(::spperm::buffer::kHbpCompetitiveBlocks);
    Value perBlock = kb.mul(slices, spec.groupWarps);
    Value items = kb.mul(perBlock, spec.competitive);
    scf::WhileOp::create(
        b, TypeRange{b.getIndexType()}, ValueRange{},
        [&](OpBuilder &nested, Location, ValueRange) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value ticket = kb.guarded(
              first,
              [&] { return kb.atomicAddI32(counters, kb.idx(0), kb.i32(1)); },
              kb.i32(0));
          ticket = kb.toIndex(kb.shuffleIdx(ticket, kb.idx(0), kWarpSize,
                                            kb.i32(-1)));
          scf::ConditionOp::create(b, kb.lt(ticket, items), ValueRange{ticket});
        },
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value block = arith::DivUIOp::create(b, args[0], perBlock);
          Value item = arith::RemUIOp::create(b, args[0], perBlock);
          Value slice = arith::RemUIOp::create(b, item, slices);
          Value kBegin = kb.mul(slice, spec.sliceColumns());
          if (spec.parts > 0) {
            processPart(block, kBegin);
          } else {
            Value group =
                spec.groupWarps > 1
                    ? arith::DivUIOp::create(b, item, slices).getResult()
                    : Value();
            processBlock(kb.loadIndex(competitive, block), kBegin, group);
          }
          scf::YieldOp::create(b, ValueRange{});
        });
    kb.ifThen(first, [&] {
      Value done = kb.toIndex(kb.atomicAddI32(counters, kb.idx(1), kb.i32(1)));
      Value all = kb.mul(slices, spec.warps * spec.groupWarps);
      kb.ifThen(kb.eq(done, kb.sub(all, kb.idx(1))), [&] {
        memref::StoreOp::create(b, kb.i32(0), counters, ValueRange{kb.idx(0)});
        memref::StoreOp::create(b, kb.i32(0), counters, ValueRange{kb.idx(1)});
      });
    });
  }

  /// Whether column kBegin + u * vec of C is inside K: always for the first
  /// vector, and for every one when the slices divide K.
  Value inside(Value kBegin, int64_t u) {
    if (u == 0 || (spec.k > 0 && spec.k % spec.sliceColumns() == 0))
      return Value();
    return kb.lt(kb.add(kBegin, u * spec.vec), K);
  }

  /// Stored block `s` in the K slice from column kBegin: (the B tile, then)
  /// warp group by warp group, or only `group` when there is one, each
  /// lane's partial row added into C.
  void processBlock(Value s, Value kBegin, Value group) {
    const int64_t R = spec.rowBlock, groups = R / kWarpSize;
    auto [blockRow, colBase] = blockOrigin(s);
    Value zeroRow = params.at(::spperm::buffer::kHbpZeroRow);
    Value beginNnz = params.at(::spperm::buffer::kHbpBeginNnz);
    if (spec.sharedTile)
      loadTile(colBase, kBegin);
    Value firstGroup = group ? group : kb.idx(0);
    Value endGroup = group ? kb.add(group, 1) : kb.idx(groups);
    kb.forLoop(
        firstGroup, endGroup, kb.idx(1), {},
        [&](Value g, ValueRange) -> SmallVector<Value> {
          Value slot = kb.add(kb.add(kb.mul(s, R), kb.mul(g, kWarpSize)), lane);
          Value zr = kb.loadIndex(zeroRow, slot);
          Value has = kb.ge(zr, kb.idx(0));
          Value first = kb.add(kb.mul(s, groups), g);
          auto outputRow = [&] { return outputRowOf(blockRow, slot); };
          if (spec.walk == HbpWalk::Chain) {
            // Lanes without a row stay out.
            kb.ifThen(has, [&] {
              Value orow = outputRow();
              Value j0 =
                  kb.sub(kb.add(kb.loadIndex(beginNnz, first), lane), zr);
              addRow(orow, kBegin, walkChain(j0, kBegin, colBase));
            });
            return {};
          }
          // The whole warp walks the rounds (ballots, warp barriers); a lane
          // without a row walks along, dead, at the group's first entry.
          Value orow = kb.guarded(has, outputRow, kb.idx(0));
          Value begin = kb.loadIndex(beginNnz, first);
          Value j0 = kb.select(has, kb.sub(kb.add(begin, lane), zr), begin);
          SmallVector<Value> sums = walkRounds(begin, has, j0, kBegin, colBase);
          kb.ifThen(has, [&] { addRow(orow, kBegin, sums); });
          return {};
        });
  }

  /// Stored block `s`'s block row and its first column.
  std::pair<Value, Value> blockOrigin(Value s) {
    Value block = kb.loadIndex(params.at(::spperm::buffer::kHbpBlocks), s);
    return {kb.div(block, spec.blockCols),
            kb.mul(kb.rem(block, spec.blockCols), spec.colBlock)};
  }

  /// The row of C of the lane's slot `slot` in block row `blockRow` (a
  /// slot past M has no entries).
  Value outputRowOf(Value blockRow, Value slot) {
    Value outputHash = params.at(::spperm::buffer::kHbpOutputHash);
    Value prow =
        kb.add(kb.mul(blockRow, spec.rowBlock), kb.loadIndex(outputHash, slot));
    return kb.loadIndex(params.at(::spperm::buffer::kOrder), prow);
  }

  /// Adds the lane's partial row (one sum per `vec` columns from column
  /// kBegin) into row `orow` of C.
  void addRow(Value orow, Value kBegin, ArrayRef<Value> sums) {
    for (auto [u, sum] : llvm::enumerate(sums)) {
      Value at = kb.add(kb.mul(orow, K),
                        kb.add(kBegin, static_cast<int64_t>(u) * spec.vec));
      // Scalar atomics even on sm_90: each lane adds to its own row, and
      // one red.global.add.v4.f32 per lane was slower (docs/Kernels.md,
      // "Families", hbp).
      auto add = [&, sum = sum] { kb.atomicAddF32(sum, output(), at); };
      if (Value in = inside(kBegin, u))
        kb.ifThen(in, add);
      else
        add();
    }
  }

  /// Part `p` of the part table in the K slice from column kBegin: the
  /// warp walks the part's rounds from its first entry, where its live
  /// lanes' entries are in lane order, to the entry after it, and adds
  /// the lanes' partial rows into C (other parts of the group add theirs).
  void processPart(Value p, Value kBegin) {
    const int64_t groups = spec.rowBlock / kWarpSize;
    auto type = MemRefType::get({spec.parts * kHbpPartFields}, b.getI32Type());
    Value table = memref::GetGlobalOp::create(b, type, spec.partTable);
    Value at = kb.mul(p, kHbpPartFields);
    Value group = kb.loadIndex(table, at);
    Value begin = kb.loadIndex(table, kb.add(at, 1));
    Value live = kb.load(table, kb.add(at, 2));
    Value end = kb.loadIndex(table, kb.add(at, 3));
    Value s = kb.div(group, groups);
    auto [blockRow, colBase] = blockOrigin(s);
    Value lane32 = kb.toI32(lane);
    Value bit = arith::ShLIOp::create(b, kb.i32(1), lane32);
    Value has = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                      kb.andI(live, bit), kb.i32(0));
    // The lane's rank among the live lanes is its entry in the first round.
    Value before = kb.andI(live, kb.sub(bit, kb.i32(1)));
    Value rank = kb.toIndex(LLVM::CtPopOp::create(b, b.getI32Type(), before));
    Value orow = kb.guarded(
        has,
        [&] {
          return outputRowOf(blockRow, kb.add(kb.mul(group, kWarpSize), lane));
        },
        kb.idx(0));
    Value j0 = kb.select(has, kb.add(begin, rank), begin);
    SmallVector<Value> sums = walkRounds(begin, has, j0, kBegin, colBase, end);
    kb.ifThen(has, [&] { addRow(orow, kBegin, sums); });
  }

  /// Copies B[colBase .. colBase + colBlock, kBegin .. kBegin + width)
  /// into the warp's tile (zero past N and past K), between two warp
  /// barriers.
  void loadTile(Value colBase, Value kBegin) {
    const int64_t width = spec.sliceColumns();
    Value all = kb.i32(-1);
    NVVM::SyncWarpOp::create(b, all);
    Value B = params.at(::spperm::call_arg::kB);
    kb.forLoop(lane, kb.idx(spec.colBlock), kb.idx(kWarpSize), {},
               [&](Value c, ValueRange) -> SmallVector<Value> {
                 Value col = kb.add(colBase, c);
                 Value in = kb.lt(col, spec.cols);
                 for (int64_t e = 0; e < width; ++e) {
                   Value kCol = kb.add(kBegin, e);
                   Value ok = kb.andI(in, kb.lt(kCol, K));
                   Value v = kb.guarded(
                       ok,
                       [&] {
                         return kb.loadF32(B, kb.add(kb.mul(col, K), kCol), 1);
                       },
                       kb.f32(0.0f));
                   memref::StoreOp::create(
                       b, v, tile,
                       ValueRange{kb.add(tileBase,
                                         kb.add(kb.mul(c, width), kb.idx(e)))});
                 }
                 return {};
               });
    NVVM::SyncWarpOp::create(b, all);
  }

  /// The `vec` columns of B from column kBegin + u * vec of row c (zero
  /// past K), from the tile when there is one.
  Value loadB(Value c, Value kBegin, Value colBase, int64_t u, Type accType) {
    if (spec.sharedTile) {
      Value at = kb.add(tileBase,
                        kb.add(kb.mul(kb.sub(c, colBase), spec.sliceColumns()),
                               u * spec.vec));
      SmallVector<Value> elems;
      for (int64_t e = 0; e < spec.vec; ++e)
        elems.push_back(kb.load(tile, kb.add(at, kb.idx(e))));
      return spec.vec == 1 ? elems[0]
                           : vector::FromElementsOp::create(
                                 b, cast<VectorType>(accType), elems)
                                 .getResult();
    }
    Value B = params.at(::spperm::call_arg::kB);
    auto load = [&] {
      return kb.loadF32(B, kb.add(kb.mul(c, K), kb.add(kBegin, u * spec.vec)),
                        spec.vec);
    };
    if (Value in = inside(kBegin, u))
      return kb.guarded(in, load, kb.zero(accType));
    return load();
  }

  /// The lane's sums over its chain from entry j0, one per `vec` columns of
  /// the slice: a do-while over add_sign (the last entry has add_sign -1),
  /// software-pipelined so that the next entry's col/data/add_sign loads
  /// are issued before this entry's product waits for B.
  SmallVector<Value> walkChain(Value j0, Value kBegin, Value colBase) {
    Value col = params.at(::spperm::buffer::kHbpCol);
    Value data = params.at(::spperm::buffer::kHbpData);
    Value addSign = params.at(::spperm::buffer::kHbpAddSign);
    Type accType = spec.vec == 1
                       ? Type(b.getF32Type())
                       : Type(VectorType::get({spec.vec}, b.getF32Type()));
    const int64_t U = spec.unroll;
    Type idxType = b.getIndexType(), f32 = b.getF32Type();
    SmallVector<Type> types = {idxType, idxType, f32, idxType};
    SmallVector<Value> inits = {j0, kb.loadIndex(col, j0),
                                kb.loadF32(data, j0, 1),
                                kb.loadIndex(addSign, j0)};
    for (int64_t u = 0; u < U; ++u) {
      types.push_back(accType);
      inits.push_back(kb.zero(accType));
    }
    auto loop = scf::WhileOp::create(
        b, types, inits,
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value j = args[0], c = args[1], v = args[2], step = args[3];
          SmallVector<Value> bs;
          for (int64_t u = 0; u < U; ++u)
            bs.push_back(loadB(c, kBegin, colBase, u, accType));
          Value more = arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, step,
                                             kb.idx(0));
          Value next = kb.select(more, kb.add(j, step), j);
          SmallVector<Value> out = {next, kb.loadIndex(col, next),
                                    kb.loadF32(data, next, 1),
                                    kb.loadIndex(addSign, next)};
          for (int64_t u = 0; u < U; ++u)
            out.push_back(kb.fma(v, bs[u], args[4 + u]));
          scf::ConditionOp::create(b, more, out);
        },
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          scf::YieldOp::create(b, args);
        });
    return SmallVector<Value>(loop.getResults().drop_front(4));
  }

  /// The window of add_sign from entry `start` for the next batch of
  /// rounds: register m of lane t holds add_sign[start + 32 m + t], for
  /// the rounds' entries only (at most `live` a round; -1 past them).
  SmallVector<Value> loadWindow(Value start, Value live) {
    Value addSign = params.at(::spperm::buffer::kHbpAddSign);
    Value span = kb.mul(live, spec.rounds);
    SmallVector<Value> window;
    for (int64_t m = 0; m < spec.rounds; ++m) {
      Value at = kb.add(kb.add(start, m * kWarpSize), lane);
      Value need = kb.andI(kb.lt(kb.add(lane, m * kWarpSize), span),
                           kb.lt(at, std::max<int64_t>(spec.nnz, 1)));
      window.push_back(kb.guarded(
          need, [&] { return kb.loadInteger(addSign, at); }, kb.i32(-1)));
    }
    return window;
  }

  /// The lanes' sums over the rounds of a warp group whose entries start at
  /// `begin` (docs/Formats.md, "hbp"), lane by lane from entry j0 (`has`:
  /// the lane has a row), one per `vec` columns of the slice. A round is
  /// one contiguous run of the live lanes' entries and no round has more
  /// than the one before, so a batch of `rounds` rounds lies in the window
  /// of add_sign loaded (coalesced) from its first entry into the warp's
  /// slice of shared memory: the lanes follow their chains through it and
  /// a ballot counts each round; then the batch's col, data and B loads
  /// are all independent. The loop is software-pipelined in three stages:
  /// an iteration walks batch t and loads its col and data, loads the B
  /// vectors of batch t - 1 (its columns came with the iteration before)
  /// and multiplies batch t - 2; every load is carried to the next
  /// iteration, so none waits in the one that issues it (the next window
  /// is loaded a batch ahead too). A batch costs about one memory latency,
  /// or a shared-memory load a round if that is longer, where following
  /// add_sign in memory cost a memory latency a round. With `end` (a part,
  /// whose rounds are a whole number of batches), the walk stops at the
  /// batch that starts there.
  SmallVector<Value> walkRounds(Value begin, Value has, Value j0, Value kBegin,
                                Value colBase, Value end = Value()) {
    Value col = params.at(::spperm::buffer::kHbpCol);
    Value data = params.at(::spperm::buffer::kHbpData);
    Type accType = spec.vec == 1
                       ? Type(b.getF32Type())
                       : Type(VectorType::get({spec.vec}, b.getF32Type()));
    const int64_t U = spec.unroll, rounds = spec.rounds;
    Type idxType = b.getIndexType(), i1 = b.getI1Type(), i32 = b.getI32Type(),
         f32 = b.getF32Type();
    Value no = arith::ConstantIntOp::create(b, 0, 1);
    // Carried: the next batch's first entry, the lane's entry, whether it
    // is live, the live lanes, its window (in registers), the sums; then
    // the last batch's columns, values and live flags; then the values, B
    // vectors and live flags of the batch before it.
    Value live = kb.countLanes(has);
    SmallVector<Type> types = {idxType, idxType, i1, idxType};
    SmallVector<Value> inits = {begin, j0, has, live};
    auto append = [&](Type type, Value init, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        types.push_back(type);
        inits.push_back(init);
      }
    };
    for (Value w : loadWindow(begin, live))
      append(i32, w, 1);
    append(accType, kb.zero(accType), U);
    append(idxType, colBase, rounds);
    append(f32, kb.f32(0.0f), rounds);
    append(i1, no, rounds);
    append(f32, kb.f32(0.0f), rounds);
    append(accType, kb.zero(accType), rounds * U);
    append(i1, no, rounds);
    const int64_t windowAt = 4, sumsAt = windowAt + rounds, colsAt = sumsAt + U,
                  valuesAt = colsAt + rounds, livesAt = valuesAt + rounds,
                  lastValuesAt = livesAt + rounds,
                  lastBAt = lastValuesAt + rounds,
                  lastLivesAt = lastBAt + rounds * U;
    // The B vectors of a batch's columns.
    auto loadBs = [&](ValueRange cols) {
      SmallVector<Value> bs;
      for (Value c : cols)
        for (int64_t u = 0; u < U; ++u)
          bs.push_back(loadB(c, kBegin, colBase, u, accType));
      return bs;
    };
    // The products of a batch: its values times its B vectors, where live.
    auto multiply = [&](ValueRange values, ValueRange bs, ValueRange lives,
                        SmallVector<Value> sums) {
      for (int64_t r = 0; r < rounds; ++r)
        for (int64_t u = 0; u < U; ++u)
          sums[u] = kb.select(
              lives[r], kb.fma(values[r], bs[r * U + u], sums[u]), sums[u]);
      return sums;
    };
    auto loop = scf::WhileOp::create(
        b, types, inits,
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value more = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                             args[3], kb.idx(0));
          if (end)
            more = kb.andI(more, kb.lt(args[0], end));
          scf::ConditionOp::create(b, more, args);
        },
        [&](OpBuilder &nested, Location, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nested.getInsertionBlock());
          Value start = args[0], pos = args[1], active = args[2];
          // The window into shared memory, between warp barriers (the
          // last batch's lanes may still read it).
          NVVM::SyncWarpOp::create(b, kb.i32(-1));
          for (int64_t m = 0; m < rounds; ++m)
            memref::StoreOp::create(
                b, args[windowAt + m], window,
                ValueRange{kb.add(windowBase, kb.add(lane, m * kWarpSize))});
          NVVM::SyncWarpOp::create(b, kb.i32(-1));
          Value next = start;
          SmallVector<Value> entries, lives;
          for (int64_t r = 0; r < rounds; ++r) {
            entries.push_back(pos);
            lives.push_back(active);
            // This entry's add_sign (a dead lane reads any).
            Value off = kb.select(active, kb.sub(pos, start), kb.idx(0));
            Value step = kb.load(window, kb.add(windowBase, off));
            next = kb.add(next, kb.countLanes(active));
            Value more = kb.andI(
                active, arith::CmpIOp::create(b, arith::CmpIPredicate::sgt,
                                              step, kb.i32(0)));
            pos = kb.select(more, kb.add(pos, kb.toIndex(step)), pos);
            active = more;
          }
          Value liveNext = kb.countLanes(active);
          SmallVector<Value> out = {next, pos, active, liveNext};
          llvm::append_range(out, loadWindow(next, liveNext));
          SmallVector<Value> cols, values;
          for (Value e : entries) {
            cols.push_back(kb.loadIndex(col, e));
            values.push_back(kb.loadF32(data, e, 1));
          }
          SmallVector<Value> bs = loadBs(args.slice(colsAt, rounds));
          llvm::append_range(
              out, multiply(args.slice(lastValuesAt, rounds),
                            args.slice(lastBAt, rounds * U),
                            args.slice(lastLivesAt, rounds),
                            SmallVector<Value>(args.slice(sumsAt, U))));
          llvm::append_range(out, cols);
          llvm::append_range(out, values);
          llvm::append_range(out, lives);
          llvm::append_range(out, args.slice(valuesAt, rounds));
          llvm::append_range(out, bs);
          llvm::append_range(out, args.slice(livesAt, rounds));
          scf::YieldOp::create(b, out);
        });
    // The last two batches: B for the last, then both products.
    ValueRange results = loop.getResults();
    SmallVector<Value> sums = multiply(
        results.slice(lastValuesAt, rounds), results.slice(lastBAt, rounds * U),
        results.slice(lastLivesAt, rounds),
        SmallVector<Value>(results.slice(sumsAt, U)));
    return multiply(results.slice(valuesAt, rounds),
                    loadBs(results.slice(colsAt, rounds)),
                    results.slice(livesAt, rounds), sums);
  }

  const HbpKernelSpec &spec;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  KernelBuilder kb;
  llvm::StringMap<Value> params;
  Value lane, K, slices, tile, tileBase, window, windowBase;
};

} // namespace

std::vector<std::string>
mlir::spperm::codegen::emitHbpKernel(gpu::GPUModuleOp module,
                                     const HbpKernelSpec &spec) {
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  Type operand = mlir::spperm::getElementType(ctx, spec.operandType);
  SmallVector<KernelArg> args = {
      {::spperm::buffer::kOrder, i32},
      {::spperm::buffer::kHbpBlocks, i32},
      {::spperm::buffer::kHbpCol, i32},
      {::spperm::buffer::kHbpData,
       mlir::spperm::getElementType(ctx, spec.valueType)},
      {::spperm::buffer::kHbpAddSign, i32},
      {::spperm::buffer::kHbpZeroRow, i32},
      {::spperm::buffer::kHbpBeginNnz, i64},
      {::spperm::buffer::kHbpOutputHash, i32},
      {::spperm::buffer::kHbpFixedBlocks, i32},
      {::spperm::buffer::kHbpFixedBlockPtr, i32},
      {::spperm::buffer::kHbpCompetitiveBlocks, i32},
      {::spperm::call_arg::kB, operand},
      outputArg(ctx, spec.operandType,
                spec.operandType != ::spperm::ValueType::F32)};
  // Only a kernel with competitive blocks takes tickets.
  if (spec.competitive > 0)
    args.push_back({::spperm::call_arg::kTickets, i32});
  args.push_back({::spperm::call_arg::kK, IndexType::get(ctx)});
  gpu::GPUFuncOp func = createKernel(module, spec.name, args, spec.threads);
  if (spec.sharedTile)
    addSharedF32Buffer(func, spec.threads / kWarpSize * spec.colBlock *
                                 spec.sliceColumns());
  if (spec.walk == HbpWalk::Rounds)
    addSharedBuffer(func, spec.threads / kWarpSize * spec.windowEntries(), i32);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  HbpKernelEmitter(spec, func, b).emit(args);
  return argNames(args);
}
