// RUN: spperm-opt %s -spperm-convert-format="format=hbp" -spperm-lower-to-gpu | FileCheck %s

// bcsstk13 in the default 512 x 4096 blocks has 4 stored blocks, too few
// to fill the GPU, so a warp runs one warp group. At K = 512 the lanes
// follow their add_sign chains (no window: the rounds walk is for K <= 128),
// and the 63 groups with entries, in the 64 slices of two vectors (8
// columns) a lane, still make more than 4 warps a multiprocessor, so a
// lane takes two vectors: each entry loads two B vectors and feeds two
// multiply-adds, and the lane adds 8 columns of its partial row into C.
// 64 slices x 64 warps, in CTAs of 8.

// CHECK-LABEL: func.func @chain
// CHECK:         #spperm.launch<name = "l0_hbp_k512_0", {{.*}}grid = [512, 1, 1], block = [256, 1, 1], shared_bytes = 0>
// CHECK:         gpu.func @l0_hbp_k512_0({{.*}}: index) kernel
// CHECK:           scf.while
// CHECK:             vector.load
// CHECK:             vector.load
// CHECK-NOT:         vector.load
// CHECK:             vector.fma
// CHECK:             vector.fma
// CHECK:             scf.condition(%{{.*}}) {{.*}} : index, index, f32, index, vector<4xf32>, vector<4xf32>
// CHECK-COUNT-8:   memref.atomic_rmw addf
func.func @chain(%b: tensor<2003x512xf32>) -> tensor<2003x512xf32> {
  %a = spperm.load "../../../examples/bcsstk13.mtx.gz" : !spperm.matrix<2003x2003xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<2003x2003xf32, #spperm.csr>, tensor<2003x512xf32> -> tensor<2003x512xf32>
  return %c : tensor<2003x512xf32>
}
