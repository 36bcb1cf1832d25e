// RUN: ocannl-opt %s --split-input-file --verify-diagnostics

// Malformed ocannl_shape ops: what IRDL rejects at parse time, and what the
// project's verifier (ocannl-verify) rejects before any pass runs.

func.func @einsum_missing_arrow(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{invalid einsum spec: expected '=>' separating the operands from the result ("rhs => lhs") at position 5 in "ij;jk"}}
  %e = "ocannl_shape.einsum"(%x) {spec = "ij;jk"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_arity(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{einsum spec "ij;jk=>ik" has 2 operand slot(s) before '=>' but the op has 1 operand(s)}}
  %e = "ocannl_shape.einsum"(%x) {spec = "ij;jk=>ik"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_bad_axis(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{invalid einsum spec: unexpected character '#' at position 1 in "i#=>i"}}
  %e = "ocannl_shape.einsum"(%x) {spec = "i#=>i"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_dim_and_row_var(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{name 'd' is used as both a dimension variable and a row variable}}
  %e = "ocannl_shape.einsum"(%x, %x) {spec = "..d.., d; d, e => ..d.., e"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_missing_spec(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op attribute "spec" is expected but not provided}}
  %e = "ocannl_shape.einsum"(%x) : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @unary_unknown_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{unknown unary op 'frob' in attribute 'op'}}
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "frob"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @binary_with_unary_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{unknown binary op 'relu' in attribute 'op'}}
  %r = "ocannl_shape.pointwise_binary"(%x, %x) {op = "relu"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @binary_arity(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{op expects exactly 2 operands, but got 1}}
  %r = "ocannl_shape.pointwise_binary"(%x) {op = "add"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @compose_bad_accum(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{unknown accumulation op 'relu' in attribute 'accum'}}
  %r = "ocannl_shape.compose"(%x, %x) {accum = "relu"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @compose_accum_not_string(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{attribute 'accum' must be a string, found 1 : i32}}
  %r = "ocannl_shape.compose"(%x, %x) {accum = 1 : i32} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @param_with_batch() {
  // expected-error@+1 {{param 'w' has batch axes in its type "2|3->4"; a param never has batch axes}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"2|3->4", f32>
  return
}

// -----

func.func @param_empty_name() {
  // expected-error@+1 {{a param needs a non-empty 'name'}}
  %w = "ocannl_shape.param"() {name = ""} : () -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @constant_bad_value() {
  // expected-error@+1 {{attribute 'value' must be a float or a dense literal, found "x"}}
  %c = "ocannl_shape.constant"() {value = "x"} : () -> !ocannl_shape.tensor<"1", f32>
  return
}

// -----

func.func @bad_shape_string() {
  // expected-error@+1 {{result #0: invalid shape: '_' placeholders are only allowed in einsum specs at position 0 in "_"}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"_", f32>
  return
}

// -----

// expected-error@+1 {{argument #0: invalid shape: expected a dimension size after 'a=', found "x" at position 2 in "a=x"}}
func.func @bad_argument_shape(%x: !ocannl_shape.tensor<"a=x", f32>) {
  return
}

// -----

func.func @bad_element_type() {
  // expected-error@+1 {{'i32' does not satisfy the constraint}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"4", i32>
  return
}

// -----

func.func @slice_index_type(%x: !ocannl_shape.tensor<"2|3", f32>, %i: i32) {
  // expected-error@+1 {{expected 'index' but got 'i32'}}
  %s = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"2|3", f32>, i32) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// The tensors of an op share one element type: no implicit conversion.
func.func @mixed_unary(%x: !ocannl_shape.tensor<"4", f16>) {
  // expected-error@+1 {{operand #0 has element type f16 but the result has f32; the tensors of an op share one element type}}
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"4", f16>) -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @mixed_binary(%x: !ocannl_shape.tensor<"4", f32>, %y: !ocannl_shape.tensor<"4", f64>) {
  // expected-error@+1 {{operand #1 has element type f64 but the result has f32}}
  %z = "ocannl_shape.compose"(%x, %y) : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f64>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @mixed_literal() {
  // expected-error@+1 {{the literal's element type f64 differs from the tensor's f32}}
  %c = "ocannl_shape.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf64>} : () -> !ocannl_shape.tensor<"2", f32>
  return
}

// -----

// Sizes in types: every axis has at least one cell, and at most 2^63 - 1.
// expected-error@+1 {{argument #0: invalid shape: a dimension of size 0: every axis has at least one cell at position 2 in "2,0"}}
func.func @zero_axis(%x: !ocannl_shape.tensor<"2,0", f32>) {
  return
}

// -----

// expected-error@+1 {{argument #0: invalid shape: the dimension size 9223372036854775808 is larger than any axis can be (9223372036854775807 cells) at position 0 in "9223372036854775808"}}
func.func @dim_beyond_index(%x: !ocannl_shape.tensor<"9223372036854775808", f32>) {
  return
}

// -----

func.func @fixed_index_beyond_axes(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{invalid einsum spec: the fixed index 18446744073709551615 is beyond the largest axis (9223372036854775807 cells)}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i => 18446744073709551615"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
