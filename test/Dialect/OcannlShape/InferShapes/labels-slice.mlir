// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Labels propagate where sizes must agree.
// CHECK-LABEL: func.func @labels
// CHECK: "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"rgb=3", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2|rgb=3", f32>
func.func @labels(%x: !ocannl_shape.tensor<"2|rgb=3", f32>) {
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"2|rgb=3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A labelled axis meeting an unlabelled one of its size labels it (the
// design documents: labels "are inferred when provided"), in either order.
// CHECK-LABEL: func.func @label_inferred
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2|rgb=3", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2|rgb=3", f32>
func.func @label_inferred(%x: !ocannl_shape.tensor<"2|rgb=3", f32>, %u: !ocannl_shape.tensor<"3", f32>) {
  %y = "ocannl_shape.pointwise_binary"(%x, %u) {op = "add"} : (!ocannl_shape.tensor<"2|rgb=3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%u, %x) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"2|rgb=3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// batch_slice removes the leftmost batch axis.
// CHECK-LABEL: func.func @slice
// CHECK: "ocannl_shape.batch_slice"{{.*}} -> !ocannl_shape.tensor<"2|3->4", f32>
func.func @slice(%x: !ocannl_shape.tensor<"7,2|3->4", f32>, %i: index) {
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"7,2|3->4", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Variables written in types are shared within a function.
// CHECK-LABEL: func.func @shared_vars
// CHECK-SAME: !ocannl_shape.tensor<"5,4", f32>, %{{.*}}: !ocannl_shape.tensor<"5,4", f32>
func.func @shared_vars(%a: !ocannl_shape.tensor<"n,4", f32>, %b: !ocannl_shape.tensor<"5,m", f32>) {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"n,4", f32>, !ocannl_shape.tensor<"5,m", f32>) -> !ocannl_shape.tensor<"n,m", f32>
  return
}

// -----

// A labelled 1 flows and determines a param's dims: seed 002's
// `let%op y = ("hey" * 'q' 2.0) + 'p' 1.0` gives `hey` the shape q=1->p=1.
// CHECK-LABEL: func.func @labelled_ones
// CHECK: "ocannl_shape.param"() {name = "hey"} : () -> !ocannl_shape.tensor<"q=1->p=1", f32>
func.func @labelled_ones(%q: !ocannl_shape.tensor<"q=1", f32>, %p: !ocannl_shape.tensor<"p=1", f32>) {
  %hey = "ocannl_shape.param"() {name = "hey"} : () -> !ocannl_shape.tensor<"?", f32>
  %hq = "ocannl_shape.compose"(%hey, %q) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"q=1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%hq, %p) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"p=1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// batch_slice of a computed value slices its existing leftmost batch axis.
// CHECK-LABEL: func.func @slice_computed
// CHECK: "ocannl_shape.pointwise_unary"{{.*}} -> !ocannl_shape.tensor<"3|2", f32>
// CHECK: "ocannl_shape.batch_slice"{{.*}} -> !ocannl_shape.tensor<"2", f32>
func.func @slice_computed(%x: !ocannl_shape.tensor<"3|2", f32>, %i: index) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.batch_slice"(%n, %i) : (!ocannl_shape.tensor<"?", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// With two batch axes, the other one stays.
// CHECK-LABEL: func.func @slice_computed_two
// CHECK: "ocannl_shape.batch_slice"{{.*}} -> !ocannl_shape.tensor<"3|2", f32>
func.func @slice_computed_two(%x: !ocannl_shape.tensor<"7,3|2", f32>, %i: index) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"7,3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.batch_slice"(%n, %i) : (!ocannl_shape.tensor<"?", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return
}
