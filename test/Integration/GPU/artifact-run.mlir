// REQUIRES: cuda, ocannl-gpu
// An artifact run by ocannl-gpu gives the results the CPU gives (see
// run.mlir), and a train step repeated continues from its updated params.
// RUN: ocannl-run %s --entry mm --device cuda --emit-artifact %t.mm.ocgpu --chip sm_70
// RUN: ocannl-gpu run %t.mm.ocgpu --entry mm --arg range --arg range | FileCheck %s --check-prefix=MM
// RUN: ocannl-run %S/../../../examples/moons.mlir --train --entry loss_train_step --device cuda --emit-artifact %t.moons.ocgpu --chip sm_70
// RUN: ocannl-gpu run %t.moons.ocgpu --entry loss_train_step --arg random:1 --arg random:2 --arg fill:0.1 --arg fill:0.1 --arg fill:0.1 --arg fill:0.1 --arg fill:0.1 --arg fill:0.1 --arg fill:0.01 --repeat 5 | FileCheck %s --check-prefix=MOONS

// MM: result0: shape [2, 2] dtype f32
// MM-NEXT: {{\[}}[10, 13],
// MM-NEXT: [28, 40]]
// MOONS: result0: shape [1] dtype f32
// MOONS: runs: 5, median
func.func @mm(%a: !ocannl_shape.tensor<"3->2", f32>, %b: !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->2", f32>, !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
