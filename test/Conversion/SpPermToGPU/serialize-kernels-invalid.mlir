// RUN: spperm-opt %s -split-input-file -verify-diagnostics -spperm-serialize-kernels

// Two parts that define one symbol differently cannot be joined.

module attributes {gpu.container_module} {
  // expected-error @+1 {{kernel parts define the PTX symbol 'table' differently}}
  gpu.module @spperm_kernels_part_0 [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global external @table(1.0 : f32) {addr_space = 1 : i32} : f32
    llvm.func @k0(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @table : !llvm.ptr<1>
      %v = llvm.load %g : !llvm.ptr<1> -> f32
      llvm.store %v, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
  gpu.module @spperm_kernels_part_1 [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global external @table(2.0 : f32) {addr_space = 1 : i32} : f32
    llvm.func @k1(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %g = llvm.mlir.addressof @table : !llvm.ptr<1>
      %v = llvm.load %g : !llvm.ptr<1> -> f32
      llvm.store %v, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Parts for different targets have different headers.

module attributes {gpu.container_module} {
  // expected-error @+1 {{the PTX headers of kernel parts 0 and 1 differ}}
  gpu.module @spperm_kernels_part_0 [#nvvm.target<chip = "sm_90">] {
    llvm.func @k0(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @spperm_kernels_part_1 [#nvvm.target<chip = "sm_80">] {
    llvm.func @k1(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A part needs its target.

module attributes {gpu.container_module} {
  // expected-error @+1 {{kernel part needs exactly one target (run nvvm-attach-target first)}}
  gpu.module @spperm_kernels_part_0 {
    llvm.func @k0(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
