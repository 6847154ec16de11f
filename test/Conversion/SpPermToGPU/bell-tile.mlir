// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="target=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="target=sm_99" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: spperm-lower-to-gpu: target must be a GPU architecture such as sm_90, got 'sm_99'
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="target=sm_75" 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: spperm-lower-to-gpu: target must be sm_80 or later (the kernels use cp.async and tensor-core mma.sync), got 'sm_75'

// fp32 SpMM with K >= 12: the row kernel walks only the CSR residual and
// stores C; then the bell-tile kernel adds the dense 16 x 16 blocks. A
// unit of 8 lanes (K = 32: 4 columns each) takes the 16 rows of a block
// row; 64 x 64 has 4 block rows of 3 slots (W = 3), too few units for the
// GPU, so 4 parts share each block row's slots (parts double while fewer
// than W): 16 units, 16 per CTA of 128 threads, one CTA. Per slot: two warp
// barriers around the straight-line copy of the block's values into
// shared memory (when the slot is not padding), transposed with chunks
// XOR-swizzled; then per column of the block one
// 16-byte B load and four 16-byte value loads from shared memory feed 16
// rows' multiply-adds; the parts add their rows into C atomically: one
// red.global.add.v4.f32 (inline PTX on the element's global address) per
// row and lane on sm_90, four scalar atomics before it (SM80).

// CHECK-LABEL: func.func @k32
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", variant = "k32", {{.*}}args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "B", "C", "K"], {{.*}}>, #spperm.launch<{{.*}}family = "bell-tile", variant = "k32", {{.*}}zero_output = false, dependent_launch = true, args = ["order", "bell.block_col", "bell.block_values", "B", "C", "K"], grid = [1, 1, 1], block = [128, 1, 1], shared_bytes = 0>]
// CHECK:       gpu.func @l0_bell_k32_0
// CHECK-NOT:     bell.block_values
// CHECK:         vector.store
// CHECK:       gpu.func @l0_bell_tile_k32_1({{.*}}) workgroup(%[[TILE:arg[0-9]+]] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step %c4
// CHECK:           memref.load
// CHECK:           arith.cmpi sge
// CHECK:           nvvm.bar.warp.sync
// CHECK:           scf.if
// CHECK-COUNT-8:     memref.load %{{.*}} : memref<?xf32>
// CHECK:             arith.xori
// CHECK:             memref.store %{{.*}}, %[[TILE]]
// CHECK:           nvvm.bar.warp.sync
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK-COUNT-4:       vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-COUNT-4:       vector.load %[[TILE]]
// CHECK:               vector.fma
// One vector reduction when no element could lose a subnormal to the
// reduction's flush (every one at least 2^-102 in magnitude, NaN or infinite), else
// element by element.
// CHECK:         %[[LARGE:.*]] = arith.constant dense<1.97215226E-31> : vector<4xf32>
// CHECK:         %[[UP:.*]] = arith.cmpf uge, %[[SUMS:.*]], %[[LARGE]] : vector<4xf32>
// CHECK:         %[[NLARGE:.*]] = arith.constant dense<-1.97215226E-31> : vector<4xf32>
// CHECK:         %[[DOWN:.*]] = arith.cmpf ule, %[[SUMS]], %[[NLARGE]] : vector<4xf32>
// CHECK:         arith.ori %[[UP]], %[[DOWN]] : vector<4xi1>
// CHECK-COUNT-3: arith.andi
// CHECK:         scf.if
// CHECK:           memref.extract_aligned_pointer_as_index %{{.*}} : memref<?xf32> -> index
// CHECK:           llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:           llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f,~{memory}" {{.*}} : (!llvm.ptr<1>, f32, f32, f32, f32) -> ()
// CHECK:         } else {
// CHECK-COUNT-4:   memref.atomic_rmw addf
// CHECK:         }
// CHECK:         gpu.return
// Before sm_90 each element is added on its own: the hardware's atomic add,
// or a compare-and-swap loop where a subnormal could be flushed.
// SM80-LABEL:  gpu.func @l0_bell_tile_k32_1
// SM80-NOT:      red.global.add.v4.f32
// SM80-COUNT-4:  atom.relaxed.gpu.global.cas.b32
// SM80-NOT:      red.global.add.v4.f32
// SM80:          gpu.return
func.func @k32(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// K-agnostic: the SpMM variants of 8, 16 and 32 lanes get a tile kernel
// (looping over K in chunks of 4 x lanes columns); SpMV, K <= 8 and the
// scalar variant keep the blocks in the row kernel.

// CHECK-LABEL: func.func @any_k
// CHECK:         family = "bell-spmv"
// CHECK-NOT:     family = "bell-tile", variant = "spmv"
// CHECK-SAME:    variant = "vec4.g2"
// CHECK-NOT:     family = "bell-tile", variant = "vec4.g2"
// CHECK-SAME:    family = "bell-tile", variant = "vec4.g8"
// CHECK-SAME:    family = "bell-tile", variant = "vec4.g16"
// CHECK-SAME:    family = "bell-tile", variant = "vec4.g32"
// CHECK-NOT:     bell-tile
// CHECK-SAME:    variant = "scalar.g32"
func.func @any_k(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}
