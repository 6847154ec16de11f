// RUN: rm -rf %t && mkdir -p %t
// RUN: %spperm_python -c "rows = [256] * 512 + [4] * 2048; offs = [0]; [offs.append(offs[-1] + n) for n in rows]; print(f'{len(rows)}, 4096, {offs[-1]}'); print(' '.join(map(str, offs))); print(' '.join(str(c) for n in rows for c in range(n)))" > %t/ranges.smtx
// RUN: spperm-opt %s -spperm-lower-to-gpu=base-dir=%t | FileCheck %s

// SpMM row ranges: 512 rows of 256 entries then 2,048 rows of 4 (sorted by
// length, 139,264 entries). At K = 32 (groups of 8 lanes) the long rows want
// 32 groups each and the short ones 1, so each run is its own launch: one
// row per CTA (32 parts of 8 lanes, reduced through shared memory), then
// 32 rows per CTA.

// CHECK-LABEL: func.func @ranges
// CHECK:         spperm.kernels = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32", {{.*}}grid = [512, 1, 1], {{.*}}>, #spperm.launch<name = "l0_csr_k32_1", family = "csr", variant = "k32", {{.*}}grid = [64, 1, 1], {{.*}}>]
// CHECK:       gpu.func @l0_csr_k32_0({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK:         gpu.barrier
// CHECK:       gpu.func @l0_csr_k32_1(
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
func.func @ranges(%b: tensor<4096x32xf32>) -> tensor<2560x32xf32> {
  %a = spperm.load "ranges.smtx" : !spperm.matrix<2560x4096xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<2560x4096xf32, #spperm.csr>, tensor<4096x32xf32> -> tensor<2560x32xf32>
  return %c : tensor<2560x32xf32>
}
