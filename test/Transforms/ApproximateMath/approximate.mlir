// RUN: ocannl-opt %s --ocannl-approximate-math --split-input-file | FileCheck %s
// RUN: not ocannl-opt %s --ocannl-approximate-math=ops=exp,gamma --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// f32 `erf`, `exp` and `tanh`, scalars and vectors, become polynomials of
// `arith` ops and `math.fma` (no call left for libm); f64 keeps its `math`
// ops, and `sin` and `log` (not in the default list) stay.
// CHECK-LABEL: func.func @f32
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma
// CHECK: math.sin
// CHECK: math.log
// CHECK-NOT: math.erf
// CHECK: return
func.func @f32(%x: f32, %v: vector<16xf32>) -> (f32, vector<16xf32>, f32, f32, f32) {
  %a = math.erf %x : f32
  %b = math.exp %v : vector<16xf32>
  %c = math.tanh %x : f32
  %d = math.sin %x : f32
  %e = math.log %x : f32
  return %a, %b, %c, %d, %e : f32, vector<16xf32>, f32, f32, f32
}

// -----

// CHECK-LABEL: func.func @f64
// CHECK: math.erf %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> (f64, f64) {
  %a = math.erf %x : f64
  %b = math.exp %x : f64
  return %a, %b : f64, f64
}

// UNKNOWN: error: ocannl-approximate-math: no approximation of 'gamma'; expected some of: acos, asin
