// REQUIRES: ocannl-run
// `--stats` counts the buffers and the loop nests of the lowered entry: the
// CPU's lowering makes each assignment's loops a kernel, and a kernel's nests
// count at each call. Two relus of one shape are one kernel called twice: two
// nests. The virtualized intermediate has no buffer.
// RUN: ocannl-run %s --entry two --arg random:1 --stats --quiet 2>&1 | FileCheck %s
// RUN: ocannl-run %s --entry two --arg random:1 --stats --quiet --no-optimize 2>&1 | FileCheck %s --check-prefix=PLAIN

// A kernel's own buffers count too, in the peak while it runs: a 512x512
// matmul's result (1 MiB) and the contraction kernel's packing buffer.
// RUN: ocannl-run %s --entry mm --arg random:1 --arg random:2 --stats --quiet 2>&1 | FileCheck %s --check-prefix=MM

// CHECK: stats: 1 buffers, 1 loop nests, 128 peak buffer bytes
// PLAIN: stats: 2 buffers, 2 loop nests, 256 peak buffer bytes
// MM: stats: 2 buffers, 2 loop nests, 1572864 peak buffer bytes
func.func @two(%x: !ocannl_shape.tensor<"4,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"4,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %z : !ocannl_shape.tensor<"?", f32>
}

func.func @mm(%a: !ocannl_shape.tensor<"512->512", f32>, %b: !ocannl_shape.tensor<"512->512", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"512->512", f32>, !ocannl_shape.tensor<"512->512", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
