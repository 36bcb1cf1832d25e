// RUN: ocannl-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adagrad})" -o /dev/null

// An option's value that is not of its kind (here not one of the optimizer
// names) is an error at the op the pass runs on, before anything is made.
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
// expected-error@+1 {{option 'optimizer' must be one of sgd, adam, adamw, not 'adagrad'}}
module {
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}
}

// -----

// Without a gradient routine, the same.
// expected-error@+1 {{option 'optimizer' must be one of sgd, adam, adamw, not 'adagrad'}}
module {
}
