// RUN: not ocannl-opt %s --ocannl-autodiff --split-input-file 2>/dev/null | FileCheck %s
// RUN: ocannl-opt %s --ocannl-autodiff --split-input-file --verify-diagnostics -o /dev/null

// loss = sum_i (w[i] * x[i]): @f_grad returns the loss and dloss/dw = x,
// computed over the forward projections from the loss's gradient (set to 1).
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: %[[X:.*]]: memref<3xf32>, %[[W:.*]]: memref<3xf32> {ocannl.param = "w"}) -> (memref<f32>, memref<3xf32>)
// CHECK: %[[L:.*]] = "ocannl_assign.node"() {{.*}}name = "loss"
// CHECK: "ocannl_assign.accum_binop"(%[[L]], %[[W]], %[[X]])
// CHECK-DAG: %[[GW:.*]] = "ocannl_assign.node"() {kind = "grad", memory = "undecided", name = "w.grad", shape = "3"} : () -> memref<3xf32>
// CHECK-DAG: %[[GL:.*]] = "ocannl_assign.node"() {kind = "grad", memory = "undecided", name = "loss.grad", shape = ""} : () -> memref<f32>
// CHECK: "ocannl_assign.fill"(%[[GW]]) {value = 0.000000e+00 : f32}
// CHECK: "ocannl_assign.fill"(%[[GL]]) {value = 1.000000e+00 : f32}
// CHECK: "ocannl_assign.accum_binop"(%[[GW]], %[[GL]], %[[X]]) {accum = "add", indexing_maps = [#[[ID]], #[[NONE]], #[[ID]]], op = "mul", space = array<i64: 3>}
// CHECK: return %[[L]], %[[GW]] : memref<f32>, memref<3xf32>
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}

// -----

// A function without params is left alone.
// CHECK-LABEL: func.func @no_params(
// CHECK-NOT: @no_params_grad
func.func @no_params(%x: memref<3xf32>) -> memref<3xf32> {
  return %x : memref<3xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @product(%w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "m", shape = ""} : () -> memref<f32>
  // expected-error@+1 {{cannot generate the backprop of @product: cannot differentiate an accumulation by 'mul' (only assign, add, sub, max and min are differentiable)}}
  "ocannl_assign.accum_unop"(%l, %w) {accum = "mul", op = "identity", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id]} : (memref<f32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}

// -----

#id = affine_map<(d0) -> (d0)>
// expected-error@+1 {{@no_loss has params but no result: its first result is the loss to differentiate}}
func.func @no_loss(%w: memref<3xf32> {ocannl.param = "w"}) {
  return
}

// -----

// loss = sum(w * stop_gradient(w)): the gradient flows through the first
// factor only (dloss/dw = the stopped copy), and the stopped node needs no
// gradient of its own.
// CHECK-LABEL: func.func @stopped_grad(
// CHECK-SAME: %[[W:.*]]: memref<3xf32> {ocannl.param = "w"})
// CHECK: %[[S:.*]] = "ocannl_assign.node"() {{.*}}name = "s"
// CHECK-NOT: name = "s.grad"
// CHECK: %[[GW:.*]] = "ocannl_assign.node"() {kind = "grad", memory = "undecided", name = "w.grad"
// CHECK-NOT: name = "s.grad"
// CHECK: "ocannl_assign.accum_binop"(%[[GW]], %{{.*}}, %[[S]]) {accum = "add"
// CHECK-NOT: "ocannl_assign.accum
// CHECK: return
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @stopped(%w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %s = "ocannl_assign.node"() {kind = "value", memory = "undecided", name = "s", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%s, %w) {accum = "assign", op = "stop_gradient", space = array<i64: 3>, indexing_maps = [#id, #id]} : (memref<3xf32>, memref<3xf32>) -> ()
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %s) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}
