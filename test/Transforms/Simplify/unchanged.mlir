// RUN: ocannl-opt %s --allow-unregistered-dialect -o %t.before
// RUN: ocannl-opt %s --allow-unregistered-dialect --ocannl-simplify -o %t.after
// RUN: diff %t.before %t.after
// RUN: ocannl-opt %s --allow-unregistered-dialect --ocannl-simplify=fast-math=true -o %t.fast
// RUN: diff %t.before %t.fast

// Code that no rewrite makes cheaper is left exactly as written: operand
// order, constants, fast-math flags, ops of other types (vectors, integers)
// and ops of other dialects.
func.func @unchanged(%x: f32, %y: f32, %v: vector<4xf32>, %i: i32) -> (f32, vector<4xf32>, i32) {
  %c = arith.constant 2.5 : f32
  %a = arith.addf %y, %x fastmath<nnan> : f32
  %e = math.exp %a : f32
  %m = arith.mulf %c, %e fastmath<fast> : f32
  %t = math.tanh %m : f32
  "test.use"(%e) : (f32) -> ()
  %s = arith.subf %t, %c : f32
  %one = arith.constant dense<1.0> : vector<4xf32>
  %w = arith.mulf %v, %one : vector<4xf32>
  %zero = arith.constant 0 : i32
  %j = arith.addi %i, %zero : i32
  return %s, %w, %j : f32, vector<4xf32>, i32
}
