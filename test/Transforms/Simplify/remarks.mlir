// RUN: ocannl-opt %s --allow-unregistered-dialect --ocannl-simplify=remarks=true --verify-diagnostics -o /dev/null

// With remarks, each simplified block is reported at the op that owns it:
// the cost before and after, the e-graph's size and iterations, and why the
// run stopped. Blocks left as they are are not reported.

// expected-remark @below {{ocannl-simplify: f32 computations of a 'func.func' block: cost 3.5 -> 0 (e-graph: 6 nodes, 2 iterations, stopped: Saturated)}}
func.func @simplified(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %a = arith.mulf %x, %one : f32
  %b = arith.negf %a : f32
  %c = arith.negf %b : f32
  return %c : f32
}

func.func @kept(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// A block of any op: the remark is at the op.
func.func @region(%x: f64) {
  // expected-remark @below {{ocannl-simplify: f64 computations of a 'test.accum' block: cost 81 -> 41}}
  "test.accum"() ({
  ^bb0(%a: f64, %b: f64):
    %p = math.powf %a, %b : f64
    %q = math.powf %a, %b : f64
    %s = arith.addf %p, %q : f64
    "test.yield"(%s) : (f64) -> ()
  }) : () -> ()
  return
}
