// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select | FileCheck %s --check-prefix=SHIPPED
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-tiny.json" | FileCheck %s --check-prefix=TINY
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="cost-model=1" | FileCheck %s --check-prefix=COST
// RUN: spperm-opt %s -split-input-file -spperm-select="strategy=bsa format=bell" | FileCheck %s --check-prefix=FORCED
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-tiny.json format=csr" | FileCheck %s --check-prefix=HALF
// RUN: cp %S/../Inputs/selector-tiny.json %t.json
// RUN: %spperm_python %S/../tools/spperm-run/spmm.py replace %t.json '"margin": 0.1' '"margin": 50, "checked_margin": 0'
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%t.json" | FileCheck %s --check-prefix=UNCHECKED
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%t.json library-check=1" | FileCheck %s --check-prefix=CHECKED
// RUN: cp %S/../Inputs/selector-tiny.json %t.domain.json
// RUN: %spperm_python %S/../tools/spperm-run/spmm.py replace %t.domain.json '"margin": 0.1' '"margin": 0.1, "domain": {"rows": [0, 2]}'
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%t.domain.json" | FileCheck %s --check-prefix=OUTSIDE
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%t.domain.json library-check=1" | FileCheck %s --check-prefix=OUTSIDE-CHECKED
// A target without a shipped model ranks by the cost model and says so,
// unless the cost model was asked for; a model trained on another target
// is used, with a warning.
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="target=sm_80" 2>&1 >/dev/null | FileCheck %s --check-prefix=NOMODEL
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="target=sm_80 cost-model=1" 2>&1 >/dev/null | count 0
// RUN: spperm-opt %s -split-input-file -spperm-select="target=sm_80 strategy=lpt format=csr" 2>&1 >/dev/null | count 0
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="target=sm_100 model=%S/../Inputs/selector-tiny.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=OTHERTARGET
// NOMODEL: warning: spperm-select: spperm ships no selector model for sm_80 (its models are for sm_90): the cost model ranks the candidates (docs/Selector.md, "The cost model"); give a model trained on the target (--model FILE; the pass option model=FILE), or choose the cost model (--cost-model; cost-model=1)
// OTHERTARGET: warning: spperm-select: the model {{.*}}selector-tiny.json was trained on sm_90, and the target is sm_100: its predictions are for the GPU it was trained on

// The shipped sm_90 model chooses one of its candidates; the tiny model
// (test/Inputs/selector-tiny.json: csr/lpt predicted 0 for K <= 64 and 1
// above, cuSPARSE 0.45, margin 0.1) takes lpt at K = 32 and cuSPARSE at
// K = 512; forcing both halves needs no features; forcing one keeps the
// best candidate that has it.

// SHIPPED-LABEL: func.func @k32
// SHIPPED:       spperm.load "../Inputs/small.mtx" {choice = #spperm.choice<strategy = "{{[a-z0-9.-]+}}", format = "{{csr|bell|hbp|cusparse}}", source = "shipped model sm_90{{[^"]*}}">
// A margin of 50 keeps cuSPARSE unless the runtime checks the choice
// (library-check: the model's checked margin, 0).
// UNCHECKED-LABEL: func.func @k32
// UNCHECKED:       spperm.load {{.*}}choice = #spperm.choice<strategy = "identity", format = "cusparse"
// CHECKED-LABEL:   func.func @k32
// CHECKED:         spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "csr"
// A 4-row matrix is outside a domain of at most 2 rows: unchecked, the
// library; checked, the model's pick, which the runtime verifies.
// OUTSIDE-LABEL:   func.func @k32
// OUTSIDE:         spperm.load {{.*}}choice = #spperm.choice<strategy = "identity", format = "cusparse", source = "model {{.*}}.domain.json, outside its domain (rows = 4)">
// OUTSIDE-CHECKED-LABEL: func.func @k32
// OUTSIDE-CHECKED: spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "csr", source = "model {{.*}}.domain.json, outside its domain (rows = 4): checked against cuSPARSE at run time">
// TINY-LABEL:    func.func @k32
// TINY:          spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "csr", source = "model {{.*}}selector-tiny.json">
// COST-LABEL:    func.func @k32
// COST:          spperm.load {{.*}}choice = #spperm.choice<strategy = "{{identity|lpt|bsa}}", format = "{{csr|bell|cusparse}}", source = "cost model">
// FORCED-LABEL:  func.func @k32
// FORCED:        spperm.load "../Inputs/small.mtx" {choice = #spperm.choice<strategy = "bsa", format = "bell", source = "forced">} :
// HALF-LABEL:    func.func @k32
// HALF:          choice = #spperm.choice<strategy = "lpt", format = "csr"
func.func @k32(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}

// -----

// K = 512: the tiny model predicts lpt slower than cuSPARSE. With format
// forced to csr, the best csr candidate is still lpt.

// TINY-LABEL:    func.func @k512
// TINY:          choice = #spperm.choice<strategy = "identity", format = "cusparse"
// HALF-LABEL:    func.func @k512
// HALF:          choice = #spperm.choice<strategy = "lpt", format = "csr"
func.func @k512(%b: tensor<5x512xf32>) -> tensor<4x512xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x512xf32> -> tensor<4x512xf32>
  return %c : tensor<4x512xf32>
}

// -----

// A dynamic K is chosen for as the pass's k (default 32); a matrix that is
// already permuted has been decided for and is left alone.

// TINY-LABEL:    func.func @dynamic
// TINY:          choice = #spperm.choice<strategy = "lpt", format = "csr"
// TINY-LABEL:    func.func @permuted
// TINY-NOT:      choice
func.func @dynamic(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}
func.func @permuted(%a: !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, %b: tensor<5x8xf32>) -> tensor<4x8xf32> {
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr<perm = #spperm.perm<lpt>>>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
