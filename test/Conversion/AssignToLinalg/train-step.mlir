// A train step on tensors: the params, Adam's moments and step count and
// the learning rate are arguments; the step returns the loss, then the
// last values of every buffer argument it writes, in argument order (the
// params, then the optimizer state). The init routine returns the
// initialized params. Nothing of the project's is left, not even its
// argument attributes.
// RUN: ocannl-opt %S/../../Integration/CPU/ocannl-run/Inputs/tanh-regression.mlir --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step{optimizer=adam},ocannl-virtualize,ocannl-simplify,ocannl-lower-to-linalg,func.func(canonicalize,cse))" > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// RUN: not grep ocannl %t.mlir

// CHECK-LABEL: func.func @loss_train_step(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[Y:[a-z0-9]+]]: tensor<4x1xf32>,
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<1x3xf32>, %[[B:[a-z0-9]+]]: tensor<1xf32>,
// CHECK-SAME: %[[MW:[a-z0-9]+]]: tensor<1x3xf32>, %[[MB:[a-z0-9]+]]: tensor<1xf32>, %[[VW:[a-z0-9]+]]: tensor<1x3xf32>, %[[VB:[a-z0-9]+]]: tensor<1xf32>,
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<f32>, %[[LR:[a-z0-9]+]]: tensor<f32>)
// CHECK-SAME: -> (tensor<1xf32>, tensor<1x3xf32>, tensor<1xf32>, tensor<1x3xf32>, tensor<1xf32>, tensor<1x3xf32>, tensor<1xf32>, tensor<f32>)
// The step count is updated in place: the body reads the output's value.
// CHECK: %[[T1:.*]] = linalg.generic {{.*}} outs(%[[T]] : tensor<f32>)
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T1]] :
// CHECK-LABEL: func.func @loss_init(
// CHECK-SAME: -> (tensor<1x3xf32>, tensor<1xf32>)
