// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen uniform --rows 16384 --cols 131072 --density 0.00005 --seed 1 -o %t/random.mtx
// RUN: spperm-gen block --rows 16384 --cols 131072 --block 32 --block-density 0.00005 --seed 1 -o %t/blocks.mtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=0 k-slices=1" | FileCheck %s --check-prefix=ONE

// L2 panels (docs/Kernels.md): B of 131,072 rows x 128 floats (64 MiB)
// does not fit in the 50 MiB L2, one 32-column panel of it (16 MiB) does,
// and uniformly random columns leave the L2 nothing to reuse: K = 128 is
// cut into 4 slices of 32 columns (8 lanes), slice-major, 512 CTAs of 32
// rows each. Without panels 16,384 rows fill the GPU and K is not sliced.
// CHECK-LABEL: func.func @random
// CHECK:         name = "l0_csr_k128_0", family = "csr", {{.*}}grid = [2048, 1, 1]
// CHECK-LABEL: gpu.func @l0_csr_k128_0
// CHECK:         %[[BID:.*]] = gpu.block_id  x
// CHECK:         %[[SLICE:.*]] = arith.shrui %[[BID]], %c9{{.*}} : index
// CHECK:         %[[FIRST:.*]] = arith.muli %[[SLICE]], %c32{{.*}} : index
// CHECK:         arith.addi %[[FIRST]], %{{.*}} : index
// CHECK-NOT:     scf.for %{{.*}} = %[[FIRST]]
// CHECK:         gpu.return
// ONE-LABEL: gpu.func @l0_csr_k128_0
// ONE-NOT:     arith.shrui %block_id_x
// ONE:         gpu.return
func.func @random(%b: tensor<131072x128xf32>) -> tensor<16384x128xf32> {
  %a = spperm.load "random.mtx" : !spperm.matrix<16384x131072xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16384x131072xf32, #spperm.csr>, tensor<131072x128xf32> -> tensor<16384x128xf32>
  return %c : tensor<16384x128xf32>
}

// -----

// K = 512: 16 panels of 32 columns instead of the 4 slices of 128 that
// K > 128 gets otherwise.
// CHECK-LABEL: func.func @random512
// CHECK:         name = "l0_csr_k512_{{[0-9]+}}", family = "csr", {{.*}}grid = [8192, 1, 1]
func.func @random512(%b: tensor<131072x512xf32>) -> tensor<16384x512xf32> {
  %a = spperm.load "random.mtx" : !spperm.matrix<16384x131072xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16384x131072xf32, #spperm.csr>, tensor<131072x512xf32> -> tensor<16384x512xf32>
  return %c : tensor<16384x512xf32>
}

// -----

// K = 64: B (32 MiB) fits in the L2, no panels.
// CHECK-LABEL: func.func @random64
// CHECK:         name = "l0_csr_k64_{{[0-9]+}}", family = "csr", {{.*}}grid = [1024, 1, 1]
// CHECK-LABEL: gpu.func @l0_csr_k64_
// CHECK-NOT:     arith.shrui %block_id_x
// CHECK:         gpu.return
func.func @random64(%b: tensor<131072x64xf32>) -> tensor<16384x64xf32> {
  %a = spperm.load "random.mtx" : !spperm.matrix<16384x131072xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16384x131072xf32, #spperm.csr>, tensor<131072x64xf32> -> tensor<16384x64xf32>
  return %c : tensor<16384x64xf32>
}

// -----

// Dense 32 x 32 tiles: each column's B row is reused by the next rows,
// which the L2 keeps (an estimated miss share of about 1/32): no panels.
// CHECK-LABEL: func.func @blocks
// CHECK:         name = "l0_csr_k128_{{[0-9]+}}", family = "csr", {{.*}}grid = [2048, 1, 1]
// CHECK-LABEL: gpu.func @l0_csr_k128_
// CHECK-NOT:     arith.shrui %block_id_x
// CHECK:         gpu.return
func.func @blocks(%b: tensor<131072x128xf32>) -> tensor<16384x128xf32> {
  %a = spperm.load "blocks.mtx" : !spperm.matrix<16384x131072xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16384x131072xf32, #spperm.csr>, tensor<131072x128xf32> -> tensor<16384x128xf32>
  return %c : tensor<16384x128xf32>
}
