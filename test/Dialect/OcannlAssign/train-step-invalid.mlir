// RUN: ocannl-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adagrad})" -o /dev/null

// Bad options are reported at the function whose train step they would
// make.
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
// expected-error@+1 {{unknown optimizer 'adagrad' (expected sgd, adam, adamw)}}
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  return %l : memref<f32>
}

// -----

// Without a gradient routine, at the module.
// expected-error@+1 {{unknown optimizer 'adagrad' (expected sgd, adam, adamw)}}
module {
}
