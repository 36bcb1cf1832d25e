// RUN: ocannl-opt %s --ocannl-profile-kernels | FileCheck %s
// A module that calls no kernel is left as it is.
// CHECK-NOT: ocannl.profile
// CHECK-NOT: __ocannl_now
func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
  return %a : memref<4xf32>
}
