// REQUIRES: ocannl-run
// The demo's model (examples/moons.mlir) through the training passes and
// its gradient check.
// RUN: ocannl-opt %S/../../../../examples/moons.mlir --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff{functions=loss},ocannl-train-step{weight-decay=0.0001})" | FileCheck %s
// RUN: ocannl-run %S/../../../../examples/moons.mlir --entry loss --grad-check --arg random:1 --arg random:2 | FileCheck %s --check-prefix=GRAD

// The train step takes the batch, the six params and the learning rate,
// and returns the loss.
// CHECK-LABEL: func.func @loss_train_step(
// CHECK-SAME: memref<10x2xf32>, %{{.*}}: memref<10x1xf32>
// CHECK-SAME: {ocannl.param = "b3"}
// CHECK-SAME: {ocannl.param = "w1"}
// CHECK-SAME: %[[LR:.*]]: memref<f32> {ocannl.learning_rate = ""}) -> memref<1xf32>
// The update of w1 reads the learning rate.
// CHECK: "ocannl_assign.accum_binop"(%{{.*}}, %[[LR]], %{{.*}}) {accum = "sub", {{.*}}op = "mul"
// CHECK-LABEL: func.func @loss_init(
// CHECK-COUNT-6: "ocannl_assign.uniform"

// GRAD: grad-check @loss: loss {{.*}}, 6 params, 337 cells
// GRAD-NEXT: backprop vs finite differences: max relative error {{[0-9.]+e-(0?[6-9]|[1-9][0-9])$}}
// GRAD-NEXT: compiled vs interpreted backprop: max relative error {{[0-9.]+e-(0?[5-9]|[1-9][0-9])$}}
