// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s --check-prefix=AUTO
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-slices=1 k-buckets=0" | FileCheck %s --check-prefix=ONE
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-slices=2 k-buckets=0" | FileCheck %s --check-prefix=TWO
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-slices=-1 2>&1 | FileCheck %s --check-prefix=BAD

// K slices: 64 rows cannot fill the GPU, so with K = 128 baked in each row
// gets 4 slices of 32 columns (groups of 8 lanes, 4 columns each), one per
// set of 8 CTAs (slice-major): 32 CTAs, the slice is blockIdx / 8, and the
// kernel covers only its slice's 32 columns of K (no loop over K's tiles).
// AUTO-LABEL: func.func @slices
// AUTO:         name = "l0_csr_k128_0", family = "csr", {{.*}}grid = [32, 1, 1]
// AUTO-LABEL: gpu.func @l0_csr_k128_0
// AUTO:         %[[BID:.*]] = gpu.block_id  x
// AUTO:         %[[SLICE:.*]] = arith.shrui %[[BID]], %c3{{.*}} : index
// AUTO:         arith.andi %[[BID]], %c7{{.*}} : index
// AUTO:         %[[FIRST:.*]] = arith.muli %[[SLICE]], %c32{{.*}} : index
// AUTO:         arith.addi %[[FIRST]], %{{.*}} : index
// AUTO-NOT:     scf.for %{{.*}} = %[[FIRST]]
// AUTO:         gpu.return

// k-slices=1: one group of 32 lanes covers K; 8 CTAs walk K's one tile.
// ONE-LABEL: func.func @slices
// ONE:         name = "l0_csr_k128_0", {{.*}}grid = [8, 1, 1]
// ONE-LABEL: gpu.func @l0_csr_k128_0
// ONE-NOT:     arith.shrui %block_id_x
// ONE:         scf.for %{{.*}} = %c0{{.*}} to %c128{{.*}} step %c128

// k-slices=2: slices of 64 columns (16 lanes).
// TWO-LABEL: func.func @slices
// TWO:         grid = [16, 1, 1]
// TWO-LABEL: gpu.func @l0_csr_k128_0
// TWO:         arith.muli %{{.*}}, %c64{{.*}} : index

// BAD: spperm-lower-to-gpu: k-slices must be an integer in [0, 1024], got -1
func.func @slices(%b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x128xf32> -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// Without a static K nothing is sliced: the K-agnostic variants loop over
// K's tiles (8 CTAs each, as with k-slices=1).
// AUTO-LABEL: func.func @dynamic
// AUTO:         name = "l0_csr_vec4_g32_4", {{.*}}grid = [8, 1, 1]
// ONE-LABEL: func.func @dynamic
// TWO-LABEL: func.func @dynamic
// TWO:         name = "l0_csr_vec4_g32_4", {{.*}}grid = [8, 1, 1]
func.func @dynamic(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// K > 128 baked in is always sliced. 64 rows of 28 entries on average:
// slices of 32 columns (8 lanes), 16 of them, 8 CTAs each.
// AUTO-LABEL: func.func @wide
// AUTO:         name = "l0_csr_k512_0", family = "csr", {{.*}}grid = [128, 1, 1]
// AUTO-LABEL: gpu.func @l0_csr_k512_0
// AUTO:         %[[BID:.*]] = gpu.block_id  x
// AUTO:         %[[SLICE:.*]] = arith.shrui %[[BID]], %c3{{.*}} : index
// AUTO:         %[[FIRST:.*]] = arith.muli %[[SLICE]], %c32{{.*}} : index
// AUTO:         arith.addi %[[FIRST]], %{{.*}} : index
// AUTO-NOT:     scf.for %{{.*}} = %[[FIRST]]
// AUTO:         gpu.return
// ONE-LABEL: func.func @wide
// ONE:         name = "l0_csr_k512_0", {{.*}}grid = [8, 1, 1]
// k-slices=2 asks for 256 columns a slice; a group covers at most 128, so
// it gets 4 slices.
// TWO-LABEL: func.func @wide
// TWO:         name = "l0_csr_k512_0", {{.*}}grid = [32, 1, 1]
func.func @wide(%b: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x512xf32> -> tensor<64x512xf32>
  return %c : tensor<64x512xf32>
}

// -----

// Rows shorter than 16 entries on average: slices of 128 columns (a warp
// of 32 lanes each), one CTA per slice.
// AUTO-LABEL: func.func @wide_short
// AUTO:         name = "l0_csr_k256_0", family = "csr", {{.*}}grid = [2, 1, 1]
// AUTO-LABEL: gpu.func @l0_csr_k256_0
// AUTO:         %[[BID:.*]] = gpu.block_id  x
// AUTO:         %[[FIRST:.*]] = arith.muli %[[BID]], %c128{{.*}} : index
// AUTO:         arith.addi %[[FIRST]], %{{.*}} : index
// AUTO-NOT:     scf.for %{{.*}} = %[[FIRST]]
// AUTO:         gpu.return
// ONE-LABEL: func.func @wide_short
// ONE:         name = "l0_csr_k256_0", {{.*}}grid = [1, 1, 1]
// TWO-LABEL: func.func @wide_short
func.func @wide_short(%b: tensor<5x256xf32>) -> tensor<4x256xf32> {
  %a = spperm.load "../../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x256xf32> -> tensor<4x256xf32>
  return %c : tensor<4x256xf32>
}
