// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0 in-place-b=auto" | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0" | FileCheck %s --check-prefix=NEVER
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="k-buckets=0 in-place-b=auto narrow-indices=never" | FileCheck %s --check-prefix=WIDE
// RUN: not spperm-opt %s -split-input-file -spperm-lower-to-gpu="in-place-b=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: rm -rf %t.spp && not spperm-compile %S/../../Inputs/blocks64.mtx -o %t.spp --k 32 --in-place-b sometimes 2>&1 | FileCheck %s --check-prefix=BADFLAG
// RUN: not ls %t.spp

// BAD: for the --in-place-b option: unknown value 'sometimes' (one of: {{.*}})
// BADFLAG: spperm-compile: error: --in-place-b: unknown value 'sometimes'

// In-place kernels (docs/Kernels.md, "In-place column-major B"): with
// in-place-b=auto an fp32 csr layer with a static K of 8 to 128 gets up to
// three kernels (K not static: one per range of K, @any below) that read the caller's column-major B (B_col) where it is,
// one per shape (samples T = 8, 16, 32 a CTA; lanes a row: the mean row
// over 4 as a power of 2 in [8, 32]; row blocks enough for about 128 CTAs;
// threads what a block's rows need, in [128, 512]), in spperm.in_place_b.
// blocks64 has 64 rows of 28 entries on average: 8 lanes (28 / 4 = 7,
// rounded up to a power of 2); at K = 32 the T = 8 shape takes 4 chunks of
// samples x 32 row blocks (2 rows a block, 128 threads), staging 8 x 64
// floats (2 KiB of dynamic shared memory). Without the option (the
// default, never) no layer gets them; with narrow-indices=never they read
// the 32-bit column indices.

// NEVER-NOT: spperm.in_place_b
// NEVER-NOT: _in_place_

// CHECK-LABEL: func.func @k32
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", family = "in-place", variant = "in-place.t8.g8", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = false, args = ["order", "csr.row_ptr", "csr.col_idx.u16", "csr.values", "B_col", "C", "K"], grid = [128, 1, 1], block = [128, 1, 1], shared_bytes = 2048>,
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_1", family = "in-place", variant = "in-place.t16.g8", {{.*}}grid = [128, 1, 1], block = [128, 1, 1], shared_bytes = 4096>,
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_2", family = "in-place", variant = "in-place.t32.g8", {{.*}}grid = [64, 1, 1], block = [128, 1, 1], shared_bytes = 8192>]
// CHECK-SAME:    spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0"
// CHECK-SAME:    spperm.transpose_b = #spperm.launch<name = "l0_transpose_b"
// WIDE-LABEL:  func.func @k32
// WIDE:          spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", {{.*}}args = ["order", "csr.row_ptr", "csr.col_idx", "csr.values", "B_col", "C", "K"]
// WIDE:        gpu.func @l0_in_place_0(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xf32>,

// The kernel: it waits for the kernels before it (B may be their output)
// and lets its dependents launch; stages its chunk with 16-byte cp.async
// copies (zero-filled past K) when B's chunk is 16-byte aligned, else 4
// bytes a copy in a loop; loads its first row's bounds and batch; waits
// for the copies; walks the rows (a loop over the block's rows, a loop
// over batches of 4 entries, each batch's successor loaded before its 8
// multiply-adds from shared memory, skipped past the row's end); reduces
// the 8 lanes' sums in a transposing butterfly (offsets 4, 2, 1: 4 + 2 +
// 1 shuffles, 7 in all) and stores each lane's sample into C's row
// order[row].

// CHECK:       gpu.func @l0_in_place_0(%[[ORDER:.*]]: memref<?xi32>, %[[PTR:.*]]: memref<?xi32>, %[[COL:.*]]: memref<?xi16>, %[[VAL:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[C:.*]]: memref<?xf32>, %{{.*}}: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK:         %[[RAW:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[STAGE:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         scf.if
// CHECK:           nvgpu.device_async_copy %[[B]][%{{.*}}], %[[STAGE]][%{{.*}}], 4, %{{.*}} {bypassL1}
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             nvgpu.device_async_copy %[[B]][%{{.*}}], %[[STAGE]][%{{.*}}], 1, %{{.*}} :
// CHECK:         memref.load %[[PTR]]
// CHECK-COUNT-4: memref.load %[[COL]]
// CHECK:         %[[GROUP:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-COUNT-4:     memref.load %[[COL]]
// CHECK:             scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-8:       memref.load %[[STAGE]]
// CHECK-COUNT-7:   nvvm.shfl.sync bfly
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.if
// CHECK:             memref.load %[[ORDER]]
// CHECK:             memref.store %{{.*}}, %[[C]][%{{.*}}] : memref<?xf32>
// CHECK:         gpu.return

// T = 32 over 8 lanes: 4 samples a lane, stored as one 16-byte vector
// (T / G a multiple of 4, K a multiple of T).

// CHECK:       gpu.func @l0_in_place_2(
// CHECK:         memref.view {{.*}} to memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK:         vector.from_elements {{.*}} : vector<4xf32>
// CHECK:         vector.store {{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK:         gpu.return
func.func @k32(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// K = 36: the last chunk of samples is short (4 of 8, 16 or 32; 5, 3 and 2
// chunks), so the T = 32 kernel stores element by element, each where
// k0 + its sample is below K.

// CHECK-LABEL: func.func @k36
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", {{.*}}k_min = 36, k_max = 36, {{.*}}grid = [160, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_1", {{.*}}grid = [192, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_2", {{.*}}grid = [128, 1, 1]
// CHECK:       gpu.func @l0_in_place_2(%[[ORDER36:[^:]*]]: memref<?xi32>
// CHECK:         %[[K36:.*]] = arith.constant 36 : index
// CHECK-NOT:     vector.store
// CHECK:         memref.load %[[ORDER36]]
// CHECK:         arith.muli %{{.*}}, %[[K36]] : index
// CHECK:         arith.cmpi slt, %{{.*}}, %[[K36]] : index
// CHECK-NEXT:    scf.if
// CHECK:           memref.store
// CHECK:         gpu.return
func.func @k36(%b: tensor<64x36xf32>) -> tensor<64x36xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x36xf32> -> tensor<64x36xf32>
  return %c : tensor<64x36xf32>
}

// -----

// K = 8 keeps only the shape of 8 samples; longrow's 64 rows of 17
// entries on average get 8 lanes, its 1,024 columns 32 KiB of stage.

// CHECK-LABEL: func.func @k8
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", family = "in-place", variant = "in-place.t8.g8", {{.*}}shared_bytes = 32768>]
func.func @k8(%b: tensor<1024x8xf32>) -> tensor<64x8xf32> {
  %a = spperm.load "../../Inputs/longrow.mtx" : !spperm.matrix<64x1024xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x1024xf32, #spperm.csr>, tensor<1024x8xf32> -> tensor<64x8xf32>
  return %c : tensor<64x8xf32>
}

// -----

// Rows of 64 entries: 16 lanes. T = 8 is below G: a plain butterfly over
// offset 8 (8 shuffles), then the transposing one (4 + 2 + 1), and lanes
// 0-7 store one sample each; T = 16 = G; T = 32: 2 samples a lane,
// stored one by one.

// CHECK-LABEL: func.func @long_rows
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", family = "in-place", variant = "in-place.t8.g16", {{.*}}grid = [32, 1, 1], block = [128, 1, 1]
// CHECK-SAME:    variant = "in-place.t16.g16", {{.*}}grid = [16, 1, 1]
// CHECK-SAME:    variant = "in-place.t32.g16", {{.*}}grid = [8, 1, 1]
// CHECK:       gpu.func @l0_in_place_0(
// CHECK:         scf.for
// CHECK-COUNT-15:  nvvm.shfl.sync bfly
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:      arith.cmpi slt, %{{.*}}, %[[EIGHT]] : index
// CHECK:         gpu.return
// CHECK:       gpu.func @l0_in_place_2(
// CHECK-NOT:     vector.store
// CHECK:         gpu.return
func.func @long_rows(%b: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %a = spperm.load "../../Inputs/dense8x64.mtx" : !spperm.matrix<8x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<8x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}

// -----

// K not static (a package for any K): one kernel per range of K, of the
// first shape (8 samples) of the range's largest K, reading K from its
// parameter; a CTA whose chunk starts at or past K returns at once.

// CHECK-LABEL: func.func @any
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0_in_place_0", family = "in-place", variant = "in-place.t8.g8", k_min = 8, k_max = 8, {{[^>]*}}grid = [64, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_1", {{[^>]*}}variant = "in-place.t8.g8", k_min = 9, k_max = 16, {{[^>]*}}grid = [128, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_2", {{[^>]*}}k_min = 17, k_max = 32, {{[^>]*}}grid = [128, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_3", {{[^>]*}}k_min = 33, k_max = 64, {{[^>]*}}grid = [128, 1, 1]
// CHECK-SAME:    #spperm.launch<name = "l0_in_place_4", {{[^>]*}}k_min = 65, k_max = 128, {{[^>]*}}grid = [128, 1, 1]
// CHECK-NOT:     l0_in_place_5
// CHECK:       gpu.func @l0_in_place_2({{.*}}, %[[K:[^:]*]]: index)
// CHECK:         %[[K0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[LIVE:.*]] = arith.cmpi slt, %[[K0]], %[[K]] : index
// CHECK-NEXT:    scf.if %[[LIVE]] {
// CHECK:           arith.subi %[[K]], %[[K0]] : index
// CHECK:           arith.muli %{{.*}}, %[[K]] : index
// CHECK:           arith.cmpi slt, %{{.*}}, %[[K]] : index
// CHECK-NEXT:      scf.if
// CHECK:             memref.store
// CHECK:         gpu.return
func.func @any(%b: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c : tensor<64x?xf32>
}

// -----

// None outside the bounds: K below 8 or above 128, 16-bit operands, a
// library layer, a bell layer, a matrix without entries.

// CHECK-LABEL: func.func @k4
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @k256
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @bf16
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @library
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @bell
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @empty
// CHECK-NOT:     spperm.in_place_b
// CHECK:       gpu.module
// CHECK-NOT:     _in_place_
func.func @k4(%b: tensor<64x4xf32>) -> tensor<64x4xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x4xf32> -> tensor<64x4xf32>
  return %c : tensor<64x4xf32>
}
func.func @k256(%b: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x256xf32> -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}
func.func @bf16(%b: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xbf16> -> tensor<64x32xbf16>
  return %c : tensor<64x32xbf16>
}
func.func @library(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "../../Inputs/small.mtx" {choice = #spperm.choice<strategy = "identity", format = "cusparse", source = "forced">} : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}
func.func @bell(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @empty(%b: tensor<6x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "../../Inputs/empty4x6.mtx" : !spperm.matrix<4x6xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}

// -----

// A layer and its alternatives: the first csr variant that can have them
// gets the kernels (here the alternative; the layer itself is bell), the
// others none.

// CHECK-LABEL: func.func @layer(
// CHECK-NOT:     spperm.in_place_b
// CHECK-LABEL: func.func @layer__csr(
// CHECK:         spperm.in_place_b = [#spperm.launch<name = "l0a1_in_place_0"
// CHECK-LABEL: func.func @layer__csr2(
// CHECK-NOT:     spperm.in_place_b
// CHECK:       gpu.module
func.func @layer(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %m = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>
  %c = spperm.spmm %m, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, delta = 5.000000e-01 : f64>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @layer__csr(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.alternative_of = @layer} {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
func.func @layer__csr2(%b: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {spperm.alternative_of = @layer} {
  %a = spperm.load "../../Inputs/blocks64.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
