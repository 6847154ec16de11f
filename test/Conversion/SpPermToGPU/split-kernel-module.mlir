// RUN: spperm-opt %s -split-input-file -spperm-split-kernel-module | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-split-kernel-module=parts=2 | FileCheck %s --check-prefix=TWO

// By default one part per kernel, in the kernels' order; each part holds a
// copy of the module's other ops (here a global) and its attributes.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT:     gpu.module @spperm_kernels {
// CHECK:         gpu.module @spperm_kernels_part_0 [#nvvm.target<chip = "sm_90">]
// CHECK-NEXT:      memref.global @table
// CHECK-NEXT:      gpu.func @k0
// CHECK-NOT:       gpu.func
// CHECK:         gpu.module @spperm_kernels_part_1 [#nvvm.target<chip = "sm_90">]
// CHECK-NEXT:      memref.global @table
// CHECK-NEXT:      gpu.func @k1
// CHECK-NOT:       gpu.func
// CHECK:         gpu.module @spperm_kernels_part_2
// CHECK-NEXT:      memref.global @table
// CHECK-NEXT:      gpu.func @k2
// CHECK-NOT:       gpu.module
// CHECK:         func.func @host

// parts=2: consecutive runs of kernels, the later part the longer.
// TWO-LABEL: module attributes {gpu.container_module}
// TWO:         gpu.module @spperm_kernels_part_0
// TWO-NEXT:      memref.global @table
// TWO-NEXT:      gpu.func @k0
// TWO-NOT:       gpu.func
// TWO:         gpu.module @spperm_kernels_part_1
// TWO-NEXT:      memref.global @table
// TWO-NEXT:      gpu.func @k1
// TWO:           gpu.func @k2
// TWO-NOT:     gpu.module
module attributes {gpu.container_module} {
  gpu.module @spperm_kernels [#nvvm.target<chip = "sm_90">] {
    memref.global @table : memref<2xf32, 1> = dense<[1.0, 2.0]>
    gpu.func @k0(%out: memref<2xf32, 1>) kernel {
      gpu.return
    }
    gpu.func @k1(%out: memref<2xf32, 1>) kernel {
      gpu.return
    }
    gpu.func @k2(%out: memref<2xf32, 1>) kernel {
      gpu.return
    }
  }
  func.func @host() {
    return
  }
}

// -----

// A module without kernels becomes one part; other gpu.modules are left
// alone.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         gpu.module @other
// CHECK:         gpu.module @spperm_kernels_part_0 {
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.module
// TWO-LABEL: module attributes {gpu.container_module}
// TWO:         gpu.module @spperm_kernels_part_0 {
// TWO-NOT:     gpu.module @spperm_kernels_part_1
module attributes {gpu.container_module} {
  gpu.module @other {
    gpu.func @k(%out: memref<2xf32, 1>) kernel {
      gpu.return
    }
  }
  gpu.module @spperm_kernels {
  }
}

// -----

// No kernel module: nothing to do.

// CHECK-LABEL: func.func @alone
// CHECK-NOT:     gpu.module
// TWO-LABEL: func.func @alone
func.func @alone() {
  return
}
