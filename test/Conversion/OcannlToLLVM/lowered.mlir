// A module at the loops stage passes the check unchanged.
// RUN: ocannl-opt %s --ocannl-check-lowered | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK: memref.store
func.func @f(%y: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  memref.store %z, %y[%c0] : memref<3xf32>
  return
}
