// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// A literal is a dense constant of the node's type (the value reshaped to
// it), which becomes the node's value.
// CHECK-LABEL: func.func @literal
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK: return %[[C]] : tensor<2x3xf32>
func.func @literal() -> memref<2x3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "2|3"} : () -> memref<2x3xf32>
  "ocannl_assign.literal"(%y) {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>} : (memref<2x3xf32>) -> ()
  return %y : memref<2x3xf32>
}

// -----

// `range`: each cell its linear index, from linalg.index of each axis.
// CHECK-LABEL: func.func @range
// CHECK: linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.muli %[[I]], %c3
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: arith.index_cast
// CHECK: arith.sitofp
func.func @range() -> memref<2x3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "2|3"} : () -> memref<2x3xf32>
  "ocannl_assign.range"(%y) : (memref<2x3xf32>) -> ()
  return %y : memref<2x3xf32>
}

// -----

// `uniform`: the loops' counter-based generator (SplitMix64 of the seed
// and the cell's linear index) in the body of a linalg.generic over
// linalg.index, scaled to [low, high).
// CHECK-LABEL: func.func @uniform
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: linalg.index 0 : index
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.shrui
// CHECK: arith.xori
// CHECK: arith.uitofp
// CHECK: linalg.yield
func.func @uniform(%p: memref<8xf32>) {
  "ocannl_assign.uniform"(%p) {seed = 7 : i64, low = -1.0 : f64, high = 1.0 : f64} : (memref<8xf32>) -> ()
  return
}

// -----

// `normal`: Box-Muller of the generator's values at two counters per cell,
// computed in f32 and rounded once to the 16-bit element type (f16: `truncf`).
// CHECK-LABEL: func.func @normal
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK-COUNT-2: arith.uitofp %{{.*}} : i64 to f32
// CHECK: math.log %{{.*}} : f32
// CHECK: math.cos %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.yield
func.func @normal(%p: memref<8xf16>) {
  "ocannl_assign.normal"(%p) {seed = 7 : i64, std = 0.02 : f64} : (memref<8xf16>) -> ()
  return
}

// -----

// A virtual node nothing uses has no value.
// CHECK-LABEL: func.func @virtual
// CHECK-NOT: tensor.empty
// CHECK: return
func.func @virtual() {
  %v = "ocannl_assign.node"() {name = "v", kind = "value", memory = "virtual", shape = "4"} : () -> memref<4xf32>
  return
}
