// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true})' --verify-diagnostics -o /dev/null

// The explain option reports every assumption made while closing shapes.
func.func @f(%x: !ocannl_shape.tensor<"8|3", f32>) {
  // expected-remark@+2 {{closed the output row of param 'b' to its least upper bound [3]}}
  // expected-remark@+1 {{closed the input row of param 'b' to its least upper bound []}}
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"8|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// A param with no uses has the output [1].
func.func @unused() {
  // expected-remark@+2 {{param 'w' has no uses: its output row is [1]}}
  // expected-remark@+1 {{assumed the input row of param 'w' has no more axes}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  return
}

// An einsum result axis that no operand has broadcasts (numpy rejects it).
func.func @broadcast_axis(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-remark@+1 {{the result axis 'j' of the spec "i => i, j" is in no operand slot: it broadcasts (every cell along it gets the same value), as in OCANNL; numpy's einsum would reject it}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i => i, j"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3,4", f32>
  return
}

// In single-char mode every letter is an axis: "hidden" is six.
func.func @word_in_single_char(%x: !ocannl_shape.tensor<"2,3,4,4,5,6", f32>) {
  // expected-remark@+1 {{the spec "hidden => n" is read in single-char mode (it has no ','): "hidden" is 6 axes (h, i, d, d, e, n); to name one axis "hidden", separate the axes with commas (multichar mode), e.g. "..., hidden => ..."}}
  %y = "ocannl_shape.einsum"(%x) {spec = "hidden => n"} : (!ocannl_shape.tensor<"2,3,4,4,5,6", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// Usual single-letter specs are not words.
func.func @matmul(%a: !ocannl_shape.tensor<"2,3", f32>, %b: !ocannl_shape.tensor<"3,4", f32>) {
  %y = "ocannl_shape.einsum"(%a, %b) {spec = "ij;jk=>ik"} : (!ocannl_shape.tensor<"2,3", f32>, !ocannl_shape.tensor<"3,4", f32>) -> !ocannl_shape.tensor<"2,4", f32>
  return
}
