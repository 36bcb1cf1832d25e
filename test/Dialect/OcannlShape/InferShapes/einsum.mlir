// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Generalized einsum: reductions, fixed indices, permutations, row variables.

// Reduction to a scalar.
// CHECK-LABEL: func.func @sum_all
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"1", f32>
func.func @sum_all(%x: !ocannl_shape.tensor<"7|3->4", f32>) {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|...->... => 0"} : (!ocannl_shape.tensor<"7|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Reduce the batch axes only.
// CHECK-LABEL: func.func @sum_batch
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"3->4", f32>
func.func @sum_batch(%x: !ocannl_shape.tensor<"7|3->4", f32>) {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|...->... => ...->..."} : (!ocannl_shape.tensor<"7|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Matrix multiplication written as an einsum.
// CHECK-LABEL: func.func @matmul
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"2,4", f32>
func.func @matmul(%a: !ocannl_shape.tensor<"2,3", f32>, %b: !ocannl_shape.tensor<"3,4", f32>) {
  %c = "ocannl_shape.einsum"(%a, %b) {spec = "ij;jk=>ik"} : (!ocannl_shape.tensor<"2,3", f32>, !ocannl_shape.tensor<"3,4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A row variable in the middle: swap the outer axes, keep the middle ones.
// CHECK-LABEL: func.func @middle
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"5,3,4,2", f32>
func.func @middle(%x: !ocannl_shape.tensor<"2,3,4,5", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "a, ..r.., b => b, ..r.., a"} : (!ocannl_shape.tensor<"2,3,4,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A fixed index selects position 2 of the leftmost output axis.
// CHECK-LABEL: func.func @select
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"7|5", f32>
func.func @select(%x: !ocannl_shape.tensor<"7|3,5", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "...|2,j => ...|j"} : (!ocannl_shape.tensor<"7|3,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A fixed index on the result creates a slot of at least that size.
// CHECK-LABEL: func.func @insert
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4,3", f32>
func.func @insert(%x: !ocannl_shape.tensor<"4", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "i => i,2"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Permutation across row kinds, and the diagonal.
// CHECK-LABEL: func.func @permute
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4|2->3", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"3", f32>
// CHECK: "ocannl_shape.transpose"{{.*}} -> !ocannl_shape.tensor<"2|4->3", f32>
func.func @permute(%x: !ocannl_shape.tensor<"2|3->4", f32>, %d: !ocannl_shape.tensor<"3,3", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "b|i->o => o|b->i"} : (!ocannl_shape.tensor<"2|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %g = "ocannl_shape.einsum"(%d) {spec = "ii=>i"} : (!ocannl_shape.tensor<"3,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.transpose"(%x) : (!ocannl_shape.tensor<"2|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Batch axes become output axes through a shared row variable.
// CHECK-LABEL: func.func @batch_to_output
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"6,3,2", f32>
func.func @batch_to_output(%x: !ocannl_shape.tensor<"6|2,3", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "..v..|ij => ..v..ji"} : (!ocannl_shape.tensor<"6|2,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
