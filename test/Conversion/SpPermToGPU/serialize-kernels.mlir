// RUN: spperm-opt %s -pass-pipeline="builtin.module(spperm-split-kernel-module,gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90},spperm-serialize-kernels)" | FileCheck %s
// RUN: spperm-opt %s -pass-pipeline="builtin.module(spperm-split-kernel-module{parts=2},gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90},spperm-serialize-kernels)" | FileCheck %s

// The parts' PTX joined into one gpu.binary @spperm_kernels: one header,
// the kernels in their order, and the global every part copied (and that
// two parts define) once, before its first use. The same however many
// parts.

// CHECK:     gpu.binary @spperm_kernels {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}assembly = "
// CHECK-SAME:  .version 7.8\0A.target sm_90\0A.address_size 64
// CHECK-NOT:   .address_size
// CHECK-SAME:  .visible .global .align 4 .b8 table[8]
// CHECK-SAME:  .visible .entry k0(
// CHECK-NOT:   .b8 table[
// CHECK-SAME:  .visible .entry k1(
// CHECK-NOT:   .b8 table[
// CHECK-SAME:  .visible .entry k2(
// CHECK-NOT:   .entry
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  gpu.module @spperm_kernels {
    memref.global @table : memref<2xf32, 1> = dense<[1.0, 2.0]>
    gpu.func @k0(%out: memref<2xf32, 1>) kernel {
      %t = memref.get_global @table : memref<2xf32, 1>
      %c0 = arith.constant 0 : index
      %v = memref.load %t[%c0] : memref<2xf32, 1>
      memref.store %v, %out[%c0] : memref<2xf32, 1>
      gpu.return
    }
    gpu.func @k1(%out: memref<2xf32, 1>) kernel {
      %t = memref.get_global @table : memref<2xf32, 1>
      %c1 = arith.constant 1 : index
      %v = memref.load %t[%c1] : memref<2xf32, 1>
      memref.store %v, %out[%c1] : memref<2xf32, 1>
      gpu.return
    }
    gpu.func @k2(%out: memref<2xf32, 1>) kernel {
      %c1 = arith.constant 1 : index
      %v = arith.constant 3.0 : f32
      memref.store %v, %out[%c1] : memref<2xf32, 1>
      gpu.return
    }
  }
}
