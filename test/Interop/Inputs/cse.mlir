// Upstream-style input: common subexpressions, nested regions.
func.func @cse(%x: f32, %y: f32) -> (f32, f32) {
  %a = arith.addf %x, %y : f32
  %b = arith.addf %x, %y : f32
  %c = arith.mulf %a, %b : f32
  %d = arith.mulf %a, %b : f32
  return %c, %d : f32, f32
}

func.func @nested(%m: memref<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %p = arith.mulf %s, %s : f32
    %q = arith.mulf %s, %s : f32
    %r = arith.addf %p, %q : f32
    memref.store %r, %m[%i] : memref<4xf32>
  }
  return
}
