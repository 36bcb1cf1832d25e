// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,ocannl-outline-kernels)' | FileCheck %s

// A uniform initialization's seed, scale and offset are constants marked as
// a kernel's arguments: the initializations of two params of one shape with
// different seeds and ranges share one kernel, each call passing its own.

// CHECK-LABEL: func.func @init(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<3x4xf32>)
// CHECK-DAG: %[[S1:.*]] = arith.constant {ocannl.kernel_argument} 1 : i64
// CHECK-DAG: %[[L1:.*]] = arith.constant {ocannl.kernel_argument} -5.000000e-01 : f32
// CHECK: call @[[K:__ocannl_kernel_[0-9a-f]+]](%[[S1]], %{{.*}}, %[[L1]], %[[A]]) : (i64, f32, f32, memref<3x4xf32>) -> ()
// CHECK-DAG: %[[S2:.*]] = arith.constant {ocannl.kernel_argument} 2 : i64
// CHECK-DAG: %[[L2:.*]] = arith.constant {ocannl.kernel_argument} -2.500000e-01 : f32
// CHECK: call @[[K]](%[[S2]], %{{.*}}, %[[L2]], %[[B]]) : (i64, f32, f32, memref<3x4xf32>) -> ()
// CHECK: func.func private @[[K]](%arg0: i64, %arg1: f32, %arg2: f32, %arg3: memref<3x4xf32>)
// CHECK-NOT: func.func private @__ocannl_kernel
func.func @init(%a: memref<3x4xf32>, %b: memref<3x4xf32>) {
  "ocannl_assign.uniform"(%a) {seed = 1 : i64, low = -0.5 : f64, high = 0.5 : f64} : (memref<3x4xf32>) -> ()
  "ocannl_assign.uniform"(%b) {seed = 2 : i64, low = -0.25 : f64, high = 0.25 : f64} : (memref<3x4xf32>) -> ()
  return
}
