  func.func private @printMemrefF32(tensor<*xf32>)
  func.func @main() {
    %r = func.call @f() : () -> tensor<RESULT_TYPE>
    %u = tensor.cast %r : tensor<RESULT_TYPE> to tensor<*xf32>
    func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }
}
