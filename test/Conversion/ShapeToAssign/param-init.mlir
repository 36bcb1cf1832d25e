// RUN: not ocannl-opt %s --split-input-file --ocannl-infer-shapes --ocannl-lower-to-assign 2>/dev/null | FileCheck %s
// RUN: ocannl-opt %s --split-input-file --verify-diagnostics -o /dev/null

// Scaled initializations from the param's fans (input 3, output 5):
// Glorot ±sqrt(6/8) = ±0.866, He ±sqrt(6/3) = ±1.414; zeros by a fill; a
// given seed is kept. The default stays OCANNL's ±0.25.
// CHECK-LABEL: func.func @inits
// CHECK: "ocannl_assign.uniform"(%{{.*}}) {high = 0.866025388 : f32, low = -0.866025388 : f32, seed = 7 : i64}
// CHECK: "ocannl_assign.uniform"(%{{.*}}) {high = 1.41421354 : f32, low = -1.41421354 : f32, seed = {{[0-9]+}} : i64}
// CHECK: "ocannl_assign.fill"(%{{.*}}) {value = 0.000000e+00 : f32}
// CHECK: "ocannl_assign.uniform"(%{{.*}}) {high = 2.500000e-01 : f32, low = -2.500000e-01 : f32
func.func @inits() -> (!ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>) {
  %g = "ocannl_shape.param"() {name = "g", init = "glorot", seed = 7 : i64} : () -> !ocannl_shape.tensor<"3->5", f32>
  %h = "ocannl_shape.param"() {name = "h", init = "he"} : () -> !ocannl_shape.tensor<"3->5", f32>
  %z = "ocannl_shape.param"() {name = "z", init = "zeros"} : () -> !ocannl_shape.tensor<"3->5", f32>
  %u = "ocannl_shape.param"() {name = "u"} : () -> !ocannl_shape.tensor<"3->5", f32>
  return %g, %h, %z, %u : !ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"3->5", f32>
}

// -----

func.func @bad_init() -> !ocannl_shape.tensor<"3->5", f32> {
  // expected-error@+1 {{'ocannl_shape.param' op attribute 'init' must be one of the initializations uniform, glorot, he, normal, zeros, constant, but got "xavier"}}
  %g = "ocannl_shape.param"() {name = "g", init = "xavier"} : () -> !ocannl_shape.tensor<"3->5", f32>
  return %g : !ocannl_shape.tensor<"3->5", f32>
}
