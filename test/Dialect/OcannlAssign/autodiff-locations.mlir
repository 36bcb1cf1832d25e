// RUN: ocannl-opt %s --ocannl-autodiff --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// Each backprop assignment is located at the forward op it differentiates
// (so that its diagnostics and the CPU profile name that op); the
// gradients' first fills, made for no op in particular, at the return.
// CHECK-LABEL: func.func @f_grad(
// CHECK: "ocannl_assign.fill"({{.*}}) {value = 0.000000e+00 : f32} {{.*}} loc("return")
// CHECK: "ocannl_assign.fill"({{.*}}) {value = 1.000000e+00 : f32} {{.*}} loc("return")
// The gradient of the sum reaches relu's result, then relu's operand (a
// mask of where it is positive), then w.
// CHECK: "ocannl_assign.accum_unop"{{.*}}loc("sum")
// CHECK: "ocannl_assign.accum_binop"{{.*}}loc("relu")
// CHECK: "ocannl_assign.accum_binop"{{.*}}loc("scale")
// CHECK: return {{.*}} loc("return")
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %p = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "p", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_binop"(%p, %w, %x) {accum = "assign", op = "mul", initialize_neutral = false, space = array<i64: 3>, indexing_maps = [#id, #id, #id]} : (memref<3xf32>, memref<3xf32>, memref<3xf32>) -> () loc("scale")
  %r = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "r", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%r, %p) {accum = "assign", op = "relu", initialize_neutral = false, space = array<i64: 3>, indexing_maps = [#id, #id]} : (memref<3xf32>, memref<3xf32>) -> () loc("relu")
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_unop"(%l, %r) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id]} : (memref<f32>, memref<3xf32>) -> () loc("sum")
  return %l : memref<f32> loc("return")
}
