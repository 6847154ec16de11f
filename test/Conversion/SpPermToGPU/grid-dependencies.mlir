// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="target=sm_80" | FileCheck %s --check-prefix=SM80

// Launch overlap (docs/Kernels.md): on sm_90 every kernel lets its
// dependents launch at its start (griddepcontrol.launch_dependents), and
// waits for the kernels before it (griddepcontrol.wait) only where it
// first touches C. The kernels after a variant's first are marked
// dependent_launch: the runtime launches them while the ones before still
// run. The bell-tile kernel stages its blocks and multiplies them with B
// (the slot loop) before its wait, so that work overlaps the row kernel;
// only the additions into C come after it. The row kernel's wait (a no-op:
// it is the variant's first kernel, launched in stream order) sits before
// its store. A variant's first kernel also waits at its very start, before
// it lets its dependents launch, so that the runtime may launch it as the
// programmatic dependent of the layer's transposing kernel (marked
// dependent_launch, which lets it launch at its own start) when B is
// column-major; in stream order both waits return at once.

// CHECK-LABEL: func.func @k32
// CHECK:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", {{.*}}dependent_launch = false, {{.*}}>, #spperm.launch<{{.*}}family = "bell-tile", {{.*}}dependent_launch = true, {{.*}}>]
// CHECK-SAME:    spperm.transpose_b = #spperm.launch<name = "l0_transpose_b", {{.*}}dependent_launch = true,
// CHECK:       gpu.func @l0_bell_k32_0
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NOT:     vector.store
// CHECK:         nvvm.griddepcontrol wait
// CHECK-NEXT:    scf.if
// CHECK:         vector.store
// CHECK:       gpu.func @l0_bell_tile_k32_1
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           nvvm.bar.warp.sync
// CHECK:           vector.load
// CHECK-NOT:       nvvm.griddepcontrol
// CHECK:         scf.yield
// CHECK:         nvvm.griddepcontrol wait
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         red.global.add.v4.f32
// CHECK:         gpu.return
// CHECK:       gpu.func @l0_transpose_b
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         gpu.return

// Before sm_90 there is no griddepcontrol: nothing is marked, nothing is
// emitted.
// SM80-LABEL: func.func @k32
// SM80:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", {{.*}}dependent_launch = false, {{.*}}>, #spperm.launch<{{.*}}family = "bell-tile", {{.*}}dependent_launch = false, {{.*}}>]
// SM80-SAME:    spperm.transpose_b = #spperm.launch<name = "l0_transpose_b", {{.*}}dependent_launch = false,
// SM80-NOT:     nvvm.griddepcontrol
// SM80:         gpu.return
func.func @k32(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

