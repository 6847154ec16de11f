// RUN: rm -rf %t && mkdir -p %t
// RUN: %spperm_python -c "rows = [2] * 63 + [40]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 256, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/walk5.smtx
// RUN: %spperm_python -c "rows = [2] * 63 + [100]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 256, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/short.smtx
// RUN: %spperm_python -c "rows = [2] * 63 + [200]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 256, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/long.smtx
// RUN: %spperm_python -c "rows = [2] * 63 + [4000]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 4096, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/huge.smtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=base-dir=%t | FileCheck %s
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu="base-dir=%t long-rows=split" | FileCheck %s --check-prefix=SPLIT

// The gates of the one-wave rule (planLongRows): 64 rows at K = 32 run all
// their groups at once, one group of 8 lanes per row (the mean is a few
// entries), so rows longer than max(4 batches of 8, 4 x mean) = 32 entries
// are long. A row of 40 entries is 5 batches of 8 for its own group:
// fewer than the 6 for which a CTA of its own pays (mode auto), fewer
// than the 24 for which a split kernel's launch pays (mode split); the
// general rule holds (max(16 steps of 8, 8 x mean) = 128) and nothing is
// long.

// CHECK-LABEL: func.func @walk5
// CHECK-NOT:     csr+long
// CHECK-NOT:     csr-split
// CHECK:         gpu.func @l0_csr_k32_0
// CHECK-NOT:       arith.cmpi sgt
// CHECK-NOT:     gpu.func @l0_csr
// CHECK:         gpu.func @l0_transpose_b
// CHECK-NOT:     gpu.func
// SPLIT-LABEL: func.func @walk5
// SPLIT-NOT:     csr-split
// SPLIT:         gpu.func @l0_csr_k32_0
// SPLIT-NOT:       arith.cmpi sgt
func.func @walk5(%b: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "walk5.smtx" : !spperm.matrix<64x256xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A row of 100 entries (13 batches) gets the row kernel's first CTA, before
// the other rows' 2; a split kernel would not pay for its launch (13 < 24
// batches), so long-rows=split leaves it whole.

// CHECK-LABEL: func.func @short
// CHECK:         family = "csr+long", {{.*}}grid = [3, 1, 1]
// CHECK:         memref.global "private" constant @l0_long_rows_1 : memref<1xi32> = dense<63>
// CHECK:         gpu.func @l0_csr_k32_0
// CHECK:           arith.cmpi sgt, %{{.*}}, %c32
// SPLIT-LABEL: func.func @short
// SPLIT-NOT:     csr-split
// SPLIT-NOT:     chunks
// SPLIT:         gpu.func @l0_csr_k32_0
// SPLIT-NOT:       arith.cmpi sgt
// SPLIT-NOT:     gpu.func @l0_csr
// SPLIT:         gpu.func @l0_transpose_b
// SPLIT-NOT:     gpu.func
func.func @short(%b: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "short.smtx" : !spperm.matrix<64x256xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A row of 200 entries (25 batches): a CTA in mode auto, 13 chunks of 16
// in a split kernel in mode split.

// CHECK-LABEL: func.func @long
// CHECK:         family = "csr+long", {{.*}}grid = [3, 1, 1]
// CHECK-NOT:     csr-split
// SPLIT-LABEL: func.func @long
// SPLIT:         family = "csr-split"
// SPLIT:         memref.global "private" constant @l0_chunks_0 : memref<39xi32>
// SPLIT:         gpu.func @l0_csr_k32_1
// SPLIT:           arith.cmpi sgt, %{{.*}}, %c32
// SPLIT:         gpu.func @l0_csr_split_k32_2
func.func @long(%b: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "long.smtx" : !spperm.matrix<64x256xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A row of 4000 entries: one CTA of 32 groups would walk it in 16 steps of
// 8 entries, past the 12 batches a CTA may take, so mode auto splits it
// too (the mean is 64.5 entries, 16 groups per row: the threshold is 512
// entries, the row 16 chunks of 256).

// CHECK-LABEL: func.func @huge
// CHECK:         family = "csr-split"
// CHECK-NOT:     csr+long
// CHECK:         memref.global "private" constant @l0_chunks_0 : memref<48xi32>
// CHECK:           arith.cmpi sgt, %{{.*}}, %c512
// SPLIT-LABEL: func.func @huge
// SPLIT:         family = "csr-split"
func.func @huge(%b: tensor<4096x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "huge.smtx" : !spperm.matrix<64x4096xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x4096xf32, #spperm.csr>, tensor<4096x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
