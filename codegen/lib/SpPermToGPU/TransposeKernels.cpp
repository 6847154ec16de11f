//===- TransposeKernels.cpp - A column-major B made row-major -------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A layer's transposing kernel (docs/Kernels.md, "Column-major B"): the
// caller's B in column-major order (B_col, element (i, j) at i + j * rows;
// a row-major X of K x rows read as B = Xᵀ) copied into the row-major B
// (element (i, j) at i * K + j) that the layer's variants read. B is cut
// into 32 x 32 tiles; a CTA of 256 threads (8 warps) moves one tile at a
// time through shared memory, a grid-stride loop over the tiles:
//
//  * warp w reads tile rows j = w, w + 8, w + 16, w + 24 of B_col (32
//    consecutive i each, coalesced), all four loads issued before any store
//    (out-of-range elements are read at a clamped, in-range index and never
//    stored), and writes them to the shared tile;
//  * after a barrier, warp w writes rows i = w, w + 8, ... of B (32
//    consecutive j each, coalesced), reading the tile down a column; the
//    tile's rows are padded to 33 elements so that column reads hit 32
//    banks.
//
// The elements are copied as they are (f32, f16 or bf16 bits). The
// number of rows is baked in; K is too when the layer has one.
//
//===----------------------------------------------------------------------===//

#include "spperm/Conversion/SpPermToGPU.h"
#include "KernelBuilder.h"
#include "Kernels.h"

#include "spperm/Dialect/SpPerm/IR/SpPerm.h"
#include "spperm/Sparse/Package.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::spperm::codegen;

std::vector<std::string>
mlir::spperm::codegen::emitTransposeKernel(gpu::GPUModuleOp module,
                                           const TransposeKernelSpec &spec) {
  assert(spec.rows >= 1 && "a transposing kernel needs rows");
  constexpr int64_t tile = kTransposeTile;
  constexpr int64_t warps = kTransposeThreads / kWarpSize;
  static_assert(tile % warps == 0, "each warp moves whole tile rows");
  static_assert(tile == kWarpSize, "a lane indexes a tile row");
  MLIRContext *ctx = module.getContext();
  Type element = mlir::spperm::getElementType(ctx, spec.operandType);
  SmallVector<KernelArg> args = {{::spperm::call_arg::kBColumnMajor, element},
                                 {::spperm::call_arg::kB, element},
                                 {::spperm::call_arg::kK,
                                  IndexType::get(ctx)}};
  gpu::GPUFuncOp func =
      createKernel(module, spec.name, args, kTransposeThreads);
  addSharedBuffer(func, tile * (tile + 1), element);
  ImplicitLocOpBuilder b(func.getLoc(), ctx);
  b.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(b, /*vectorReductions=*/false, spec.gridDependencies);
  kb.launchDependents();
  Value in = func.getArgument(0), out = func.getArgument(1);
  Value shared = func.getWorkgroupAttributions().front();
  Value k = spec.k > 0 ? kb.idx(spec.k) : func.getArgument(2);
  const int64_t rowTiles = (spec.rows + tile - 1) / tile;
  Value kTiles = kb.div(kb.add(k, tile - 1), tile);
  Value tiles = kb.mul(kTiles, rowTiles);
  Value tid = kb.threadIdX();
  Value lane = kb.rem(tid, kWarpSize);
  Value warp = kb.div(tid, kWarpSize);
  Value lastRow = kb.idx(spec.rows - 1);
  Value lastK = kb.sub(k, kb.idx(1));
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  kb.forLoop(
      kb.blockIdX(), tiles, grid, {}, [&](Value t, ValueRange) {
        Value i0 = kb.mul(kb.rem(t, rowTiles), tile);
        Value j0 = kb.mul(kb.div(t, rowTiles), tile);
        // Read: lane = i, warp + 8r = j within the tile.
        Value i = kb.min(kb.add(i0, lane), lastRow);
        SmallVector<Value> loaded;
        for (int64_t r = 0; r < tile / warps; ++r) {
          Value j = kb.min(kb.add(j0, kb.add(warp, r * warps)), lastK);
          loaded.push_back(
              kb.load(in, kb.add(kb.mul(j, spec.rows), i)));
        }
        for (int64_t r = 0; r < tile / warps; ++r) {
          Value at = kb.add(kb.mul(kb.add(warp, r * warps), tile + 1), lane);
          memref::StoreOp::create(b, loaded[r], shared, ValueRange{at});
        }
        kb.barrier();
        // Write: warp + 8r = i, lane = j within the tile.
        Value j = kb.add(j0, lane);
        Value jIn = kb.lt(j, k);
        for (int64_t r = 0; r < tile / warps; ++r) {
          Value iLocal = kb.add(warp, r * warps);
          Value iOut = kb.add(i0, iLocal);
          Value value =
              kb.load(shared, kb.add(kb.mul(lane, tile + 1), iLocal));
          kb.ifThen(kb.andI(jIn, kb.lt(iOut, spec.rows)), [&] {
            memref::StoreOp::create(b, value, out,
                                    ValueRange{kb.add(kb.mul(iOut, k), j)});
          });
        }
        // The next tile overwrites the shared one.
        kb.barrier();
        return SmallVector<Value>{};
      });
  gpu::ReturnOp::create(b);
  return argNames(args);
}

::spperm::KernelInfo
mlir::spperm::generateTransposeKernel(gpu::GPUModuleOp kernels,
                                      int64_t rows,
                                      const KernelGenOptions &options) {
  TransposeKernelSpec spec;
  spec.name = options.prefix + "_transpose_b";
  spec.rows = std::max<int64_t>(rows, 1);
  spec.k = options.k;
  spec.operandType = options.operandType;
  spec.gridDependencies = options.gridDependencies;
  ::spperm::KernelInfo info;
  info.name = spec.name;
  info.family = info.variant = std::string(::spperm::family::kTranspose);
  info.kMin = options.k > 0 ? options.k : 1;
  info.kMax = options.k;
  info.args = emitTransposeKernel(kernels, spec);
  // The most CTAs: one per tile (a CTA's loop then runs once), up to 32 a
  // multiprocessor, four times what are resident at once; the runtime
  // launches no more than there are tiles of its K (docs/RuntimeABI.md,
  // "Column-major B").
  const int64_t rowTiles = (spec.rows + kTransposeTile - 1) / kTransposeTile;
  const int64_t most = options.multiprocessors * 32;
  info.gridX = options.k > 0
                   ? std::min(rowTiles * ((options.k + kTransposeTile - 1) /
                                          kTransposeTile),
                              most)
                   : most;
  info.blockX = kTransposeThreads;
  // With grid dependencies every variant's first kernel waits at its start
  // (LayerKernels.cpp), so the runtime may launch it as this kernel's
  // programmatic dependent; this kernel lets it launch at once.
  info.dependentLaunch = options.gridDependencies;
  return info;
}
