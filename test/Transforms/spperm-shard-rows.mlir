// RUN: spperm-opt %s -split-input-file -spperm-shard-rows=shards=2 | FileCheck %s --check-prefix=TWO
// RUN: spperm-opt %s -split-input-file -spperm-shard-rows="shards=3 cut=equal-rows" | FileCheck %s --check-prefix=EQUAL
// RUN: spperm-opt %s -split-input-file -spperm-shard-rows=shards=1 | FileCheck %s --check-prefix=ONE
// RUN: spperm-opt %s -split-input-file -spperm-shard-rows=shards=2 -spperm-shard-rows=shards=2 | FileCheck %s --check-prefix=TWO
// RUN: spperm-opt %s -split-input-file -spperm-shard-rows=shards=2 -spperm-extract-features -spperm-select -spperm-permute-rows=strategy=auto -spperm-convert-format=format=auto | FileCheck %s --check-prefix=PIPE

// test/Inputs/small.mtx is 4 x 5 with row lengths 2, 0, 2, 1 (weights 3,
// 1, 3, 2: halves at 4.5): the balanced cut is [0, 2), [2, 4); three equal
// row counts are [0, 1), [1, 2), [2, 4).

// TWO-LABEL: func.func @g__shard0(
// TWO-SAME:    %{{.*}}: tensor<5x?xf32>) -> tensor<2x?xf32> attributes {spperm.shard = array<i64: 0, 2, 0, 2, 4>, spperm.shard_of = "g"}
// TWO:         spperm.load "../Inputs/small.mtx" {rows = array<i64: 0, 2>} : !spperm.matrix<2x5xf32, #spperm.csr>
// TWO:         spperm.spmm {{.*}} -> tensor<2x?xf32>
// TWO-LABEL: func.func @g__shard1(
// TWO-SAME:    -> tensor<2x?xf32> attributes {spperm.shard = array<i64: 1, 2, 2, 4, 4>, spperm.shard_of = "g"}
// TWO:         spperm.load "../Inputs/small.mtx" {rows = array<i64: 2, 4>}
// TWO-NOT:   func.func @g(

// EQUAL-LABEL: func.func @g__shard0(
// EQUAL-SAME:    -> tensor<1x?xf32> attributes {spperm.shard = array<i64: 0, 3, 0, 1, 4>
// EQUAL-LABEL: func.func @g__shard1(
// EQUAL-SAME:    -> tensor<1x?xf32> attributes {spperm.shard = array<i64: 1, 3, 1, 2, 4>
// EQUAL-LABEL: func.func @g__shard2(
// EQUAL-SAME:    -> tensor<2x?xf32> attributes {spperm.shard = array<i64: 2, 3, 2, 4, 4>

// shards=1 changes nothing.
// ONE-LABEL: func.func @g(
// ONE-NOT:   spperm.shard
// ONE:       spperm.load "../Inputs/small.mtx" :

// Each shard is then a layer of its own: features, a choice, a permutation
// and a format per shard.
// PIPE-LABEL: func.func @g__shard0(
// PIPE:         spperm.load "../Inputs/small.mtx" {choice = {{.*}}, features = #spperm.features<{{.*}} rows = 2 : i64
// PIPE:         spperm.spmm
// PIPE-LABEL: func.func @g__shard1(
// PIPE:         spperm.load "../Inputs/small.mtx" {choice = {{.*}}, features = #spperm.features<{{.*}} rows = 2 : i64
func.func @g(%b: tensor<5x?xf32>) -> tensor<4x?xf32> {
  %a = spperm.load "../Inputs/small.mtx" : !spperm.matrix<4x5xf32, #spperm.csr>
  %c = spperm.spmm %a, %b : !spperm.matrix<4x5xf32, #spperm.csr>, tensor<5x?xf32> -> tensor<4x?xf32>
  return %c : tensor<4x?xf32>
}

// -----

// Functions without a multiplication are left alone.
// TWO-LABEL: func.func @helper(
// TWO-NOT:   spperm.shard
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
