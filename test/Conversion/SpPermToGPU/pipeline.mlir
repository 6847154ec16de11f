// RUN: spperm-opt %s -spperm-pipeline="target=sm_90 strategy=lpt format=csr" | FileCheck %s
// RUN: spperm-opt %s -spperm-pipeline="target=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: spperm-opt %s -spperm-pipeline="target=sm_100" | FileCheck %s --check-prefix=SM100

// The named pipeline: permute, convert, spperm-lower-to-gpu, then upstream
// convert-gpu-to-nvvm, nvvm-attach-target and gpu-module-to-binary: the
// kernels end up as PTX in a gpu.binary; the host function keeps its
// spperm ops with the launch descriptions. sm_90 asks PTX ISA 8.1 (the
// vector reductions; LLVM's minimum is 7.8), later targets keep their
// minimum (8.6 for sm_100), earlier ones theirs.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         spperm.permute
// CHECK:         spperm.spmm {{.*}}spperm.kernels = [{{.*}}variant = "k16"
// CHECK:       gpu.binary @spperm_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, {{.*}}assembly = "{{.*}}.version 8.1{{.*}}.target sm_90{{.*}}.visible .entry l0_csr_k16_0({{.*}}shfl.sync.idx.b32{{.*}}ld.global.v4{{.*}}st.global.v4
// SM100:       gpu.binary @spperm_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_100">, {{.*}}.version 8.6{{.*}}.target sm_100
// SM80:        gpu.binary @spperm_kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, {{.*}}.target sm_80
func.func @layer(%b: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %c : tensor<64x16xf32>
}
