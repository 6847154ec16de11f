// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json library-check=1" | FileCheck %s --check-prefix=SELECT
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json library-check=1" -spperm-expand-alternatives | FileCheck %s --check-prefix=EXPAND
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json library-check=1 max-variants=2" | FileCheck %s --check-prefix=TWO
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json" | FileCheck %s --check-prefix=UNCHECKED
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json library-check=1" -spperm-expand-alternatives -spperm-expand-alternatives | FileCheck %s --check-prefix=EXPAND
// RUN: spperm-opt %s -split-input-file -spperm-extract-features -spperm-select="model=%S/../Inputs/selector-shortlist.json library-check=1" -spperm-expand-alternatives -spperm-permute-rows=strategy=auto -spperm-convert-format=format=auto | FileCheck %s --check-prefix=MATERIALIZE

// test/Inputs/selector-shortlist.json ranks csr/lpt, csr/bsa, csr/identity,
// bell/bsa, bell/identity, cuSPARSE (constant predictions) and shortlists
// 2 csr and 1 bell variants: the choice csr/lpt, then each format's best
// before any format's second: bell/bsa, csr/bsa.

// SELECT-LABEL: func.func @layer
// SELECT:       spperm.load {{.*}}choice = #spperm.choice<strategy = "lpt", format = "csr", source = "model {{.*}}selector-shortlist.json", alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">, #spperm.choice<strategy = "bsa", format = "csr", source = "shortlist">]>
// max-variants=2: the choice and one runner-up.
// TWO-LABEL:    func.func @layer
// TWO:          alternatives = [#spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">]>
// Without the library check nothing times the shortlist: no alternatives.
// UNCHECKED-LABEL: func.func @layer
// UNCHECKED-NOT:   alternatives
// UNCHECKED:       spperm.spmm

// The original keeps its choice without the list; a copy per alternative
// follows it (running the pass twice changes nothing more).
// EXPAND-LABEL: func.func @layer(
// EXPAND:       spperm.load "../Inputs/small.mtx" {choice = #spperm.choice<strategy = "lpt", format = "csr", source = "model {{.*}}selector-shortlist.json">
// EXPAND:       spperm.spmm
// EXPAND-LABEL: func.func @layer__alt1(
// EXPAND-SAME:  attributes {spperm.alternative_of = @layer}
// EXPAND:       spperm.load "../Inputs/small.mtx" {choice = #spperm.choice<strategy = "bsa", format = "bell", source = "shortlist">
// EXPAND-LABEL: func.func @layer__alt2(
// EXPAND-SAME:  attributes {spperm.alternative_of = @layer}
// EXPAND:       spperm.load "../Inputs/small.mtx" {choice = #spperm.choice<strategy = "bsa", format = "csr", source = "shortlist">
// EXPAND-NOT:   func.func
// EXPAND-NOT:   alternatives =

// Each copy is then materialized like any layer.
// MATERIALIZE-LABEL: func.func @layer(
// MATERIALIZE:       spperm.permute {{.*}}#spperm.perm<lpt>
// MATERIALIZE-LABEL: func.func @layer__alt1(
// MATERIALIZE:       spperm.convert {{.*}}#spperm.bell
// MATERIALIZE-LABEL: func.func @layer__alt2(
// MATERIALIZE:       spperm.permute {{.*}}#spperm.perm<bsa>
func.func @layer(%b: tensor<5x32xf32>) -> tensor<4x32xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x32xf32> -> tensor<4x32xf32>
  return %c : tensor<4x32xf32>
}
