// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST

// a * b + c becomes one fused multiply-add under fast-math (one rounding
// instead of two); the ops' fast-math flags are kept.

// CHECK-LABEL: func.func @fma
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: math.fma
// FAST-LABEL: func.func @fma
// FAST-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64, %[[C:.*]]: f64)
// FAST: %[[R:.*]] = math.fma %[[A]], %[[B]], %[[C]] fastmath<contract> : f64
// FAST-NOT: arith.mulf
// FAST-NOT: arith.addf
// FAST: return %[[R]]
func.func @fma(%a: f64, %b: f64, %c: f64) -> f64 {
  %m = arith.mulf %a, %b fastmath<contract> : f64
  %r = arith.addf %m, %c fastmath<contract> : f64
  return %r : f64
}
