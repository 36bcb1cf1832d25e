// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign | FileCheck %s
// The output is plain IRDL-defined IR that stock mlir-opt loads:
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign | mlir-opt --irdl-file=%assign_irdl | FileCheck %s --check-prefix=STOCK

// The assignments of a small MLP layer with its params and constants.
// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[X:.*]]: memref<8x3xf32>) -> memref<8x4xf32>
// CHECK: %[[W:.*]] = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "w", shape = "3->4"} : () -> memref<4x3xf32>
// CHECK-NEXT: "ocannl_assign.uniform"(%[[W]]) {high = 2.500000e-01 : f32, low = -2.500000e-01 : f32, seed = {{[0-9]+}} : i64}
// CHECK: %[[H:.*]] = "ocannl_assign.node"() {kind = "value", memory = "undecided", name = "constant_1", shape = "4"}
// CHECK-NEXT: "ocannl_assign.literal"(%[[H]]) {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}
// CHECK: %[[Z:.*]] = "ocannl_assign.node"() {kind = "value", memory = "undecided", name = "constant_2", shape = "1"}
// CHECK-NEXT: "ocannl_assign.fill"(%[[Z]]) {value = 0.000000e+00 : f32}
// CHECK: %[[M:.*]] = "ocannl_assign.node"() {{.*}}name = "compose_1", shape = "8|4"
// CHECK-NEXT: "ocannl_assign.accum_binop"(%[[M]], %[[W]], %[[X]]) {accum = "add", {{.*}}initialize_neutral = true, op = "mul"
// CHECK: %[[S:.*]] = "ocannl_assign.node"() {{.*}}name = "pointwise_1"
// CHECK-NEXT: "ocannl_assign.accum_ternop"(%[[S]], %[[M]], %[[H]], %[[Z]]) {accum = "assign", {{.*}}op = "fma"
// CHECK: %[[R:.*]] = "ocannl_assign.node"() {{.*}}memory = "materialized", name = "pointwise_2"
// CHECK-NEXT: "ocannl_assign.accum_binop"(%[[R]], %[[S]], %[[Z]]) {accum = "assign", {{.*}}op = "max"
// CHECK: return %[[R]] : memref<8x4xf32>
// STOCK: func.func @layer
// STOCK: "ocannl_assign.accum_ternop"
func.func @layer(%x: !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->4", f32>
  %hv = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.constant"() {value = 0.0 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %m = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->4", f32>, !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.pointwise_ternary"(%m, %hv, %z) {op = "fma"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_binary"(%s, %z) {op = "max"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}

// Comparisons get OCANNL's names in the assignment dialect.
// CHECK-LABEL: func.func @compare
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "assign", {{.*}}op = "cmplt"
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "assign", {{.*}}op = "cmpeq"
func.func @compare(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"3", f32>) {
  %l = "ocannl_shape.pointwise_binary"(%a, %b) {op = "lt"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %e = "ocannl_shape.pointwise_binary"(%a, %b) {op = "eq"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
