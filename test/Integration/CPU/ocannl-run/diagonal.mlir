// REQUIRES: ocannl-run
// Writes that leave cells unwritten (a diagonal, a repeated index, a fixed
// index) define the other cells as 0, compiled as interpreted; adding 1
// afterwards reads them.
// RUN: ocannl-run %s --entry diag --arg range | FileCheck %s --check-prefix=DIAG
// RUN: ocannl-run %s --entry diag --arg range --interpret | FileCheck %s --check-prefix=DIAG
// RUN: ocannl-run %s --entry repeated --arg range | FileCheck %s --check-prefix=REP
// RUN: ocannl-run %s --entry repeated --arg range --interpret | FileCheck %s --check-prefix=REP
// RUN: ocannl-run %s --entry fixed --arg range | FileCheck %s --check-prefix=FIX
// RUN: ocannl-run %s --entry fixed --arg range --interpret | FileCheck %s --check-prefix=FIX

// DIAG: result0: shape [3, 3] dtype f32
// DIAG-NEXT: {{\[}}[0, 0, 0],
// DIAG-NEXT:  [0, 1, 0],
// DIAG-NEXT:  [0, 0, 2]]
// DIAG-NEXT: result1: shape [3, 3] dtype f32
// DIAG-NEXT: {{\[}}[1, 1, 1],
// DIAG-NEXT:  [1, 2, 1],
// DIAG-NEXT:  [1, 1, 3]]
func.func @diag(%x: !ocannl_shape.tensor<"3", f32>) -> (!ocannl_shape.tensor<"3,3", f32>, !ocannl_shape.tensor<"3,3", f32>) {
  %d = "ocannl_shape.einsum"(%x) {spec = "i=>ii"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3,3", f32>
  %one = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%d, %one) {op = "add"} : (!ocannl_shape.tensor<"3,3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"3,3", f32>
  return %d, %p : !ocannl_shape.tensor<"3,3", f32>, !ocannl_shape.tensor<"3,3", f32>
}

// REP: result0: shape [2, 2, 2] dtype f32
// REP-NEXT: {{\[}}{{\[}}[1, 2],
// REP-NEXT:   [1, 1]],
// REP-NEXT:  {{\[}}[1, 1],
// REP-NEXT:   [3, 4]]]
func.func @repeated(%x: !ocannl_shape.tensor<"2,2", f32>) -> !ocannl_shape.tensor<"2,2,2", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "ij=>iij"} : (!ocannl_shape.tensor<"2,2", f32>) -> !ocannl_shape.tensor<"2,2,2", f32>
  %one = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%d, %one) {op = "add"} : (!ocannl_shape.tensor<"2,2,2", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"2,2,2", f32>
  return %p : !ocannl_shape.tensor<"2,2,2", f32>
}

// FIX: result0: shape [3, 2] dtype f32
// FIX-NEXT: {{\[}}[1, 1],
// FIX-NEXT:  [1, 2],
// FIX-NEXT:  [1, 3]]
func.func @fixed(%x: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3,2", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "i=>i1"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3,2", f32>
  %one = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%d, %one) {op = "add"} : (!ocannl_shape.tensor<"3,2", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"3,2", f32>
  return %p : !ocannl_shape.tensor<"3,2", f32>
}
