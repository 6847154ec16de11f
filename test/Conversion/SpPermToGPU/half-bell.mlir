// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu | FileCheck %s

// A bell layer with 16-bit operands at K = 512 (most entries in blocks,
// docs/Kernels.md "Half precision"): its dense blocks in the bell-tile
// kernel, which runs first and writes the fp32 accumulator ("acc")
// instead of C, B read as bf16 and widened; its parts (the layer has few
// block rows) add into the accumulator atomically, so it is cleared first
// (zero_output on a kernel that takes it). The row kernel over the residual
// runs after it, adds the accumulator to its sums and rounds C once.
// (half-tensor-cores.mlir: the precision's tensor-core variants.)

// CHECK-LABEL: func.func @bell
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[TILE:l0_bell_tile_k512_[0-9]+]]", family = "bell-tile", variant = "k512"
// CHECK-SAME:      zero_output = true, dependent_launch = false, args = ["order", "bell.block_col", "bell.block_values", "B", "acc", "K"]
// CHECK-SAME:      #spperm.launch<name = "[[ROW:l0_bell_k512_[0-9]+]]", family = "bell", variant = "k512"
// CHECK-SAME:      zero_output = false, dependent_launch = true, args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "B", "C", "acc", "K"]
// CHECK-NOT:     bell-mma
// CHECK:       gpu.func @[[ROW]](
// CHECK-SAME:      %{{.*}}: memref<?xbf16>, %[[C:.*]]: memref<?xbf16>, %[[ACC:.*]]: memref<?xf32>, %{{.*}}: index)
// CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK:           nvvm.griddepcontrol wait
// CHECK:           %[[PART:.*]] = vector.load %[[ACC]][%{{.*}}] {alignment = 32 : i64} : memref<?xf32>, vector<8xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %{{.*}}, %[[PART]] : vector<8xf32>
// CHECK:           %[[ROUNDED:.*]] = arith.truncf %[[SUM]] : vector<8xf32> to vector<8xbf16>
// CHECK:           vector.store %[[ROUNDED]], %[[C]][%{{.*}}] {alignment = 16 : i64} : memref<?xbf16>, vector<8xbf16>
// CHECK:       gpu.func @[[TILE]](
// CHECK-SAME:      %{{.*}}: memref<?xf32>, %[[B:.*]]: memref<?xbf16>, %{{.*}}: memref<?xf32>, %{{.*}}: index)
// CHECK:           vector.load %[[B]][%{{.*}}] {alignment = 8 : i64} : memref<?xbf16>, vector<4xbf16>
// CHECK:           %[[W4:.*]] = vector.bitcast %{{.*}} : vector<4xbf16> to vector<2xi32>
// CHECK:           %[[LO4:.*]] = arith.shli %[[W4]], %{{.*}} : vector<2xi32>
// CHECK:           %[[LOF4:.*]] = arith.bitcast %[[LO4]] : vector<2xi32> to vector<2xf32>
// CHECK:           %[[HI4:.*]] = arith.andi %[[W4]], %{{.*}} : vector<2xi32>
// CHECK:           %[[HIF4:.*]] = arith.bitcast %[[HI4]] : vector<2xi32> to vector<2xf32>
// CHECK:           vector.shuffle %[[LOF4]], %[[HIF4]] [0, 2, 1, 3] : vector<2xf32>, vector<2xf32>
// CHECK:           red.global.add.v4.f32
// CHECK-NOT:   gpu.func @l0_bell_mma
func.func @bell(%b: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x512xbf16> -> tensor<64x512xbf16>
  return %c : tensor<64x512xbf16>
}

// -----

// One stored block per block row (width 1): the tile kernel has one part,
// stores every element of the accumulator (no clear, no atomics); bf16
// values are widened as they are staged.

// CHECK-LABEL: func.func @one_part
// CHECK:         spperm.kernels = [#spperm.launch<name = "[[TILE:l0_bell_tile_k512_[0-9]+]]", family = "bell-tile"
// CHECK-SAME:      zero_output = false, dependent_launch = false, args = ["order", "bell.block_col", "bell.block_values", "B", "acc", "K"]
// CHECK-SAME:      family = "bell", variant = "k512"
// CHECK-SAME:      args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "B", "C", "acc", "K"]
// CHECK:       gpu.func @[[TILE]](%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %[[VALUES:.*]]: memref<?xbf16>, %{{.*}}: memref<?xbf16>, %[[ACC:.*]]: memref<?xf32>, %{{.*}}: index)
// CHECK:           memref.load %[[VALUES]]
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT:       red.global
// CHECK:           vector.store %{{.*}}, %[[ACC]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-NOT:       red.global
// CHECK:           gpu.return
func.func @one_part(%b: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
  %a = spperm.load "../../Inputs/blockdiag64.mtx" : !spperm.matrix<64x64xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xbf16, #spperm.csr>, tensor<64x512xbf16> -> tensor<64x512xbf16>
  return %c : tensor<64x512xbf16>
}

// -----

// K = 32 in bf16, 28 entries a row in blocks: the accumulator's round trip
// would cost more than the tile kernel saves, so the dense blocks stay in
// the row kernel, which stores C alone. So does K = 8, where a tile unit
// would have 2 lanes.

// CHECK-LABEL: func.func @narrow
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_bell_k32_0", family = "bell", variant = "k32"
// CHECK-SAME:      args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "bell.block_col", "bell.block_values", "B", "C", "K"]
// CHECK-NOT:     bell-tile
// CHECK-NOT:     "acc"
// CHECK:       gpu.func @l0_bell_k32_0
// CHECK-NOT:   gpu.func @l0_bell_tile
func.func @narrow(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}

// -----

// CHECK-LABEL: func.func @k8
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_bell_k8_0", family = "bell", variant = "k8"
// CHECK-NOT:     bell-tile
// CHECK-NOT:     "acc"
func.func @k8(%b: tensor<64x8xbf16>) -> tensor<64x8xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x8xbf16> -> tensor<64x8xbf16>
  return %c : tensor<64x8xbf16>
}
