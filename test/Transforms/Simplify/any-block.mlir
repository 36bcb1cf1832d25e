// RUN: ocannl-opt %s --allow-unregistered-dialect --ocannl-simplify | FileCheck %s

// The pass does not care which op owns a block: here a region of an op of
// another dialect whose block arguments are scalars (as an accumulation's
// body), its terminator the roots' user. Each float type is one e-graph;
// f16 and bf16 constants fold in their own format.

// CHECK-LABEL: func.func @accum
// CHECK: "test.accum"() ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = math.powf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[P]] : f32
// CHECK-NEXT: "test.yield"(%[[S]]) : (f32) -> ()
func.func @accum() {
  "test.accum"() ({
  ^bb0(%a: f32, %b: f32):
    %p = math.powf %a, %b : f32
    %q = math.powf %a, %b : f32
    %s = arith.addf %p, %q : f32
    "test.yield"(%s) : (f32) -> ()
  }) : () -> ()
  return
}

// CHECK-LABEL: func.func @types
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f64, %[[H:.*]]: f16, %[[BF:.*]]: bf16)
// CHECK-DAG: %[[HC:.*]] = arith.constant 2.998050e-01 : f16
// CHECK-DAG: %[[HR:.*]] = arith.addf %[[H]], %[[HC]] : f16
// CHECK-DAG: %[[BC:.*]] = arith.constant 3.007810e-01 : bf16
// CHECK-DAG: %[[BR:.*]] = arith.addf %[[BF]], %[[BC]] : bf16
// CHECK: return %[[X]], %[[Y]], %[[HR]], %[[BR]]
func.func @types(%x: f32, %y: f64, %h: f16, %bf: bf16) -> (f32, f64, f16, bf16) {
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 1.0 : f64
  %a = arith.mulf %x, %c1 : f32
  %b = arith.mulf %y, %c2 : f64
  %h1 = arith.constant 0.1 : f16
  %h2 = arith.constant 0.2 : f16
  %hs = arith.addf %h1, %h2 : f16
  %hr = arith.addf %h, %hs : f16
  %b1 = arith.constant 0.1 : bf16
  %b2 = arith.constant 3.0 : bf16
  %bs = arith.mulf %b1, %b2 : bf16
  %br = arith.addf %bf, %bs : bf16
  return %a, %b, %hr, %br : f32, f64, f16, bf16
}
