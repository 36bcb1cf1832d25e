// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step)" | FileCheck %s --check-prefix=SGD
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{momentum=0.9 weight-decay=0.01 nesterov=true})" | FileCheck %s --check-prefix=NESTEROV
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{momentum=0.9 split=true})" | FileCheck %s --check-prefix=SPLIT
// RUN: not ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{momentum=fast})" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adam momentum=0.9})" 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// RUN: not ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{beta1=0.5})" 2>&1 | FileCheck %s --check-prefix=BETA
// RUN: not ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adamw beta2=1})" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{clip-norm=big})" 2>&1 | FileCheck %s --check-prefix=CLIP

#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}

// Plain gradient descent (w -= lr * grad, in place); the step returns the loss.
// SGD-LABEL: func.func @f_train_step(
// SGD-SAME: %[[X:.*]]: memref<3xf32>, %[[W:.*]]: memref<3xf32> {ocannl.param = "w"}, %[[LR:.*]]: memref<f32> {ocannl.learning_rate = ""}) -> memref<f32>
// SGD: %[[G:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "w.grad"
// SGD: "ocannl_assign.accum_binop"(%[[W]], %[[LR]], %[[G]]) {accum = "sub", {{.*}}op = "mul"
// SGD-NEXT: return %{{.*}} : memref<f32>

// Momentum with Nesterov and weight decay: delta = g + wd p;
// m = mu m + delta; delta += mu m; p -= lr delta.
// NESTEROV-LABEL: func.func @f_train_step(
// NESTEROV-SAME: %[[W:[^:]*]]: memref<3xf32> {ocannl.param = "w"}, %[[M:.*]]: memref<3xf32> {ocannl.momentum = "w"}, %[[LR:.*]]: memref<f32> {ocannl.learning_rate = ""})
// NESTEROV: %[[G:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "w.grad"
// NESTEROV-DAG: "ocannl_assign.fill"(%[[WD:.*]]) {value = 0.00999999977 : f32}
// NESTEROV-DAG: "ocannl_assign.fill"(%[[MU:.*]]) {value = 0.899999976 : f32}
// NESTEROV: "ocannl_assign.accum_binop"(%[[G]], %[[WD]], %[[W]]) {accum = "add", {{.*}}op = "mul"
// NESTEROV-NEXT: "ocannl_assign.accum_ternop"(%[[M]], %[[MU]], %[[M]], %[[G]]) {accum = "assign", {{.*}}op = "fma"
// NESTEROV-NEXT: "ocannl_assign.accum_binop"(%[[G]], %[[MU]], %[[M]]) {accum = "add", {{.*}}op = "mul"
// NESTEROV-NEXT: "ocannl_assign.accum_binop"(%[[W]], %[[LR]], %[[G]]) {accum = "sub", {{.*}}op = "mul"

// split=true adds the update alone: params, their gradients, the state and
// the learning rate as arguments; the same statements as the fused step's
// on the gradient argument; nothing returned.
// SPLIT-LABEL: func.func @f_train_step(
// SPLIT-LABEL: func.func @f_update(
// SPLIT-SAME: %[[W:[^:]*]]: memref<3xf32> {ocannl.param = "w"}, %[[G:[^:]*]]: memref<3xf32> {ocannl.gradient = "w"}, %[[M:[^:]*]]: memref<3xf32> {ocannl.momentum = "w"}, %[[LR:[^:]*]]: memref<f32> {ocannl.learning_rate = ""}) attributes {ocannl.update_of = "f"} {
// SPLIT-NEXT: %[[MU:.*]] = "ocannl_assign.node"(){{.*}}name = "sgd_const
// SPLIT-NEXT: "ocannl_assign.fill"(%[[MU]]) {value = 0.899999976 : f32}
// SPLIT-NEXT: "ocannl_assign.accum_ternop"(%[[M]], %[[MU]], %[[M]], %[[G]]) {accum = "assign", {{.*}}op = "fma"
// SPLIT-NEXT: "ocannl_assign.accum_unop"(%[[G]], %[[M]]) {accum = "assign", {{.*}}op = "identity"
// SPLIT-NEXT: "ocannl_assign.accum_binop"(%[[W]], %[[LR]], %[[G]]) {accum = "sub", {{.*}}op = "mul"
// SPLIT-NEXT: return{{$}}

// An option's text not of its kind, at the op the pass runs on (the module,
// here implicit, before any train step is made; an unknown optimizer:
// train-step-invalid.mlir); options that do not fit the optimizer, at the
// function whose train step they would make.
// BAD: train-step.mlir:0:0: error: option 'momentum' must be a non-negative number, not 'fast'
// MOMENTUM: train-step.mlir:[[# @LINE - 43]]:1: error: option 'momentum' is SGD's, not adam's (set optimizer=sgd)
// BETA: error: option 'beta1' is Adam's, not sgd's (set optimizer=adam or adamw)
// RANGE: error: beta2 must be in [0, 1), not 1
// CLIP: error: option 'clip-norm' must be a non-negative number, not 'big'
