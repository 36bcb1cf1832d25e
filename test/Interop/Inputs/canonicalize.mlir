// Upstream-style input: folding and canonicalization of arith and scf.
func.func @fold(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.muli %c2, %c3 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}

func.func @dead_loop(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c0 step %c1 {
    %v = memref.load %m[%i] : memref<8xf32>
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
