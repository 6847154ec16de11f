// RUN: rm -rf %t && mkdir -p %t
// RUN: %spperm_python -c "rows = [2] * 63 + [100]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 256, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/short.smtx
// RUN: %spperm_python -c "rows = [2] * 63 + [200]; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 256, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/long.smtx
// RUN: spperm-opt %s -split-input-file -spperm-lower-to-gpu=base-dir=%t | FileCheck %s

// The one-wave split rule's gate (splitThreshold): 64 rows at K = 32 run
// all their groups at once, one group of 8 lanes per row (the mean is ~4
// entries). A row of 100 entries is 13 batches of 8: less than the 24 that
// pay for the split kernel's launch, so the general rule holds
// (max(16 steps of 8, 8 x mean) = 128 entries) and nothing is split.

// CHECK-LABEL: func.func @short
// CHECK-NOT:     csr-split
// CHECK-NOT:     chunks
// CHECK:         gpu.func @short_0_csr_k32_0
// CHECK-NOT:       arith.cmpi sgt
// CHECK-NOT:     gpu.func
// CHECK-LABEL: func.func @long
func.func @short(%b: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "short.smtx" : !spperm.matrix<64x256xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// A row of 200 entries (25 batches) passes the gate: the threshold is
// max(4 batches of 8, 4 x mean) = 32 entries, and the row becomes 13 chunks
// of 16 in the split kernel.

// CHECK:         family = "csr-split"
// CHECK:         memref.global "private" constant @long_0_chunks_0 : memref<39xi32>
// CHECK:         gpu.func @long_0_csr_k32_1
// CHECK:           arith.cmpi sgt, %{{.*}}, %c32
// CHECK:         gpu.func @long_0_csr_split_k32_2
func.func @long(%b: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "long.smtx" : !spperm.matrix<64x256xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
