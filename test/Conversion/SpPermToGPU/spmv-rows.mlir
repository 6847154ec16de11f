// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen banded --rows 70000 --half-width 1 -o %t/banded.mtx
// RUN: spperm-opt %s -spperm-lower-to-gpu=base-dir=%t | FileCheck %s

// SpMV over many short rows (70,000 rows of at most 3 entries, more than
// 132 SMs x 64 warps of 4-lane groups): each group takes 4 consecutive rows
// in straight-line code, one entry per lane, so the 4 rows' loads are in
// flight together; 64 groups x 4 rows per CTA.

// CHECK-LABEL: func.func @spmv_rows
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "csr-spmv", variant = "k1", {{.*}}grid = [274, 1, 1]
// CHECK:       gpu.func @l0_csr_spmv_k1_0
// CHECK-NOT:     scf.for
// CHECK-COUNT-4: memref.load %{{.*}} : memref<?xf32>
// CHECK-COUNT-8: nvvm.shfl.sync bfly
// CHECK-COUNT-4: memref.store
// CHECK:         gpu.return
func.func @spmv_rows(%b: tensor<70000x1xf32>) -> tensor<70000x1xf32> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<70000x70000xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<70000x70000xf32, #spperm.csr>, tensor<70000x1xf32> -> tensor<70000x1xf32>
  return %c : tensor<70000x1xf32>
}
