// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST

// Constants fold in the computation's format, rounded once as the op
// rounds: 0.1 + 0.2 is 0.3 in f32 and 0.2998 in f16.

// CHECK-LABEL: func.func @fold_f32
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[C:.*]] = arith.constant 3.000000{{[0-9]*}}e-01 : f32
// CHECK: %[[R:.*]] = arith.addf %[[X]], %[[C]] : f32
// CHECK: return %[[R]]
func.func @fold_f32(%x: f32) -> f32 {
  %a = arith.constant 0.1 : f32
  %b = arith.constant 0.2 : f32
  %s = arith.addf %a, %b : f32
  %r = arith.addf %x, %s : f32
  return %r : f32
}

// CHECK-LABEL: func.func @fold_f16
// CHECK: %[[C:.*]] = arith.constant 2.998050e-01 : f16
// CHECK: return %[[C]]
func.func @fold_f16() -> f16 {
  %a = arith.constant 0.1 : f16
  %b = arith.constant 0.2 : f16
  %s = arith.addf %a, %b : f16
  return %s : f16
}

// Correctly rounded ops fold exactly (2 * 3 - sqrt(4) / 0.5 = 2); library
// functions (exp) fold only under fast-math.
// CHECK-LABEL: func.func @fold_ops
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG: %[[E:.*]] = math.exp %[[ONE]] : f64
// CHECK: return %[[TWO]], %[[E]]
// FAST-LABEL: func.func @fold_ops
// FAST-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// FAST-DAG: %[[E:.*]] = arith.constant 2.718281{{.*}} : f64
// FAST-NOT: math.exp
// FAST: return %[[TWO]], %[[E]]
func.func @fold_ops() -> (f64, f64) {
  %c2 = arith.constant 2.0 : f64
  %c3 = arith.constant 3.0 : f64
  %c4 = arith.constant 4.0 : f64
  %half = arith.constant 0.5 : f64
  %one = arith.constant 1.0 : f64
  %m = arith.mulf %c2, %c3 : f64
  %q = math.sqrt %c4 : f64
  %d = arith.divf %q, %half : f64
  %r = arith.subf %m, %d : f64
  %e = math.exp %one : f64
  return %r, %e : f64, f64
}
