// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,ocannl-outline-kernels)' | FileCheck %s

// A normal initialization's seed, standard deviation and mean are a
// kernel's arguments too: two params of one shape share its kernel, which
// draws two counters per cell (Box-Muller: a logarithm and a cosine).

// CHECK-LABEL: func.func @init(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<3x4xf32>)
// CHECK-DAG: %[[S1:.*]] = arith.constant {ocannl.kernel_argument} 1 : i64
// CHECK-DAG: %[[D1:.*]] = arith.constant {ocannl.kernel_argument} 2.000000e-02 : f32
// CHECK: call @[[K:__ocannl_kernel_[0-9a-f]+]](%[[S1]], %[[D1]], %{{.*}}, %[[A]]) : (i64, f32, f32, memref<3x4xf32>) -> ()
// CHECK-DAG: %[[S2:.*]] = arith.constant {ocannl.kernel_argument} 2 : i64
// CHECK-DAG: %[[D2:.*]] = arith.constant {ocannl.kernel_argument} 5.000000e-01 : f32
// CHECK: call @[[K]](%[[S2]], %[[D2]], %{{.*}}, %[[B]]) : (i64, f32, f32, memref<3x4xf32>) -> ()
// CHECK: func.func private @[[K]](%arg0: i64, %arg1: f32, %arg2: f32, %arg3: memref<3x4xf32>)
// CHECK-COUNT-2: arith.uitofp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.cos
// CHECK-NOT: func.func private @__ocannl_kernel
func.func @init(%a: memref<3x4xf32>, %b: memref<3x4xf32>) {
  "ocannl_assign.normal"(%a) {seed = 1 : i64, std = 0.02 : f64} : (memref<3x4xf32>) -> ()
  "ocannl_assign.normal"(%b) {seed = 2 : i64, mean = 1.0 : f64, std = 0.5 : f64} : (memref<3x4xf32>) -> ()
  return
}
