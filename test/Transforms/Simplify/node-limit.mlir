// RUN: ocannl-opt %s --ocannl-simplify="fast-math=true node-limit=10 remarks=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify="fast-math=true remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: ocannl-opt %s --ocannl-simplify="fast-math=true node-limit=5" | FileCheck %s --check-prefix=TINY

// A run that reaches the node limit stops there and keeps the best it
// found; with the default limits the same block saturates. Stopped before
// any rewrite applied, the block stays as it is.

// CHECK: remark: ocannl-simplify: f32 computations of a 'func.func' block: cost 9 -> 1 (e-graph: {{[0-9]+}} nodes, 1 iterations, stopped: NodeLimit)
// DEFAULT: remark: ocannl-simplify: f32 computations of a 'func.func' block: cost 9 -> 1 (e-graph: {{[0-9]+}} nodes, {{[0-9]+}} iterations, stopped: Saturated)
// TINY-LABEL: func.func @limited
// TINY: arith.mulf
// TINY: arith.divf
// TINY: arith.addf
// TINY: arith.mulf
func.func @limited(%x: f32, %y: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %a = arith.mulf %x, %one : f32
  %b = arith.divf %y, %one : f32
  %c = arith.addf %a, %b : f32
  %d = arith.mulf %c, %one : f32
  return %d : f32
}
