// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry mean --arg range | FileCheck %s
// RUN: ocannl-run %s --entry mean --arg range --interpret | FileCheck %s
// RUN: ocannl-opt %s --ocannl-infer-shapes | FileCheck %s --check-prefix=INFER

// A row's mean as its sum over `dim d`, the row's elements read from the
// captured row variable `..d..` (OCANNL's `x ++ "...|..d.. => ...|0" ["d"]`
// then `/. dim d`): 2 rows of 2,3 cells, 0..5 and 6..11.
// INFER: "ocannl_shape.dim"() {ref = "d", value = 6 : i64} : () -> !ocannl_shape.tensor<"", f32>
// CHECK: result0: shape [2, 1] dtype f32
// CHECK-NEXT: {{\[\[}}2.500000],
// CHECK-NEXT: [8.500000]]
func.func @mean(%x: !ocannl_shape.tensor<"2|2,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|..d.. => ...|0", capture = ["d"]} : (!ocannl_shape.tensor<"2|2,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %n = "ocannl_shape.dim"() {ref = "d"} : () -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.pointwise_binary"(%s, %n) {op = "div"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %m : !ocannl_shape.tensor<"?", f32>
}
