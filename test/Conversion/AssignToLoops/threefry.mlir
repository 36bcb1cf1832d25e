// RUN: ocannl-opt %s --ocannl-lower-to-loops | FileCheck %s

// `generator = "threefry"`: each cell encrypts its block (index / 4) with
// Threefry-4x32-20 in 32-bit integer arithmetic (rotations as two shifts
// and an or), keyed by the seed's two halves, and takes word index % 4.
// CHECK-LABEL: func.func @init
// CHECK: arith.shrui %{{.*}}, %c2_i64 : i64
// CHECK: arith.andi %{{.*}}, %c3_i64 : i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK-COUNT-40: arith.shli %{{.*}} : i32
// CHECK-NOT: arith.shli %{{.*}} : i32
// CHECK: arith.select
// CHECK: arith.uitofp %{{.*}} : i32 to f32
func.func @init(%w: memref<4x8xf32>) {
  "ocannl_assign.uniform"(%w) {seed = 42 : i64, low = -1.0 : f64, high = 1.0 : f64, generator = "threefry"} : (memref<4x8xf32>) -> ()
  return
}
