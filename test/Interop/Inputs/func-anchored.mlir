// Upstream-style input for passes anchored on func.func, given as plain
// flags (stock mlir-opt nests them implicitly).
func.func @licm(%m: memref<16xf32>, %a: f32, %b: f32) {
  affine.for %i = 0 to 16 {
    %s = arith.addf %a, %b : f32
    affine.store %s, %m[%i] : memref<16xf32>
  }
  return
}

func.func @scalrep(%m: memref<16xf32>) -> f32 {
  %cst = arith.constant 1.0 : f32
  affine.store %cst, %m[3] : memref<16xf32>
  %v = affine.load %m[3] : memref<16xf32>
  return %v : f32
}

func.func @small_alloc() -> f32 {
  %cst = arith.constant 2.0 : f32
  %m = memref.alloc() : memref<4xf32>
  affine.store %cst, %m[0] : memref<4xf32>
  %v = affine.load %m[0] : memref<4xf32>
  memref.dealloc %m : memref<4xf32>
  return %v : f32
}
