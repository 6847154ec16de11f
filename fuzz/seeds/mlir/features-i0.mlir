
// CHECK-LABEL: func.func @l?oad_features
// CHECK: featur}, rows = 4 : i64}>
func.func @load_features() {
  %0 = spperm.load "a.mtx" {features = #spperm.features<{rows = 4 : i64, density = 0.25 : f64, empty_rows = 0 : i00, row_nnz = {mean = 1.5 : f64, max = 3 : i64}}>} : !spperm.matrix<4x6xf32, #spperm.csr>
  return
}

