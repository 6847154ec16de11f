// RUN: spperm-opt %s -split-input-file | spperm-opt -split-input-file | FileCheck %s

// Every type, attribute and op prints in a form that parses back to itself.

// CHECK-LABEL: func.func @load_csr
// CHECK: spperm.load "a.mtx" : !spperm.matrix<4x6xf32, #spperm.csr>
func.func @load_csr() -> !spperm.matrix<4x6xf32, #spperm.csr> {
  %0 = spperm.load "a.mtx" : !spperm.matrix<4x6xf32, #spperm.csr>
  return %0 : !spperm.matrix<4x6xf32, #spperm.csr>
}

// -----

// CHECK-LABEL: func.func @load_values
// CHECK: spperm.load "w.smtx.gz" {values = "random:7"}
// CHECK: spperm.load "w.smtx.gz" {values = "ones"}
// CHECK: spperm.load "w.smtx.gz" {values = "file"}
func.func @load_values() {
  %0 = spperm.load "w.smtx.gz" {values = "random:7"} : !spperm.matrix<64x256xf32, #spperm.csr>
  %1 = spperm.load "w.smtx.gz" {values = "ones"} : !spperm.matrix<64x256xf32, #spperm.csr>
  %2 = spperm.load "w.smtx.gz" {values = "file"} : !spperm.matrix<64x256xf32, #spperm.csr>
  return
}

// -----

// CHECK-LABEL: func.func @load_features
// CHECK: features = #spperm.features<{cols = 6 : i64, density = 2.500000e-01 : f64, empty_rows = 1 : i64, nnz = 6 : i64, row_nnz = {max = 3 : i64, mean = 1.500000e+00 : f64}, rows = 4 : i64}>
func.func @load_features() {
  %0 = spperm.load "a.mtx" {features = #spperm.features<{rows = 4 : i64, cols = 6 : i64, nnz = 6 : i64, density = 0.25 : f64, empty_rows = 1 : i64, row_nnz = {mean = 1.5 : f64, max = 3 : i64}}>} : !spperm.matrix<4x6xf32, #spperm.csr>
  return
}

// -----

// A hand-written density agrees with nnz / (rows * cols) to six significant
// digits (1/6 and 1/3, rounded either way).
// CHECK-LABEL: func.func @load_features_density_digits
// CHECK: density = 1.666670e-01 : f64
// CHECK: density = 3.333330e-01 : f64
func.func @load_features_density_digits() {
  %0 = spperm.load "a.mtx" {features = #spperm.features<{rows = 2 : i64, cols = 3 : i64, nnz = 1 : i64, density = 0.166667 : f64}>} : !spperm.matrix<2x3xf32, #spperm.csr>
  %1 = spperm.load "a.mtx" {features = #spperm.features<{rows = 3 : i64, cols = 1 : i64, nnz = 1 : i64, density = 0.333333 : f64}>} : !spperm.matrix<3x1xf32, #spperm.csr>
  return
}

// -----

// CHECK-LABEL: func.func @load_choice
// CHECK: spperm.load "a.mtx" {choice = #spperm.choice<strategy = "hybrid-2.1", format = "cusparse", source = "model m.json">}
func.func @load_choice() {
  %0 = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "hybrid-2.1", format = "cusparse", source = "model m.json">} : !spperm.matrix<4x6xf32, #spperm.csr>
  return
}

// -----

// CHECK-LABEL: func.func @load_choice_alternatives
// CHECK: spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "shipped model sm_90", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">, #spperm.choice<strategy = "identity", format = "csr", source = "shortlist">]>}
func.func @load_choice_alternatives() {
  %0 = spperm.load "a.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "shipped model sm_90", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">, #spperm.choice<strategy = "identity", format = "csr", source = "shortlist">]>} : !spperm.matrix<4x6xf32, #spperm.csr>
  return
}

// -----

// CHECK-LABEL: func.func @empty_shape
// CHECK-SAME: !spperm.matrix<0x0xf32, #spperm.csr>
func.func @empty_shape(%a: !spperm.matrix<0x0xf32, #spperm.csr>) {
  return
}

// -----

// Default parameters of #spperm.perm are elided when printing, bsa's tau and
// alpha too: one permutation has one spelling.

// CHECK-LABEL: func.func @perms
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<lpt>>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<warp_aware, warps = 16>>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<hybrid_2_1, line = 64>>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<bsa>>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<identity>>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<bsa, tau = 16, alpha = 5.000000e-01>>
func.func @perms(
    %a: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<lpt, warps = 32>>>,
    %b: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<warp_aware, warps = 16>>>,
    %c: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<hybrid_2_1, line = 64>>>,
    %d: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa, tau = 32, alpha = 0.3>>>,
    %e: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<identity>>>,
    %f: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa, tau = 16, alpha = 0.5>>>) {
  return
}

// CHECK-LABEL: func.func @bsa_defaults
// CHECK:         spperm.convert %{{.*}} : !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa>>> -> !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa>>>
func.func @bsa_defaults(%a: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa>>>) {
  %b = spperm.convert %a : !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa>>> -> !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<bsa, tau = 32, alpha = 0.3>>>
  return
}

// -----

// The command-line spellings of the strategies are accepted too.

// CHECK-LABEL: func.func @cli_names
// CHECK-SAME: #spperm.perm<warp_aware>
// CHECK-SAME: #spperm.perm<cta_aware>
// CHECK-SAME: #spperm.perm<hybrid_1>
// CHECK-SAME: #spperm.perm<hybrid_2_3>
func.func @cli_names(
    %a: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<"warp-aware">>>,
    %b: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<"cta-aware">>>,
    %c: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<"hybrid-1">>>,
    %d: !spperm.matrix<8x8xf32, #spperm.csr<perm = #spperm.perm<"hybrid-2.3">>>) {
  return
}

// -----

// CHECK-LABEL: func.func @formats
// CHECK-SAME: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr>>
// CHECK-SAME: !spperm.matrix<64x64xf32, #spperm.bell<block = 32, width = 2, residual = csr, perm = #spperm.perm<bsa>>>
// CHECK-SAME: !spperm.matrix<4x9xf32, #spperm.bell<block = 1, width = 9, residual = csr>>
// CHECK-SAME: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr, condensed = true, perm = #spperm.perm<bsa>>>
// CHECK-SAME: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr>>
// CHECK-SAME: !spperm.matrix<1024x8192xf32, #spperm.hbp<rows = 512, cols = 4096>>
// CHECK-SAME: !spperm.matrix<1024x8192xf32, #spperm.hbp<rows = 512, cols = 1024, perm = #spperm.perm<plain>>>
func.func @formats(
    %a: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr>>,
    %b: !spperm.matrix<64x64xf32, #spperm.bell<block = 32, width = 2, residual = csr, perm = #spperm.perm<bsa>>>,
    %c: !spperm.matrix<4x9xf32, #spperm.bell<block = 1, width = 9, residual = csr>>,
    %c2: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr, condensed = true, perm = #spperm.perm<bsa>>>,
    %c3: !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 4, residual = csr, condensed = false>>,
    %d: !spperm.matrix<1024x8192xf32, #spperm.hbp<rows = 512, cols = 4096>>,
    %e: !spperm.matrix<1024x8192xf32, #spperm.hbp<rows = 512, cols = 1024, perm = #spperm.perm<plain>>>) {
  return
}

// -----

// Parameters in any order, a quoted residual, a delta without its type, a
// perm without its `#spperm.perm` and an empty `<>` print in the one
// canonical form.
// CHECK-LABEL: func.func @format_spellings
// CHECK-SAME: #spperm.bell<block = 16, width = 2, residual = csr, delta = 5.000000e-01 : f64, condensed = true, perm = #spperm.perm<lpt>>
// CHECK-SAME: #spperm.hbp<rows = 512, cols = 4096, perm = #spperm.perm<lpt>>
// CHECK-SAME: #spperm.csr>
// CHECK-SAME: #spperm.csr<perm = #spperm.perm<bsa>>>
func.func @format_spellings(
    %a: !spperm.matrix<64x64xf32, #spperm.bell<perm = #spperm.perm<lpt>, condensed = true, residual = "csr", delta = 0.5, width = 2, block = 16>>,
    %b: !spperm.matrix<1024x8192xf32, #spperm.hbp<perm = #spperm.perm<lpt>, cols = 4096, rows = 512>>,
    %c: !spperm.matrix<64x64xf32, #spperm.csr<>>,
    %d: !spperm.matrix<64x64xf32, #spperm.csr<perm = <bsa>>>) {
  return
}

// -----

// CHECK-LABEL: func.func @spmm_static
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x32xf32> -> tensor<4x32xf32>
func.func @spmm_static(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<6x32xf32>) -> tensor<4x32xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func.func @spmm_dynamic_k
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<6x?xf32> -> tensor<4x?xf32>
func.func @spmm_dynamic_k(%a: !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, %b: tensor<6x?xf32>) -> tensor<4x?xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<6x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}

// -----

// B's and C's rows may be written ?: they are the matrix's.
// CHECK-LABEL: func.func @spmm_dynamic_rows
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<?x8xf32> -> tensor<?x8xf32>
func.func @spmm_dynamic_rows(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

// K = 1 is SpMV.

// CHECK-LABEL: func.func @spmv
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x1xf32> -> tensor<4x1xf32>
func.func @spmv(%a: !spperm.matrix<4x6xf32, #spperm.csr>, %x: tensor<6x1xf32>) -> tensor<4x1xf32> {
  %y = spperm.spmm %a, %x : !spperm.matrix<4x6xf32, #spperm.csr>, tensor<6x1xf32> -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

// CHECK-LABEL: func.func @permute_convert
// CHECK: %[[P:.*]] = spperm.permute %{{.*}} : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>>
// CHECK: spperm.convert %[[P]] : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, perm = #spperm.perm<bsa>>>
func.func @permute_convert(%a: !spperm.matrix<64x64xf32, #spperm.csr>) -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, perm = #spperm.perm<bsa>>> {
  %p = spperm.permute %a : !spperm.matrix<64x64xf32, #spperm.csr> -> !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>>
  %b = spperm.convert %p : !spperm.matrix<64x64xf32, #spperm.csr<perm = #spperm.perm<bsa>>> -> !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, perm = #spperm.perm<bsa>>>
  return %b : !spperm.matrix<64x64xf32, #spperm.bell<block = 16, width = 2, residual = csr, perm = #spperm.perm<bsa>>>
}

// -----

// What spperm-lower-to-gpu records on a lowered spperm.spmm.
// CHECK-LABEL: func.func private @launch
// CHECK-SAME: k = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = true, args = ["order", "csr.row_ptr", "B", "C"], grid = [8, 1, 1], block = [256, 1, 1], shared_bytes = 0>, #spperm.launch<name = "cusparse", family = "cusparse", variant = "cusparse", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [1, 1, 1], shared_bytes = 0>]
func.func private @launch() attributes {k = [#spperm.launch<name = "l0_csr_k32_0", family = "csr", variant = "k32", k_min = 32, k_max = 32, k_align = 1, zero_output = false, dependent_launch = true, args = ["order", "csr.row_ptr", "B", "C"], grid = [8, 1, 1], block = [256, 1, 1], shared_bytes = 0>, #spperm.launch<name = "cusparse", family = "cusparse", variant = "cusparse", k_min = 1, k_max = 0, k_align = 1, zero_output = false, dependent_launch = false, args = [], grid = [1, 1, 1], block = [1, 1, 1], shared_bytes = 0>]}

// -----

// A launch whose grid grows with K (a range variant's row kernel): 2 CTAs
// of long rows, then 8 CTAs a slice of 128 columns.
// CHECK-LABEL: func.func private @launch_grid_k
// CHECK-SAME: grid = [34, 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [2, 8, 128]>
func.func private @launch_grid_k() attributes {k = #spperm.launch<name = "l0_csr_r512_0", family = "csr+long", variant = "r512", k_min = 260, k_max = 0, k_align = 4, zero_output = false, dependent_launch = false, args = ["order", "csr.row_ptr", "B", "C", "K"], grid = [34, 1, 1], block = [256, 1, 1], shared_bytes = 0, grid_k = [2, 8, 128]>}

// -----

// A row range of the file's matrix (a shard).
// CHECK-LABEL: func.func @load_rows
// CHECK:       spperm.load "a.mtx" {rows = array<i64: 2, 6>} : !spperm.matrix<4x9xf32, #spperm.csr>
func.func @load_rows() -> !spperm.matrix<4x9xf32, #spperm.csr> {
  %a = spperm.load "a.mtx" {rows = array<i64: 2, 6>} : !spperm.matrix<4x9xf32, #spperm.csr>
  return %a : !spperm.matrix<4x9xf32, #spperm.csr>
}

// -----

// 16-bit values and operands (accumulation is fp32; docs/Dialects/SpPerm.md).
// CHECK-LABEL: func.func @half_precision
// CHECK: spperm.load "w.smtx.gz" : !spperm.matrix<64x256xbf16, #spperm.csr>
// CHECK: spperm.permute %{{.*}} : !spperm.matrix<64x256xbf16, #spperm.csr> -> !spperm.matrix<64x256xbf16, #spperm.csr<perm = #spperm.perm<lpt>>>
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<64x256xbf16, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<256x?xbf16> -> tensor<64x?xbf16>
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<64x256xf16, #spperm.csr>, tensor<256x8xf16> -> tensor<64x8xf16>
// CHECK: spperm.spmm %{{.*}}, %{{.*}} : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x8xbf16> -> tensor<64x8xbf16>
// CHECK: spperm.convert %{{.*}} : !spperm.matrix<64x256xf16, #spperm.csr> -> !spperm.matrix<64x256xf16, #spperm.bell<block = 16, width = 4, residual = csr>>
func.func @half_precision(%b: tensor<256x?xbf16>, %h: tensor<256x8xf16>, %x: tensor<256x8xbf16>) {
  %a = spperm.load "w.smtx.gz" : !spperm.matrix<64x256xbf16, #spperm.csr>
  %p = spperm.permute %a : !spperm.matrix<64x256xbf16, #spperm.csr> -> !spperm.matrix<64x256xbf16, #spperm.csr<perm = #spperm.perm<lpt>>>
  %c = spperm.spmm %p, %b : !spperm.matrix<64x256xbf16, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<256x?xbf16> -> tensor<64x?xbf16>
  %f = spperm.load "w.smtx.gz" : !spperm.matrix<64x256xf16, #spperm.csr>
  %d = spperm.spmm %f, %h : !spperm.matrix<64x256xf16, #spperm.csr>, tensor<256x8xf16> -> tensor<64x8xf16>
  %w = spperm.load "w.smtx.gz" : !spperm.matrix<64x256xf32, #spperm.csr>
  %e = spperm.spmm %w, %x : !spperm.matrix<64x256xf32, #spperm.csr>, tensor<256x8xbf16> -> tensor<64x8xbf16>
  %g = spperm.convert %f : !spperm.matrix<64x256xf16, #spperm.csr> -> !spperm.matrix<64x256xf16, #spperm.bell<block = 16, width = 4, residual = csr>>
  return
}
