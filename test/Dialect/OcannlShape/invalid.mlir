// RUN: ocannl-opt %s --split-input-file --verify-diagnostics
// Stock mlir-opt with the IRDL file rejects the cases IRDL can express
// (kinds of operands and results, required attributes, closed sets of names):
// RUN: not mlir-opt --irdl-file=%shape_irdl %s --split-input-file 2>&1 | FileCheck %s --check-prefix=STOCK

// Malformed ocannl_shape ops and types, rejected by the dialect's verifier
// when the input is parsed (before any pass), with MLIR's conventions: the
// op's name first, operands and results numbered from 0.

func.func @einsum_missing_arrow(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op invalid einsum spec: expected '=>' separating the operands from the result ("rhs => lhs") at position 5 in "ij;jk"}}
  %e = "ocannl_shape.einsum"(%x) {spec = "ij;jk"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_arity(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op einsum spec "ij;jk=>ik" has 2 operand slot(s) before '=>' but the op has 1 operand(s)}}
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
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'ocannl_shape.einsum' op attribute "spec" is expected but not provided
  // expected-error@+1 {{'ocannl_shape.einsum' op requires attribute 'spec'}}
  %e = "ocannl_shape.einsum"(%x) : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_unary_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op attribute 'op' must be one of the unary ops identity, relu}}
  %e = "ocannl_shape.einsum"(%x) {spec = "i => i", op = "mul"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @einsum_three_operands(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
  // expected-error@+1 {{'ocannl_shape.einsum' op expected 1 or 2 operands, but found 3}}
  %e = "ocannl_shape.einsum"(%x, %x, %x) {spec = "i; i; i => i"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @unary_unknown_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"frob"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_shape.pointwise_unary' op attribute 'op' must be one of the unary ops identity, relu, satur01, exp, log, exp2, log2, sin, cos, sqrt, recip, recip_sqrt, neg, tanh, erf, not, stop_gradient, but got "frob"}}
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "frob"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @unary_misspelled_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"rleu"' does not satisfy the constraint
  // expected-error@+1 {{but got "rleu" (did you mean "relu"?)}}
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "rleu"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @binary_with_unary_op(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"relu"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_shape.pointwise_binary' op attribute 'op' must be one of the binary ops add, sub}}
  %r = "ocannl_shape.pointwise_binary"(%x, %x) {op = "relu"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @binary_arity(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: op expects exactly 2 operands, but got 1
  // expected-error@+1 {{'ocannl_shape.pointwise_binary' op expected 2 operands, but found 1}}
  %r = "ocannl_shape.pointwise_binary"(%x) {op = "add"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @builtin_tensor_operand(%x: tensor<3x4xf32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base type 'ocannl_shape.tensor' but got 'builtin.tensor'
  // expected-error@+1 {{'ocannl_shape.pointwise_unary' op operand #0 ('x') must be an !ocannl_shape.tensor, but got 'tensor<3x4xf32>'; a tensor of this dialect is written !ocannl_shape.tensor<"3,4", f32> (its shape in OCANNL's notation, batch|input->output)}}
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (tensor<3x4xf32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @builtin_tensor_result(%x: !ocannl_shape.tensor<"3", f32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base type 'ocannl_shape.tensor' but got 'builtin.tensor'
  // expected-error@+1 {{'ocannl_shape.transpose' op result #0 ('result') must be an !ocannl_shape.tensor, but got 'tensor<3xf32>'; a tensor of this dialect is written !ocannl_shape.tensor<"3", f32>}}
  %r = "ocannl_shape.transpose"(%x) : (!ocannl_shape.tensor<"3", f32>) -> tensor<3xf32>
  return
}

// -----

func.func @compose_bad_accum(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.compose' op attribute 'accum' must be one of the accumulations add, sub, mul, div, max, min, but got "relu"}}
  %r = "ocannl_shape.compose"(%x, %x) {accum = "relu"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @compose_misspelled_attribute(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.compose' op has an unknown attribute 'acum' (did you mean 'accum'?); its attributes are 'op', 'accum' (another dialect's attribute is written 'dialect.name')}}
  %r = "ocannl_shape.compose"(%x, %x) {op = "add", acum = "max"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @transpose_attribute(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.transpose' op has an unknown attribute 'axes'; this op has no attributes}}
  %r = "ocannl_shape.transpose"(%x) {axes = [1, 0]} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @other_dialect_attribute(%x: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  // Attributes of other dialects are allowed (no error here).
  %r = "ocannl_shape.transpose"(%x) {mine.note = "kept"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}

// -----

func.func @compose_accum_not_string(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{'ocannl_shape.compose' op attribute 'accum' must be a string, but got 1 : i32}}
  %r = "ocannl_shape.compose"(%x, %x) {accum = 1 : i32} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @param_with_batch() {
  // expected-error@+1 {{'ocannl_shape.param' op param 'w' has batch axes in its type "2|3->4"; a param never has batch axes}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"2|3->4", f32>
  return
}

// -----

func.func @param_empty_name() {
  // expected-error@+1 {{'ocannl_shape.param' op requires a non-empty 'name'}}
  %w = "ocannl_shape.param"() {name = ""} : () -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @param_negative_std() {
  // expected-error@+1 {{'ocannl_shape.param' op attribute 'std' must be a number at least 0, found -2.000000e-02 : f64}}
  %w = "ocannl_shape.param"() {name = "w", init = "normal", std = -0.02 : f64} : () -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @param_name_not_string() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base attribute 'builtin.string' but got 'builtin.integer'
  // expected-error@+1 {{'ocannl_shape.param' op attribute 'name' must be a string, but got 3 : i64}}
  %w = "ocannl_shape.param"() {name = 3} : () -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @constant_bad_value() {
  // expected-error@+1 {{'ocannl_shape.constant' op attribute 'value' must be a float, an integer or a dense literal, but got "x"}}
  %c = "ocannl_shape.constant"() {value = "x"} : () -> !ocannl_shape.tensor<"1", f32>
  return
}

// -----

func.func @bad_shape_string() {
  // expected-error@+1 {{invalid shape: '_' placeholders are only allowed in einsum specs at position 0 in "_"}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"_", f32>
  return
}

// -----

// expected-error@+1 {{invalid shape: expected a dimension size after 'a=', found "x" at position 2 in "a=x"}}
func.func @bad_argument_shape(%x: !ocannl_shape.tensor<"a=x", f32>) {
  return
}

// -----

func.func @bad_element_type() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'i32' does not satisfy the constraint
  // expected-error@+1 {{the element type must be f16, bf16, f32 or f64, but got 'i32'}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"4", i32>
  return
}

// -----

func.func @slice_index_type(%x: !ocannl_shape.tensor<"2|3", f32>, %i: i32) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected 'index' but got 'i32'
  // expected-error@+1 {{'ocannl_shape.batch_slice' op operand #1 ('index') must be index, but got 'i32'}}
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
// expected-error@+1 {{invalid shape: a dimension of size 0: every axis has at least one cell at position 2 in "2,0"}}
func.func @zero_axis(%x: !ocannl_shape.tensor<"2,0", f32>) {
  return
}

// -----

// expected-error@+1 {{invalid shape: the dimension size 9223372036854775808 is larger than any axis can be (9223372036854775807 cells) at position 0 in "9223372036854775808"}}
func.func @dim_beyond_index(%x: !ocannl_shape.tensor<"9223372036854775808", f32>) {
  return
}

// -----

func.func @fixed_index_beyond_axes(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{invalid einsum spec: the fixed index 18446744073709551615 is beyond the largest axis (9223372036854775807 cells)}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i => 18446744073709551615"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @capture_unknown_label(%x: !ocannl_shape.tensor<"2->3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op the spec has no label or row variable 'k' to capture (it has: i, j, batch)}}
  %y = "ocannl_shape.einsum"(%x) {spec = "...|i->j => ...|j", capture = ["k"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @capture_twice(%x: !ocannl_shape.tensor<"2->3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op 'i' appears twice in 'capture'; each label to capture once}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = ["i", "i"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @capture_not_strings(%x: !ocannl_shape.tensor<"2->3", f32>) {
  // expected-error@+1 {{'ocannl_shape.einsum' op attribute 'capture' must be an array of strings, but element #0 is 3 : i64}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = [3]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @set_dim_zero() {
  // expected-error@+1 {{'ocannl_shape.set_dim' op attribute 'value' must be at least 1, not 0}}
  "ocannl_shape.set_dim"() {ref = "h", value = 0 : i64} : () -> ()
  return
}

// -----

func.func @set_dim_no_ref() {
  // expected-error@+1 {{'ocannl_shape.set_dim' op requires a non-empty 'ref'}}
  "ocannl_shape.set_dim"() {ref = "", value = 3 : i64} : () -> ()
  return
}

// -----

func.func @set_equal_empty() {
  // expected-error@+1 {{'ocannl_shape.set_equal' op requires non-empty 'lhs' and 'rhs'}}
  "ocannl_shape.set_equal"() {lhs = "a", rhs = " "} : () -> ()
  return
}

// -----

func.func @dim_not_scalar() {
  // expected-error@+1 {{'ocannl_shape.dim' op a named dimension is a scalar: its shape is "" (or "?"), not "3"}}
  %n = "ocannl_shape.dim"() {ref = "d"} : () -> !ocannl_shape.tensor<"3", f32>
  return
}

// -----

func.func @dim_no_ref() {
  // expected-error@+1 {{'ocannl_shape.dim' op requires a non-empty 'ref'}}
  %n = "ocannl_shape.dim"() {ref = ""} : () -> !ocannl_shape.tensor<"", f32>
  return
}

// -----

func.func @param_constant_not_finite() {
  // expected-error@+1 {{'ocannl_shape.param' op attribute 'value' must be a finite number, found 0x7FF0000000000000 : f64}}
  %w = "ocannl_shape.param"() {name = "w", init = "constant", value = 0x7FF0000000000000 : f64} : () -> !ocannl_shape.tensor<"3", f32>
  return
}
