// RUN: spperm-opt %s -spperm-lower-to-gpu | FileCheck %s --check-prefix=AUTO
// RUN: spperm-opt %s -spperm-lower-to-gpu=batch=2 | FileCheck %s --check-prefix=TWO
// RUN: not spperm-opt %s -spperm-lower-to-gpu=batch=9 2>&1 | FileCheck %s --check-prefix=BAD

// The broadcast batches of the row kernels. 64 rows cannot fill the GPU, so
// by default a group's 8 cached entries are one straight-line batch: 8
// shuffle pairs and 8 B loads before the first multiply-add. (Rows of 28
// entries: 4 groups of 8 lanes per row, the row in steps of 32.)
// AUTO-LABEL: gpu.func @l0_csr_k32_0
// AUTO:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// AUTO-COUNT-8:   nvvm.shfl.sync idx {{.*}} : i32 -> i32
// AUTO:           vector.fma
// AUTO:         gpu.return

// batch=2: a loop over the group's entries in steps of 2 (no work past the
// row's end); the second entry of a step is dropped by a select when the
// row ends inside it.
// TWO-LABEL: gpu.func @l0_csr_k32_0
// TWO:         scf.for %[[J:.*]] = %c0{{.*}} to %{{.*}} step %c2
// TWO-COUNT-2:   vector.load %{{.*}} : memref<?xf32>, vector<4xf32>
// TWO:           vector.fma
// TWO:           vector.fma
// TWO:           arith.select
// TWO:           scf.yield
// TWO:         gpu.return

// BAD: spperm-lower-to-gpu: batch must be an integer in [0, 8], got 9
func.func @batches(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
