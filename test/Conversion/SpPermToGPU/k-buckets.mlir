// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=48,16,48" | FileCheck %s --check-prefix=LIST
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0" | FileCheck %s --check-prefix=NONE
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=1" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=32,0" 2>&1 | FileCheck %s --check-prefix=BAD0
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not spperm-opt %s -split-input-file -spperm-pipeline="k-buckets={}" 2>&1 | FileCheck %s --check-prefix=EMPTY-PIPE

// K buckets: a layer compiled for any K gets a variant of its own for each
// bucket (by default 8, 32, 64, 128, 256 and 512), generated as for that K
// (`k<K>`, K a constant, k_min = k_max = K), ahead of the variants for
// every K, so that the runtime, which takes the first variant that accepts
// K, runs those K as a package compiled for them.

// CHECK-LABEL: func.func @any_k
// CHECK:         variant = "k8", k_min = 8, k_max = 8
// CHECK-SAME:    variant = "k32", k_min = 32, k_max = 32
// CHECK-SAME:    variant = "k64", k_min = 64, k_max = 64
// CHECK-SAME:    variant = "k128", k_min = 128, k_max = 128
// CHECK-SAME:    variant = "k256", k_min = 256, k_max = 256
// CHECK-SAME:    variant = "k512", k_min = 512, k_max = 512
// CHECK-SAME:    variant = "spmv"
// CHECK-SAME:    variant = "vec4.g2"
// CHECK-SAME:    variant = "vec4.g8"
// CHECK-SAME:    variant = "vec4.g16"
// CHECK-SAME:    variant = "vec4.g32"
// CHECK-SAME:    variant = "scalar.g32"
// The bucket kernels are the static-K kernels: K is a constant there.
// CHECK:         gpu.func @l0_csr_k128_3
// CHECK-NOT:     gpu.func
// CHECK:         arith.constant 128 : index

// A list is sorted and its duplicates dropped; 16 is not a multiple of 4
// apart from the generic classes, so it gets its own variant.
// LIST-LABEL: func.func @any_k
// LIST:         variant = "k16", k_min = 16, k_max = 16
// LIST-SAME:    variant = "k48", k_min = 48, k_max = 48
// LIST-SAME:    variant = "spmv"
// LIST-NOT:     variant = "k48"
// LIST-NOT:     variant = "k8"

// NONE-LABEL: func.func @any_k
// NONE:         name = "l0_csr_spmv_spmv_0"
// NONE-NOT:     variant = "k
// NONE:         return

// BAD: spperm-lower-to-gpu: k-buckets must be integers in [2, 65536] (or 0 alone: none), got 1
// BAD0: spperm-lower-to-gpu: k-buckets must be integers in [2, 65536] (or 0 alone: none), got 0
// An empty list is refused, not read as the default (an option not given).
// EMPTY: error: spperm-lower-to-gpu: k-buckets needs K values (2 to 65536) or 0 alone (none), got an empty list; leave it out for the default 8,32,64,128,256,512
// EMPTY-PIPE: error: spperm-pipeline: k-buckets needs K values
func.func @any_k(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// A layer compiled for one K has no buckets.
// CHECK-LABEL: func.func @static_k
// CHECK:         variant = "k64", k_min = 64, k_max = 64
// CHECK-NOT:     variant = "k
// CHECK:         return
func.func @static_k(%b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
