// RUN: ocannl-opt %s --split-input-file --ocannl-infer-shapes --ocannl-lower-to-assign | FileCheck %s

// An input axis of size 1 where a convolution's equation asks for another
// size broadcasts, as any axis of size 1: every read at index 0
// (docs/dialects.md, "Einsum specs").

// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[KERNEL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @valid_over_broadcast(
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "add", indexing_maps = [#[[OUT]], #[[BCAST]], #[[KERNEL]]], initialize_neutral = true, op = "mul", space = array<i64: 4, 3>}
func.func @valid_over_broadcast(%x: !ocannl_shape.tensor<"1", f32>, %w: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"4", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %y : !ocannl_shape.tensor<"4", f32>
}

// -----

// Strided and dilated, padded: the same.
// CHECK-DAG: #[[BCAST2:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-LABEL: func.func @padded_strided_over_broadcast(
// CHECK: indexing_maps = [#{{.*}}, #[[BCAST2]], #{{.*}}], initialize_neutral = true, op = "mul", space = array<i64: 5, 2>}
func.func @padded_strided_over_broadcast(%x: !ocannl_shape.tensor<"1", f32>, %w: !ocannl_shape.tensor<"2", f32>) -> !ocannl_shape.tensor<"5", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "2*o=+2*k; k => o"} : (!ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"2", f32>) -> !ocannl_shape.tensor<"5", f32>
  return %y : !ocannl_shape.tensor<"5", f32>
}

// -----

// A padded convolution of one output and stride 1 asks for an input of
// size 1: that axis is the convolution's own, read at `o + k - pad` (the
// output's iterator kept at size 1, so that the index stays a padded one
// and the reads past the axis give the padding).
// CHECK-DAG: #[[PAD:.*]] = affine_map<(d0, d1) -> (d0 + d1 - 1)>
// CHECK-LABEL: func.func @padded_one_output(
// CHECK: indexing_maps = [#{{.*}}, #[[PAD]], #{{.*}}], initialize_neutral = true, op = "mul", space = array<i64: 1, 3>}
func.func @padded_one_output(%x: !ocannl_shape.tensor<"1", f32>, %w: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"1", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"1", f32>
  return %y : !ocannl_shape.tensor<"1", f32>
}
