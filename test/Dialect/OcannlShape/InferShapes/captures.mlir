// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Labels captured from einsum specs are the function's named variables:
// their solutions are written in `captured` (a dim's size, a row's total
// elements), and `set_dim` / `set_equal` constrain them.

// Dims and a row variable, solved from the operands (OCANNL's
// test_einsum_capture: `a..r..;..r..b=>ab` over 2,3,4 and 3,4,5: r is 3,4).
// CHECK-LABEL: func.func @solved
// CHECK: capture = ["i", "j"], captured = array<i64: 2, 3>
// CHECK: capture = ["r"], captured = array<i64: 12>
func.func @solved(%x: !ocannl_shape.tensor<"2->3", f32>, %a: !ocannl_shape.tensor<"2,3,4", f32>, %b: !ocannl_shape.tensor<"3,4,5", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = ["i", "j"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %c = "ocannl_shape.einsum"(%a, %b) {spec = "a..r..;..r..b=>ab", capture = ["r"]} : (!ocannl_shape.tensor<"2,3,4", f32>, !ocannl_shape.tensor<"3,4,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A param's hidden dim, set by name (without it: "You forgot to specify
// the hidden dimension(s)", errors.mlir).
// The function records its solved names (kept through the lowerings).
// CHECK-LABEL: func.func @hidden
// CHECK-SAME: attributes {ocannl.dims = {k = 7 : i64}}
// CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3->7", f32>
// CHECK: captured = array<i64: 7>
// CHECK-NOT: set_dim{{.*}}captured
// CHECK: "ocannl_shape.set_dim"() {ref = "k", value = 7 : i64}
func.func @hidden(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.einsum"(%x, %w) {spec = "...|i; i->k => ...|k", capture = ["k"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_dim"() {ref = "k", value = 7 : i64} : () -> ()
  return %h : !ocannl_shape.tensor<"?", f32>
}

// -----

// A row's total elements: a row nothing else decides gets one axis of them.
// CHECK-LABEL: func.func @row_elements
// CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3->12", f32>
func.func @row_elements(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.einsum"(%x, %w) {spec = "...|i; i->..o.. => ...|..o..", capture = ["o"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_dim"() {ref = "o", value = 12 : i64} : () -> ()
  return %h : !ocannl_shape.tensor<"?", f32>
}

// -----

// The same name captured by two einsums is one variable; `set_equal` ties
// a hidden dim to the input's; and a dim equal to a row's elements.
// CHECK-LABEL: func.func @tied
// CHECK: {name = "w1"} : () -> !ocannl_shape.tensor<"3->6", f32>
// CHECK: {name = "w2"} : () -> !ocannl_shape.tensor<"6->6", f32>
// CHECK: {name = "w3"} : () -> !ocannl_shape.tensor<"6->3", f32>
func.func @tied(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"?", f32>
  %h1 = "ocannl_shape.einsum"(%x, %w1) {spec = "...|i; i->a => ...|a", capture = ["i", "a"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"?", f32>
  %h2 = "ocannl_shape.einsum"(%h1, %w2) {spec = "...|p; p->a => ...|a", capture = ["a"]} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %w3 = "ocannl_shape.param"() {name = "w3"} : () -> !ocannl_shape.tensor<"?", f32>
  %h3 = "ocannl_shape.einsum"(%h2, %w3) {spec = "...|p; p->..o.. => ...|..o..", capture = ["o"]} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_dim"() {ref = "a", value = 6 : i64} : () -> ()
  "ocannl_shape.set_equal"() {lhs = "o", rhs = "i"} : () -> ()
  return %h3 : !ocannl_shape.tensor<"?", f32>
}
