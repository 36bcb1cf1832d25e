  func.func private @printMemrefF32(tensor<*xf32>)
  func.func @main() {
    %x = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
    %i = arith.constant INDEX : index
    %r = func.call @f(%x, %i) : (tensor<3x2xf32>, index) -> tensor<2xf32>
    %u = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
    func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }
}
