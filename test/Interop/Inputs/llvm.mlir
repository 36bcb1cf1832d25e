// Upstream-style input for LLVM dialect passes with options.
llvm.func @g() {
  llvm.return
}

func.func @h(%m: memref<2xf32>) -> memref<2xf32> {
  return %m : memref<2xf32>
}
