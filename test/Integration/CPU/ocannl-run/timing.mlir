// REQUIRES: ocannl-run
// RUN: rm -rf %t
// RUN: env OCANNL_CACHE_DIR=%t ocannl-run %s --entry f --arg random:3 --repeat 5 --time-phases --quiet | FileCheck %s
// A second process loads the whole executable from the cache: no pass runs.
// RUN: env OCANNL_CACHE_DIR=%t ocannl-run %s --entry f --arg random:3 --repeat 5 --time-phases --quiet | FileCheck %s --check-prefix=HIT
// --compile-only compiles and stops: no argument needed, nothing runs.
// RUN: env OCANNL_CACHE=0 ocannl-run %s --entry f --compile-only --time-phases | FileCheck %s --check-prefix=ONLY
// RUN: not ocannl-run %s --entry f --arg random:x 2>&1 | FileCheck %s --check-prefix=SEED

// CHECK: runs: 5, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms
// CHECK: cache: miss
// CHECK-NEXT: compile: {{[0-9.]+}} ms
// CHECK-NEXT: phase parse:
// CHECK: phase ocannl-infer-shapes:
// CHECK: phase ocannl-lower-to-assign:
// CHECK: phase ocannl-one-hot-to-gather:
// CHECK-NEXT: phase ocannl-lower-to-loops:
// CHECK: phase outline:
// CHECK: phase to-llvm:
// CHECK: phase translate:
// CHECK: phase codegen:
// CHECK: phase link:
// CHECK: count parts: 3{{$}}
// CHECK: count parts-compiled:
// CHECK: count parts-cached:
// CHECK: count kernels: 1{{$}}
// HIT: cache: hit
// HIT-NEXT: compile: {{[0-9.]+}} ms
// HIT-NEXT: phase load:
// HIT-NEXT: phase link:
// HIT-NEXT: count parts: 3{{$}}
// HIT-NEXT: count parts-compiled: 0{{$}}
// ONLY-NOT: result0
// ONLY-NOT: runs:
// ONLY: cache: uncached
// ONLY-NEXT: compile: {{[0-9.]+}} ms
// ONLY-NEXT: phase parse:
// SEED: argument #0: expected random:SEED with an integer seed, found "random:x"
func.func @f(%x: !ocannl_shape.tensor<"8|4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"8|4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
