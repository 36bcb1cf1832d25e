// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file --verify-diagnostics

func.func @mismatch(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"4", f32>) {
  // expected-error@+1 {{shape mismatch in pointwise: dimension mismatch: 4 vs 3 (the output row of operand #0 broadcast to the result's); operand shapes: #0 "3", #1 "4"}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// The conflict surfaces where it is found: at the op where the two sizes
// meet, with notes at the ops that made its operands.
func.func @noted(%a: !ocannl_shape.tensor<"3", f32>) {
  // expected-note@+1 {{operand #0 (param) has shape "5"}}
  %p = "ocannl_shape.param"() {name = "p"} : () -> !ocannl_shape.tensor<"5", f32>
  // expected-note@+1 {{operand #1 (pointwise) has shape "...|...->...,3"}}
  %n = "ocannl_shape.pointwise_unary"(%a) {op = "neg"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{shape mismatch in pointwise: dimension mismatch: 3 vs 5 (the output row of operand #0 broadcast to the result's); operand shapes: #0 "5", #1 "...|...->...,3"}}
  %c = "ocannl_shape.pointwise_binary"(%p, %n) {op = "add"} : (!ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @compose_mismatch(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|5", f32>) {
  // expected-error@+1 {{(the output row of operand #1 against the input row of operand #0); operand shapes: #0 "3->4", #1 "10|5"}}
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @hidden(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{You forgot to specify the hidden dimension(s): axis 0 of the output row of param 'w' is not determined by its uses (shape so far: 3->?); write its size in the type of the param}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->h", f32>
  // expected-note@+1 {{the param is used here by this compose (shape "...|...->...,?"), which does not determine its output row}}
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->h", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// OCANNL's `{w} * [3;4;5]`: the use gives the param's input row (3), but
// nothing determines its output row.
func.func @hidden_row(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{You forgot to specify the hidden dimension(s): the output row of param 'w' is not determined by its uses (shape so far: 3->...); write its axes in the type of the param}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  // expected-note@+1 {{the param is used here by this compose (shape "...|...->..."), which does not determine its output row}}
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// OCANNL's `{x} + {y}`: two params and nothing else.
func.func @hidden_both() {
  // expected-error@+1 {{You forgot to specify the hidden dimension(s): the input row of param 'x' is not determined by its uses (shape so far: ...->...)}}
  %x = "ocannl_shape.param"() {name = "x"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.param"() {name = "y"} : () -> !ocannl_shape.tensor<"?", f32>
  // expected-note@+1 {{the param is used here by this pointwise (shape "...|...->..."), which does not determine its input row}}
  %z = "ocannl_shape.pointwise_binary"(%x, %y) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @labels(%a: !ocannl_shape.tensor<"rgb=3", f32>, %b: !ocannl_shape.tensor<"xyz=3", f32>) {
  // expected-error@+1 {{label mismatch}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"rgb=3", f32>, !ocannl_shape.tensor<"xyz=3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Different labels conflict on size-1 dims too.
func.func @labelled_ones(%a: !ocannl_shape.tensor<"p=1", f32>, %b: !ocannl_shape.tensor<"q=1", f32>) {
  // expected-error@+1 {{label mismatch: q=1 vs p=1}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"p=1", f32>, !ocannl_shape.tensor<"q=1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A labelled 1 is not a broadcast wildcard.
func.func @labelled_one_no_broadcast(%a: !ocannl_shape.tensor<"5", f32>, %b: !ocannl_shape.tensor<"q=1", f32>) {
  // expected-error@+1 {{dimension mismatch: q=1 vs 5 (the output row of operand #0 broadcast to the result's); operand shapes: #0 "5", #1 "q=1"}}
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"q=1", f32>) -> !ocannl_shape.tensor<"?", f32>
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

// A fixed index never reads a broadcast axis of size 1.
func.func @index_into_one(%x: !ocannl_shape.tensor<"4,1", f32>) {
  // expected-error@+1 {{dimension 1 is too small: an index needs at least 3}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i2=>i"} : (!ocannl_shape.tensor<"4,1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// ... nor a declared axis of an einsum result that is too small for it.
func.func @index_into_result(%x: !ocannl_shape.tensor<"4", f32>) {
  // expected-note@+1 {{operand #0 (einsum) has shape "4,2"}}
  %s = "ocannl_shape.einsum"(%x) {spec = "i=>i0"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4,2", f32>
  // expected-error@+1 {{dimension 2 is too small: an index needs at least 3}}
  %y = "ocannl_shape.einsum"(%s) {spec = "i2=>i"} : (!ocannl_shape.tensor<"4,2", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// batch_slice needs a batch axis.
func.func @slice_no_batch(%x: !ocannl_shape.tensor<"3", f32>, %i: index) {
  // expected-error@+1 {{number of axes mismatch: the operand has no batch axis to slice}}
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"3", f32>, index) -> !ocannl_shape.tensor<"?", f32>
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
  // expected-error@+1 {{dimension mismatch: 5 vs 3 (the output row of operand #0 broadcast to the result's); operand shapes: #0 "3", #1 "5"}}
  %v = "ocannl_shape.pointwise_binary"(%z, %w) {op = "add"} : (!ocannl_shape.tensor<"n", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// The output of a convolution is not taken from its consumer, so it does
// not determine the kernel: a param's dims are never guessed.
func.func @conv_kernel_open(%x: !ocannl_shape.tensor<"8|12", f32>, %t: !ocannl_shape.tensor<"10", f32>) {
  // expected-error@+1 {{You forgot to specify the hidden dimension(s): axis 0 of the output row of param 'k' is not determined by its uses (shape so far: ?)}}
  %k = "ocannl_shape.param"() {name = "k"} : () -> !ocannl_shape.tensor<"?", f32>
  // expected-note@+1 {{the param is used here by this einsum}}
  %y = "ocannl_shape.einsum"(%x, %k) {spec = "...|o<+k; k => ...|o"} : (!ocannl_shape.tensor<"8|12", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%y, %t) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"10", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Ops of other dialects keep their types: inference does not rewrite a
// tensor a call uses (the callee's signature would no longer match).
func.func private @g(!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>

func.func @call(%x: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{'func.call' has a tensor of shape "?" that inference makes "3"; ops of other dialects keep their types: write the shape "3" in the type}}
  %y = func.call @g(%n) : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// -----

// A row variable bounded by itself with more axes, through other tensors
// (the input row of %t holds the output row of %x, which ends in `..v..`'s
// and more): an error after a bounded number of axes, not a solver that
// grows the row until memory runs out.
func.func @rank_cycle(%x: !ocannl_shape.tensor<"1|1->..v..,n", f32>) {
  %t = "ocannl_shape.transpose"(%x) : (!ocannl_shape.tensor<"1|1->..v..,n", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-note@+1 {{operand #0 (pointwise) has shape "...,?|...,?,?,?,?,?,?,?,<1009 more axes>,?,?,?,?,?,?,?,?->...,?,?"}}
  %s = "ocannl_shape.pointwise_binary"(%x, %t) {op = "add"} : (!ocannl_shape.tensor<"1|1->..v..,n", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{a row would need more than 1024 axes: the shapes ask for an infinite number of axes}}
  %n = "ocannl_shape.pointwise_unary"(%s) {op = "neg"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"1,n|..v..->2,...", f32>
  return
}

// -----

// The same row variable at shifted places in a broadcast (`1,..v..` over
// `..v..,2`): the sizes that then face each other conflict.
func.func @shifted_self(%x: !ocannl_shape.tensor<"1,..v..->..v..,2", f32>) {
  // expected-error@+1 {{dimension mismatch: 1 vs 2}}
  %y = "ocannl_shape.compose"(%x, %x) : (!ocannl_shape.tensor<"1,..v..->..v..,2", f32>, !ocannl_shape.tensor<"1,..v..->..v..,2", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// An operand's left part (`4,...`) lines up with the result's left part
// only if its variable takes the axes in between: a leaf's variable does
// (its least upper bound), a computed one closed to no axes does not, and
// the sizes that then face each other conflict.
func.func @left_part(%x: !ocannl_shape.tensor<"?", f32>) {
  // expected-note@+1 {{operand #0 (pointwise) has shape "4->"}}
  %a = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"4,...->", f32>
  // expected-error@+1 {{dimension mismatch: 1 vs 4 (the input row of the operand broadcast to the result's); operand shapes: #0 "4->"}}
  %b = "ocannl_shape.pointwise_unary"(%a) {op = "neg"} : (!ocannl_shape.tensor<"4,...->", f32>) -> !ocannl_shape.tensor<"4,1->", f32>
  return
}

// -----

// A named dimension set to what the shapes contradict: the error is at the
// constraint.
func.func @set_dim_conflict(%x: !ocannl_shape.tensor<"2->3", f32>) {
  // expected-note@+1 {{a conflicting dimension was decided by this einsum (shape "3")}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = ["i"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{cannot set 'i' to 4: }}
  "ocannl_shape.set_dim"() {ref = "i", value = 4 : i64} : () -> ()
  return
}

// -----

func.func @set_equal_conflict(%x: !ocannl_shape.tensor<"2->3", f32>) {
  // expected-note@+1 {{a conflicting dimension was decided by this einsum (shape "3")}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = ["i", "j"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{cannot make 'i' and 'j' equal: }}
  "ocannl_shape.set_equal"() {lhs = "i", rhs = "j"} : () -> ()
  return
}

// -----

func.func @set_dim_unknown_name(%x: !ocannl_shape.tensor<"2->3", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "i->j => j", capture = ["i"]} : (!ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{no einsum of the function captures 'q' and no shape names it}}
  "ocannl_shape.set_dim"() {ref = "q", value = 4 : i64} : () -> ()
  return
}

// -----

func.func @row_elements_conflict(%a: !ocannl_shape.tensor<"2,3,4", f32>, %b: !ocannl_shape.tensor<"3,4,5", f32>) {
  %c = "ocannl_shape.einsum"(%a, %b) {spec = "a..r..;..r..b=>ab", capture = ["r"]} : (!ocannl_shape.tensor<"2,3,4", f32>, !ocannl_shape.tensor<"3,4,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{cannot set 'r' to 7: the row must have 7 elements in all}}
  "ocannl_shape.set_dim"() {ref = "r", value = 7 : i64} : () -> ()
  return
}

// -----

func.func @dim_and_row(%a: !ocannl_shape.tensor<"2,3,4", f32>, %b: !ocannl_shape.tensor<"3,4,5", f32>) {
  // A name is one variable: a dimension in one spec, it cannot be a row in
  // another.
  %d = "ocannl_shape.einsum"(%a) {spec = "r => r", capture = ["r"]} : (!ocannl_shape.tensor<"2,3,4", f32>) -> !ocannl_shape.tensor<"?", f32>
  // expected-error@+1 {{'r' is a row variable here but a dimension elsewhere in the function}}
  %c = "ocannl_shape.einsum"(%a, %b) {spec = "a..r..;..r..b=>ab", capture = ["r"]} : (!ocannl_shape.tensor<"2,3,4", f32>, !ocannl_shape.tensor<"3,4,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @dim_unknown_name() {
  // expected-error@+1 {{no einsum of the function captures 'd' and no shape names it}}
  %n = "ocannl_shape.dim"() {ref = "d"} : () -> !ocannl_shape.tensor<"", f32>
  return
}

// -----

func.func @stride_not_dividing(%x: !ocannl_shape.tensor<"7", f32>) {
  // expected-error@+1 {{the input dimension 7 is not a multiple of the stride 2 (a strided axis spans stride x output cells)}}
  %y = "ocannl_shape.einsum"(%x) {spec = "2*i => i"} : (!ocannl_shape.tensor<"7", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A constraint in a function of no tensors names nothing.
func.func @set_dim_alone() {
  // expected-error@+1 {{no einsum of the function captures 'h' and no shape names it}}
  "ocannl_shape.set_dim"() {ref = "h", value = 4 : i64} : () -> ()
  return
}
