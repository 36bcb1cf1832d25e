// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file --verify-diagnostics

func.func @mismatch(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"4", f32>) {
  // expected-error@+1 {{shape mismatch in pointwise: dimension mismatch: 4 vs 3 (the output row of operand #1 broadcast to the result's); operand shapes: #1 "3", #2 "4"}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// The conflict surfaces where it is found: at the op where the two sizes
// meet, with notes at the ops that made its operands.
func.func @noted(%a: !ocannl_shape.tensor<"3", f32>) {
  // expected-note@+1 {{operand #1 (param) has shape "5"}}
  %p = "ocannl_shape.param"() {name = "p"} : () -> !ocannl_shape.tensor<"5", f32>
  // expected-note@+1 {{operand #2 (pointwise) has shape "...|...->...,3"}}
  %n = "ocannl_shape.pointwise_unary"(%a) {op = "neg"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{shape mismatch in pointwise: dimension mismatch: 3 vs 5 (the output row of operand #1 broadcast to the result's); operand shapes: #1 "5", #2 "...|...->...,3"}}
  %c = "ocannl_shape.pointwise_binary"(%p, %n) {op = "add"} : (!ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @compose_mismatch(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|5", f32>) {
  // expected-error@+1 {{(the output row of operand #2 against the input row of operand #1); operand shapes: #1 "3->4", #2 "10|5"}}
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @hidden(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{You forgot to specify the hidden dimension(s): axis 0 of the output row of param 'w' is not determined by its uses}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->h", f32>
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->h", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @labels(%a: !ocannl_shape.tensor<"rgb=3", f32>, %b: !ocannl_shape.tensor<"xyz=3", f32>) {
  // expected-error@+1 {{label mismatch}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"rgb=3", f32>, !ocannl_shape.tensor<"xyz=3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @declared_result(%a: !ocannl_shape.tensor<"3,4", f32>) {
  // expected-error@+1 {{number of axes mismatch}}
  %c = "ocannl_shape.pointwise_unary"(%a) {op = "neg"} : (!ocannl_shape.tensor<"3,4", f32>) -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

func.func @index_out_of_range(%x: !ocannl_shape.tensor<"7|2,5", f32>) {
  // expected-error@+1 {{dimension 2 is too small: an index needs at least 3}}
  %y = "ocannl_shape.einsum"(%x) {spec = "...|2,j => ...|j"} : (!ocannl_shape.tensor<"7|2,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Self-reference is detected, not looped on.
func.func @self_reference(%x: !ocannl_shape.tensor<"..v..", f32>) {
  // expected-error@+1 {{infinite number of axes by self-reference}}
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"..v..", f32>) -> !ocannl_shape.tensor<"..v..,3", f32>
  return
}

// -----

func.func @kernel_too_big(%x: !ocannl_shape.tensor<"2", f32>, %k: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{the input dimension 2 is smaller than the kernel extent 3}}
  %y = "ocannl_shape.einsum"(%x, %k) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"2", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @literal_size() {
  // expected-error@+1 {{the literal has 3 elements but the shape has 4}}
  %c = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

// A dim fixed by an earlier op that is not an operand: the note names it.
func.func @decided_elsewhere(%x: !ocannl_shape.tensor<"n", f32>, %c: !ocannl_shape.tensor<"3", f32>, %z: !ocannl_shape.tensor<"n", f32>, %w: !ocannl_shape.tensor<"5", f32>) {
  // expected-note@+1 {{a conflicting dimension was decided by this pointwise (shape "3")}}
  %u = "ocannl_shape.pointwise_binary"(%x, %c) {op = "add"} : (!ocannl_shape.tensor<"n", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"n", f32>
  // expected-error@+1 {{dimension mismatch: 5 vs 3 (the output row of operand #1 broadcast to the result's); operand shapes: #1 "3", #2 "5"}}
  %v = "ocannl_shape.pointwise_binary"(%z, %w) {op = "add"} : (!ocannl_shape.tensor<"n", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
