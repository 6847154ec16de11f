// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="precision=tf32" | FileCheck %s --check-prefix=TF32
// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="precision=f16" | FileCheck %s --check-prefix=F16
// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu | FileCheck %s --check-prefix=FP32
// RUN: spperm-opt %s -spperm-convert-format="format=bell block=16 delta=0.5" -spperm-lower-to-gpu="precision=3xtf32" | FileCheck %s --check-prefix=X3
// RUN: not spperm-opt %s -spperm-lower-to-gpu="precision=bf16" 2>&1 | FileCheck %s --check-prefix=BAD

// Opt-in tensor cores for the dense 16 x 16 blocks: the variant (K a
// multiple of 8) runs the row kernel over the residual only, then warps
// per 16 rows multiply the blocks with nvgpu.mma.sync and add into C. Four
// block rows are far too few warps for the GPU: each block row's 3 slots
// are shared by 2 warps (parts; block i to part i % 2), 8 warps in 2 CTAs,
// which add their two adjacent columns of C atomically as one
// red.global.add.v2.f32.

// TF32-LABEL: func.func @layer
// TF32:         spperm.kernels = [#spperm.launch<{{.*}}family = "bell", variant = "k32.tf32", {{.*}}args = ["order", "bell.residual.row_ptr", "bell.residual.col_idx.u16", "bell.residual.values", "B", "C", "K"], {{.*}}>, #spperm.launch<{{.*}}family = "bell-tf32", variant = "k32.tf32", {{.*}}k_align = 8, zero_output = false, dependent_launch = true, args = ["order", "bell.block_col", "bell.block_values", "B", "C", "K"], grid = [2, 1, 1], block = [128, 1, 1], {{.*}}>, {{.*}}variant = "k32"
// TF32:       gpu.func @l0_bell_k32_tf32_0
// TF32:         nvvm.shfl.sync idx
// TF32:       gpu.func @l0_bell_mma_k32_tf32_1({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// TF32:         scf.for
// TF32:           vector.from_elements {{.*}} : vector<4x1xf32>
// TF32:           vector.from_elements {{.*}} : vector<2x1xf32>
// TF32:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// TF32:         %[[PAIR:.*]] = vector.extract %{{.*}}[0] : vector<2xf32> from vector<2x2xf32>
// TF32:         llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v2.f32 [$0], {$1, $2};"
// TF32-NOT:     memref.store {{.*}} : memref<?xf32>
// TF32:         gpu.return

// fp32 accuracy on the tensor cores: each fragment's elements split into
// a TF32 high part (the top 19 bits, a mask) and the rest, and three MMAs
// per fragment pair: high * low, low * high, high * high.
// X3:           family = "bell-3xtf32", variant = "k32.3xtf32"
// X3:         gpu.func @l0_bell_mma_k32_3xtf32_1
// X3:           %[[A:.*]] = vector.from_elements {{.*}} : vector<4x1xf32>
// X3:           %[[BITS:.*]] = arith.bitcast %[[A]] : vector<4x1xf32> to vector<4x1xi32>
// X3:           %[[HI:.*]] = arith.andi %[[BITS]], %{{.*}} : vector<4x1xi32>
// X3:           %[[AHI:.*]] = arith.bitcast %[[HI]] : vector<4x1xi32> to vector<4x1xf32>
// X3:           %[[ALO:.*]] = arith.subf %[[A]], %[[AHI]] : vector<4x1xf32>
// X3:           %[[BLO:.*]] = arith.subf
// X3:           %[[ACC1:.*]] = nvgpu.mma.sync(%[[AHI]], %[[BLO]], %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// X3:           %[[ACC2:.*]] = nvgpu.mma.sync(%[[ALO]], %{{.*}}, %[[ACC1]]) {mmaShape = [16, 8, 8], tf32Enabled}
// X3:           nvgpu.mma.sync(%[[AHI]], %{{.*}}, %[[ACC2]]) {mmaShape = [16, 8, 8], tf32Enabled}

// F16:          family = "bell-f16"
// F16:        gpu.func @l0_bell_mma_k32_f16_1
// F16:          arith.truncf {{.*}} : f32 to f16
// F16:          nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>

// FP32-LABEL: func.func @layer
// FP32-NOT:     bell-tf32
// FP32-NOT:   nvgpu.mma.sync

// BAD: for the --precision option: unknown value 'bf16' (one of: fp32, tf32, f16, 3xtf32){{$}}
func.func @layer(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
