// RUN: spperm-opt %s -split-input-file -spperm-permute-rows="strategy=lpt" | FileCheck %s --check-prefix=LPT
// RUN: spperm-opt %s -split-input-file -spperm-permute-rows="strategy=hybrid-2.1 warps=16" | FileCheck %s --check-prefix=HYB
// RUN: spperm-opt %s -split-input-file -spperm-permute-rows="strategy=bsa tau=16 alpha=0.5" | FileCheck %s --check-prefix=BSA

// The multiplication uses the permuted matrix; its result type (original
// row order) does not change.

// LPT-LABEL: func.func @one_layer
// LPT:         %[[A:.*]] = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
// LPT-NEXT:    %[[P:.*]] = spperm.permute %[[A]] : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
// LPT-NEXT:    %[[C:.*]] = spperm.spmm %[[P]], %{{.*}} : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<64x32xf32> -> tensor<64x32xf32>
// LPT-NEXT:    return %[[C]]
// HYB-LABEL: func.func @one_layer
// HYB:         spperm.permute {{.*}} -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<hybrid_2_1, warps = 16>>>
// BSA-LABEL: func.func @one_layer
// BSA:         spperm.permute {{.*}} -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa, tau = 16, alpha = 5.000000e-01>>>
func.func @one_layer(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// One permute serves every multiplication by the same matrix.

// LPT-LABEL: func.func @two_uses
// LPT-COUNT-1: spperm.permute
// LPT:         spperm.spmm %[[P:.*]], %{{.*}} :
// LPT:         spperm.spmm %[[P]], %{{.*}} :
func.func @two_uses(%b: tensor<64x32xf32>, %d: tensor<64x?xf32>) -> (tensor<64x32xf32>, tensor<64x?xf32>) {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x32xf32> -> tensor<64x32xf32>
  %e = spperm.spmm %a, %d : !spperm.matrix<64x64xf32, #spperm.csr>, tensor<64x?xf32> -> tensor<64x?xf32>
  return %c, %e : tensor<64x32xf32>, tensor<64x?xf32>
}

// -----

// Case: a matrix that is already permuted is left alone.

// LPT-LABEL: func.func @already_permuted
// LPT-NOT:     spperm.permute
func.func @already_permuted(%a: !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>>, %b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// Case: a loaded matrix nobody multiplies gets no permute; other users keep
// the unpermuted value.

// LPT-LABEL: func.func @returned
// LPT-NOT:     spperm.permute
// LPT:         return %{{.*}} : !spperm.matrix<64x64xf32, #spperm.csr>
func.func @returned() -> !spperm.matrix<64x64xf32, #spperm.csr> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  return %a : !spperm.matrix<64x64xf32, #spperm.csr>
}

// -----

// A convert from the load to the multiplication takes the permutation: the
// permute goes between the load and the convert, whose result records it
// (a convert keeps the row order).

// LPT-LABEL: func.func @converted
// LPT:         %[[A:.*]] = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
// LPT-NEXT:    %[[P:.*]] = spperm.permute %[[A]] : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>>
// LPT-NEXT:    %[[H:.*]] = spperm.convert %[[P]] : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<lpt>>> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, perm = #spperm.perm<lpt>>>
// LPT-NEXT:    %[[C:.*]] = spperm.spmm %[[H]], %{{.*}} : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr, perm = #spperm.perm<lpt>>>, tensor<64x32xf32> -> tensor<64x32xf32>
func.func @converted(%b: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %a = spperm.load "a.mtx" : !spperm.matrix<64x64xf32, #spperm.csr>
  %h = spperm.convert %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>
  %c = spperm.spmm %h, %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 3, residual = csr>>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
