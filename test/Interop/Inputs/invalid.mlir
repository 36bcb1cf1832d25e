// Upstream-style diagnostics, one case per chunk.
func.func @wrong_result(%x: i32) -> i32 {
  // expected-error@+1 {{'arith.addi' op requires the same type for all operands and results}}
  %y = "arith.addi"(%x, %x) : (i32, i32) -> i64
  return %x : i32
}

// -----

func.func @wrong_return(%x: i32) -> f32 {
  // expected-error@+1 {{type of return operand 0 ('i32') doesn't match function result type ('f32')}}
  return %x : i32
}

// -----

func.func @bad_index(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{incorrect number of indices for load}}
  %v = memref.load %m[%c0, %c0] : memref<4xf32>
  return
}
