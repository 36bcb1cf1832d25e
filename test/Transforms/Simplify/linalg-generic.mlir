// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s

// The body of a linalg.generic: block arguments are operands, the
// linalg.yield is the root's user.

// CHECK-LABEL: func.func @generic
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @generic(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %p = arith.divf %x, %one : f32
    %q = arith.negf %y : f32
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
