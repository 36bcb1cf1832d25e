  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %r = func.call @f() : () -> memref<RESULT_TYPE>
    %u = memref.cast %r : memref<RESULT_TYPE> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
