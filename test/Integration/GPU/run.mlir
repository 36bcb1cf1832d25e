// REQUIRES: cuda
// Programs run on the GPU, with the results the CPU gives (see
// Integration/CPU/ocannl-run).
// RUN: ocannl-run %s --entry mm --arg range --arg range --device cuda | FileCheck %s --check-prefix=MM
// RUN: ocannl-run %s --entry conv --arg range --arg range --device cuda | FileCheck %s --check-prefix=CONV
// RUN: ocannl-run %s --entry sums --arg range --device cuda | FileCheck %s --check-prefix=SUMS
// RUN: ocannl-run %s --entry big --arg range --arg range --device cuda | FileCheck %s --check-prefix=BIG

// MM: result0: shape [2, 2] dtype f32
// MM-NEXT: {{\[}}[10, 13],
// MM-NEXT: [28, 40]]
func.func @mm(%a: !ocannl_shape.tensor<"3->2", f32>, %b: !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->2", f32>, !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

// CONV: result0: shape [6] dtype f32
// CONV-NEXT: [2, 5, 8, 11, 14, 5]
func.func @conv(%x: !ocannl_shape.tensor<"6", f32>, %w: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"6", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// Row sums of range(3x4): 0+1+2+3, 4+..+7, 8+..+11.
// SUMS: result0: shape [3] dtype f32
// SUMS-NEXT: [6, 22, 38]
func.func @sums(%x: !ocannl_shape.tensor<"3|4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "b|i => b"} : (!ocannl_shape.tensor<"3|4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}

// The tiled kernel on a 33 x 40 by 40 x 65 product of ranges: c[i][j] =
// sum_k (40 i + k) (65 k + j); c[0][0] = 65 sum k^2 = 65 * 20540 and
// c[32][64] = sum_k (1280 + k)(65 k + 64) = 69557820, which f32 rounds to
// a neighbour (the order of the sums decides which).
// BIG: result0: shape [33, 65] dtype f32
// BIG-NEXT: {{\[}}[1335100, 1335880,
// BIG: {{695578(16|24)}}]]
func.func @big(%a: !ocannl_shape.tensor<"40->33", f32>, %b: !ocannl_shape.tensor<"65->40", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"40->33", f32>, !ocannl_shape.tensor<"65->40", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
