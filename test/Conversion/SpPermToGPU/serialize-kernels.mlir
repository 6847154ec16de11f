// RUN: spperm-opt %s -split-input-file -pass-pipeline="builtin.module(spperm-split-kernel-module,gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90},spperm-serialize-kernels)" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -pass-pipeline="builtin.module(spperm-split-kernel-module{parts=2},gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90},spperm-serialize-kernels)" | FileCheck %s

// The parts' PTX joined into one gpu.binary @spperm_kernels: one header,
// the kernels in their order, and the global every part copied (and that
// two parts define) once, before its first use. The same however many
// parts.

// CHECK-LABEL: gpu.binary @spperm_kernels {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}assembly = "
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

// -----

// Helper functions that two kernels call, `@outer` calling `@inner`
// defined after it: each part holds copies of both, and LLVM declares
// `@inner` (a prototype, ending in ';') before `@outer` calls it. The
// joined text has the declaration once, ahead of every definition (as one
// module has it), then each definition once, in the module's order, then
// the kernels; ptxas assembles it.

// CHECK-LABEL: gpu.binary @spperm_kernels
// CHECK-SAME:  .address_size 64\0A.visible .func  (.param .b32 func_retval0) inner\0A(\0A\09.param .b32 inner_param_0\0A)\0A;\0A.visible .func  (.param .b32 func_retval0) outer(\0A\09.param .b32 outer_param_0\0A)\0A{
// CHECK-SAME:  call.uni (retval0), inner, (param0);
// CHECK-NOT:   {{(inner|outer)}}{{(\\0A)?}}(
// CHECK-SAME:  .visible .func  (.param .b32 func_retval0) inner(\0A\09.param .b32 inner_param_0\0A)\0A{
// CHECK-NOT:   ) {{(inner|outer)}}{{(\\0A)?}}(
// CHECK-SAME:  .visible .entry k0(
// CHECK-SAME:  call.uni (retval0), outer, (param0);
// CHECK-NOT:   ) {{(inner|outer)}}{{(\\0A)?}}(
// CHECK-SAME:  .visible .entry k1(
// CHECK-SAME:  call.uni (retval0), outer, (param0);
// CHECK-NOT:   ) {{(inner|outer)}}{{(\\0A)?}}(
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  gpu.module @spperm_kernels {
    gpu.func @k0(%out: memref<2xf32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %out[%c0] : memref<2xf32, 1>
      %w = llvm.call @outer(%v) : (f32) -> f32
      memref.store %w, %out[%c0] : memref<2xf32, 1>
      gpu.return
    }
    gpu.func @k1(%out: memref<2xf32, 1>) kernel {
      %c1 = arith.constant 1 : index
      %v = memref.load %out[%c1] : memref<2xf32, 1>
      %w = llvm.call @outer(%v) : (f32) -> f32
      memref.store %w, %out[%c1] : memref<2xf32, 1>
      gpu.return
    }
    llvm.func @outer(%x: f32) -> f32 attributes {no_inline} {
      %y = llvm.call @inner(%x) : (f32) -> f32
      llvm.return %y : f32
    }
    llvm.func @inner(%x: f32) -> f32 attributes {no_inline} {
      %y = llvm.fmul %x, %x : f32
      llvm.return %y : f32
    }
  }
}
