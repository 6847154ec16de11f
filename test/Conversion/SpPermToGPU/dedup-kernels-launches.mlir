// RUN: spperm-opt %s -spperm-dedup-kernels | FileCheck %s

// Written by hand: @b is @a, and the in-place launch that names it now
// names @a; @c is @a too but launched with other dynamic shared memory
// (the runtime sets a kernel's shared-memory limit for its launch), so it
// stays; @d differs in a constant.

// CHECK-LABEL: func.func @hand
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "a",
// CHECK-SAME:      spperm.kernels = [#spperm.launch<name = "a", {{.*}}>, #spperm.launch<name = "c", {{.*}}shared_bytes = 16>, #spperm.launch<name = "d",
// CHECK:       gpu.module @spperm_kernels
// CHECK-NEXT:    gpu.func @a
// CHECK:         gpu.func @c
// CHECK:         gpu.func @d
// CHECK-NOT:     gpu.func @b
module attributes {gpu.container_module} {
  func.func @hand(%a: !spperm.matrix<4x4xf32, #spperm.csr>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %c = spperm.spmm %a, %b {
      spperm.kernels = [
        #spperm.launch<name = "a", family = "csr", variant = "k8", k_min = 8, k_max = 8, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>,
        #spperm.launch<name = "c", family = "csr", variant = "k8", k_min = 8, k_max = 8, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 16>,
        #spperm.launch<name = "d", family = "csr", variant = "k8", k_min = 8, k_max = 8, k_align = 1, zero_output = false, dependent_launch = false, args = ["B", "C"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>],
      spperm.in_place_b = [
        #spperm.launch<name = "b", family = "in-place", variant = "in-place", k_min = 8, k_max = 8, k_align = 1, zero_output = false, dependent_launch = false, args = ["B_col", "C"], grid = [1, 1, 1], block = [32, 1, 1], shared_bytes = 0>]
    } : !spperm.matrix<4x4xf32, #spperm.csr>, tensor<4x8xf32> -> tensor<4x8xf32>
    return %c : tensor<4x8xf32>
  }
  gpu.module @spperm_kernels {
    gpu.func @a(%b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %i = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %c[%i] : memref<?xf32>
      gpu.return
    }
    gpu.func @b(%b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %i = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %c[%i] : memref<?xf32>
      gpu.return
    }
    gpu.func @c(%b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %i = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %c[%i] : memref<?xf32>
      gpu.return
    }
    gpu.func @d(%b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %i = arith.constant 0 : index
      %v = arith.constant 2.0 : f32
      memref.store %v, %c[%i] : memref<?xf32>
      gpu.return
    }
  }
}
