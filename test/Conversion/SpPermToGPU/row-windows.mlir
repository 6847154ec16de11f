// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=k-buckets=0 | FileCheck %s --check-prefix=AUTO
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0 row-windows=never" | FileCheck %s --check-prefix=NEVER
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0 row-windows=always" | FileCheck %s --check-prefix=ALWAYS
// RUN: not spperm-opt %s -spperm-lower-to-gpu=row-windows=bogus 2>&1 | FileCheck %s --check-prefix=BAD

// The csr-window kernel: 64 rows of 28 entries over 64 columns with
// K = 256 baked in. Two windows x one K tile of 256 columns (8 per lane) =
// 2 CTAs of 8 warps; the B rows of each chunk of 16 columns are copied
// into 2 x 16 x 256 floats of shared memory by cp.async, one chunk ahead
// (wait for all but the newest group, then a barrier), and each row's run
// of entries in the chunk is counted by a ballot. One column range: the sums are stored, C is not
// cleared first. Mode auto keeps the row kernels here (64 columns).
// ALWAYS-LABEL: func.func @windows
// ALWAYS:         name = "l0_csr_window_k256_0", family = "csr-window", variant = "k256", {{.*}}zero_output = false, {{.*}}args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"], grid = [2, 1, 1], block = [256, 1, 1]
// ALWAYS-LABEL: gpu.func @l0_csr_window_k256_0
// ALWAYS-SAME:    workgroup(%{{.*}} : memref<8192xf32, #gpu.address_space<workgroup>>
// ALWAYS-COUNT-4: nvgpu.device_async_copy {{.*}} {bypassL1}
// ALWAYS:         nvgpu.device_async_create_group
// ALWAYS:         scf.for
// ALWAYS-COUNT-4: nvgpu.device_async_copy
// ALWAYS:         nvgpu.device_async_create_group
// ALWAYS-NEXT:    nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// ALWAYS-NEXT:    gpu.barrier
// ALWAYS:         nvvm.vote.sync  ballot
// ALWAYS:         llvm.intr.ctpop
// ALWAYS-COUNT-4: vector.load {{.*}} : memref<8192xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// ALWAYS:         gpu.barrier
// ALWAYS:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// ALWAYS:         vector.store
// ALWAYS:         gpu.return
// AUTO-LABEL: func.func @windows
// AUTO-NOT:     csr-window
// AUTO:         family = "csr"
// NEVER-LABEL: func.func @windows
// NEVER-NOT:     csr-window
// NEVER:         family = "csr"

// BAD: for the --row-windows option: unknown value 'bogus' (one of: {{.*}})
func.func @windows(%b: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x256xf32> -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}

// -----

// K = 64 is less than one K tile: the row kernels.
// AUTO-LABEL: func.func @narrow
// AUTO-NOT:     csr-window
// AUTO:         family = "csr"
// ALWAYS-LABEL: func.func @narrow
// ALWAYS-NOT:     csr-window
func.func @narrow(%b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// Without a static K the csr-window kernel does not run (its grid covers
// K's tiles).
// AUTO-LABEL: func.func @dynamic
// AUTO-NOT:     csr-window
// ALWAYS-LABEL: func.func @dynamic
// ALWAYS-NOT:     csr-window
func.func @dynamic(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {
  %a = spperm.load "../../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}

// -----

// Sparse columns: 1,095 entries over 64 x 1,024 (density 0.017): auto
// keeps the row kernels, always does not.
// AUTO-LABEL: func.func @sparse
// AUTO-NOT:     csr-window
// AUTO:         family = "csr",
// ALWAYS-LABEL: func.func @sparse
// ALWAYS:         family = "csr-window"
func.func @sparse(%b: tensor<1024x128xf32>) -> tensor<64x128xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x128xf32> -> tensor<64x128xf32>
  return %c : tensor<64x128xf32>
}

// -----

// 16-bit B and C (bf16 values): one 16-byte vector of 8 columns a lane, a
// K tile of 256 columns; each chunk's 32 B rows are copied as they are
// (8 elements a copy) into 2 x 32 x 256 bf16 of shared memory, widened
// when read, and C is rounded once where it is stored.
// ALWAYS-LABEL: func.func @windows_bf16
// ALWAYS:         name = "l0_csr_window_k256_0", family = "csr-window", variant = "k256", {{.*}}zero_output = false, {{.*}}args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B", "C", "K"], grid = [2, 1, 1]
// ALWAYS-LABEL: gpu.func @l0_csr_window_k256_0
// ALWAYS-SAME:    memref<?xbf16>, %{{[^:]*}}: memref<?xbf16>, %{{[^:]*}}: memref<?xbf16>, %{{[^:]*}}: index) workgroup(%{{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>
// ALWAYS-COUNT-4: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<?xbf16> to memref<16384xbf16, #gpu.address_space<workgroup>>
// ALWAYS:         vector.load {{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// ALWAYS-NEXT:    %[[W8:.*]] = vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// ALWAYS:         %[[LO8:.*]] = arith.shli %[[W8]], %{{.*}} : vector<4xi32>
// ALWAYS:         %[[LOF8:.*]] = arith.bitcast %[[LO8]] : vector<4xi32> to vector<4xf32>
// ALWAYS:         %[[HI8:.*]] = arith.andi %[[W8]], %{{.*}} : vector<4xi32>
// ALWAYS:         %[[HIF8:.*]] = arith.bitcast %[[HI8]] : vector<4xi32> to vector<4xf32>
// ALWAYS:         vector.shuffle %[[LOF8]], %[[HIF8]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xf32>, vector<4xf32>
// ALWAYS:         arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// ALWAYS-NEXT:    vector.store %{{.*}} : memref<?xbf16>, vector<8xbf16>
func.func @windows_bf16(%b: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xbf16, #spperm.csr>, tensor<64x256xbf16> -> tensor<64x256xbf16>
  return %c : tensor<64x256xbf16>
}

// -----

// 16-bit C with column ranges: the ranges add into the fp32 accumulator
// (cleared first; two 4-wide reductions per 8 sums, 4 rows a warp) and a round kernel
// rounds it into C.
// ALWAYS-LABEL: func.func @sparse_f16
// ALWAYS:         name = "[[WINDOW:l0_csr_window_k512_[0-9]+]]", family = "csr-window", variant = "k512", {{.*}}zero_output = true, {{.*}}args = ["order", "csr.col_idx.u16", "csr.values", "B", "acc", "K"]
// ALWAYS-SAME:    name = "l0_round_k512_{{[0-9]+}}", family = "round", variant = "k512", {{.*}}dependent_launch = true, args = ["acc", "C", "K"]
// ALWAYS:         gpu.func @[[WINDOW]]
// ALWAYS-SAME:    %{{[^:]*}}: memref<?xf16>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: index) workgroup(%{{.*}} : memref<16384xf16, #gpu.address_space<workgroup>>
// ALWAYS-NOT:     arith.truncf
// ALWAYS-COUNT-8: red.global.add.v4.f32
// ALWAYS-NOT:     arith.truncf
// ALWAYS:         gpu.return
func.func @sparse_f16(%b: tensor<1024x512xf16>) -> tensor<64x512xf16> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x512xf16> -> tensor<64x512xf16>
  return %c : tensor<64x512xf16>
}

// -----

// K = 128 is less than one 16-bit K tile: the row kernels.
// ALWAYS-LABEL: func.func @narrow_bf16
// ALWAYS-NOT:     csr-window
// ALWAYS:         family = "csr"
func.func @narrow_bf16(%b: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xbf16, #spperm.csr>, tensor<64x128xbf16> -> tensor<64x128xbf16>
  return %c : tensor<64x128xbf16>
}
