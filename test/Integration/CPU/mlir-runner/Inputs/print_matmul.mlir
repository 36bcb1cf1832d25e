  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %r = func.call @matmul() : () -> memref<2x2xf32>
    %u = memref.cast %r : memref<2x2xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
