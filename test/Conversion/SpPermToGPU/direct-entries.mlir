// RUN: rm -rf %t && mkdir -p %t
// RUN: spperm-gen banded --rows 65536 --half-width 4 -o %t/banded.mtx
// RUN: spperm-gen banded --rows 16384 --half-width 4 -o %t/banded16k.mtx
// RUN: spperm-gen banded --rows 65536 --half-width 16 -o %t/wide.mtx
// RUN: spperm-gen banded --rows 65536 --half-width 11 -o %t/b23.mtx
// RUN: spperm-gen banded --rows 65536 --half-width 12 -o %t/b25.mtx
// RUN: spperm-gen banded --rows 65536 --half-width 24 -o %t/wider.mtx
// RUN: spperm-gen rmat --scale 16 --edge-factor 4 --seed 1 -o %t/rmat.mtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=base-dir=%t | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t k-buckets=32" | FileCheck %s --check-prefix=ANYK

// Direct entries in the SpMM row kernel (docs/Kernels.md, "Direct
// entries"): with 16-bit operands and K baked in, over at least 32,768 rows
// of at most 48 entries on average, none 4 times the mean or longer (and
// rows enough to fill the GPU without parts), every lane loads
// each entry's column and value itself -- no shuffles -- in a loop over
// batches of 2 (the column, B row and value of both entries before their
// multiply-adds; of 4 over rows of more than 24 entries on average), then
// the row's last entries in a loop of one.

// CHECK-LABEL: func.func @direct
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         {{memref.load|vector.load}}
// CHECK:             vector.fma
// CHECK-NOT:         {{memref.load|vector.load}}
// CHECK:             vector.fma
// CHECK-NEXT:        scf.yield
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK-NEXT:        memref.load %{{.*}} : memref<?xi16>
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK:             vector.fma
// CHECK-NEXT:        scf.yield
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           vector.store %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK:       gpu.return
func.func @direct(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// f16 operands too (here K = 128).
// CHECK-LABEL: func.func @f16
// CHECK:       gpu.func @l0_csr_k128_{{[0-9]+}}
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} step %c2{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK:             vector.load %{{.*}} : memref<?xf16>, vector<8xf16>
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:       gpu.return
func.func @f16(%b: tensor<65536x128xf16>) -> tensor<65536x128xf16> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x128xf16> -> tensor<65536x128xf16>
  return %c : tensor<65536x128xf16>
}

// -----

// fp32 operands keep the cached entries and their shuffles.
// CHECK-LABEL: func.func @f32
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<4xf32>)  : i32
// CHECK:             nvvm.shfl.sync  idx
// CHECK:       gpu.return
func.func @f32(%b: tensor<65536x32xf32>) -> tensor<65536x32xf32> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xf32, #spperm.csr>, tensor<65536x32xf32> -> tensor<65536x32xf32>
  return %c : tensor<65536x32xf32>
}

// -----

// 16,384 rows: too few. (At K = 128 they fill the GPU without parts, so
// only the bound on rows keeps the shuffle loop.)
// CHECK-LABEL: func.func @few
// CHECK:       gpu.func @l0_csr_k128_0
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<8xf32>)  : i32
// CHECK:             nvvm.shfl.sync  idx
// CHECK:       gpu.return
func.func @few(%b: tensor<16384x128xbf16>) -> tensor<16384x128xbf16> {
  %a = spperm.load "banded16k.mtx" : !spperm.matrix<16384x16384xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<16384x16384xbf16, #spperm.csr>, tensor<16384x128xbf16> -> tensor<16384x128xbf16>
  return %c : tensor<16384x128xbf16>
}

// -----

// 23 entries a row: batches of 2.
// CHECK-LABEL: func.func @mean23
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK:       gpu.return
func.func @mean23(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "b23.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// 25 entries a row: batches of 4 (all four entries' columns, B rows and
// values before their multiply-adds), then the last entries one at a time.
// CHECK-LABEL: func.func @mean25
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xi16>
// CHECK-NOT:         vector.fma
// CHECK:             vector.load %{{.*}} : memref<?xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.fma
// CHECK:             memref.load %{{.*}} : memref<?xbf16>
// CHECK-NOT:         {{memref.load|vector.load}}
// CHECK-COUNT-4:     vector.fma
// CHECK-NEXT:        scf.yield
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:       gpu.return
func.func @mean25(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "b25.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// 33 entries a row: batches of 4 too.
// CHECK-LABEL: func.func @long
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// CHECK-NOT:       nvvm.shfl.sync
// CHECK:       gpu.return
func.func @long(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "wide.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// 49 entries a row: too long (65,536 rows, enough for direct entries
// otherwise).
// CHECK-LABEL: func.func @longer
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK:           nvvm.shfl.sync  idx
// CHECK:       gpu.return
func.func @longer(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "wider.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// R-MAT: the longest rows are far over 4 times the mean.
// CHECK-LABEL: func.func @uneven
// CHECK:       gpu.func @l0_csr_k32_0
// CHECK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c4_i32 iter_args(%{{.*}}) -> (vector<8xf32>)  : i32
// CHECK:             nvvm.shfl.sync  idx
// CHECK:       gpu.return
func.func @uneven(%b: tensor<65536x32xbf16>) -> tensor<65536x32xbf16> {
  %a = spperm.load "rmat.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x32xbf16> -> tensor<65536x32xbf16>
  return %c : tensor<65536x32xbf16>
}

// -----

// K known only at run time: the K bucket's variant (K = 32 baked in) takes
// direct entries, the variants for any K keep the shuffle loop.
// ANYK-LABEL: func.func @anyk
// ANYK:       gpu.func @l0_csr_k32_0
// ANYK-NOT:       nvvm.shfl.sync
// ANYK:           scf.for %{{.*}} step %c2{{(_[0-9]+)?}} iter_args(%{{.*}}) -> (vector<8xf32>) {
// ANYK-NOT:       nvvm.shfl.sync
// ANYK:       gpu.return
// ANYK:       gpu.func @l0_csr_vec8_g4_{{[0-9]+}}
// ANYK:           scf.for %{{.*}} = %c0_i32{{.*}} to %{{.*}} step %c2_i32 iter_args(%{{.*}}) -> (vector<8xf32>)  : i32
// ANYK:             nvvm.shfl.sync  idx
// ANYK:       gpu.return
func.func @anyk(%b: tensor<65536x?xbf16>) -> tensor<65536x?xbf16> {
  %a = spperm.load "banded.mtx" : !spperm.matrix<65536x65536xbf16, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<65536x65536xbf16, #spperm.csr>, tensor<65536x?xbf16> -> tensor<65536x?xbf16>
  return %c : tensor<65536x?xbf16>
}
