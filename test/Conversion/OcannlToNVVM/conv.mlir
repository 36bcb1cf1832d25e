// A convolution with padding, y[o] = sum_k x[o + k - 1] * w[k]: one
// thread per output cell, summing from 0; the input index is clamped into
// x and the value read there replaced by 0 outside (x's padding).
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' | FileCheck %s --check-prefix=LOOPS
// RUN: ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx -o /dev/null | FileCheck %s --check-prefix=PTX

// LOOPS: #[[MAP:.*]] = affine_map<(d0, d1) -> (d0 + d1 - 1)>
// LOOPS-LABEL: func.func @conv
// LOOPS: %[[Y:.*]] = memref.alloc() : memref<6xf32>
// LOOPS: gpu.launch
// LOOPS: %[[O:.*]] = arith.addi
// LOOPS: arith.cmpi ult, %[[O]], %c6 : index
// LOOPS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LOOPS: scf.for %[[K:.*]] = %{{.*}} to %c3 step %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32) {
// LOOPS: %[[I:.*]] = affine.apply #[[MAP]](%[[O]], %[[K]])
// LOOPS: %[[GE:.*]] = arith.cmpi sge, %[[I]], %c0{{.*}} : index
// LOOPS: %[[LE:.*]] = arith.cmpi sle, %[[I]], %c5 : index
// LOOPS: %[[OK:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// LOOPS: %[[LOW:.*]] = arith.minsi %[[I]], %c5 : index
// LOOPS: %[[IDX:.*]] = arith.maxsi %[[LOW]], %c0{{.*}} : index
// LOOPS: %[[X:.*]] = memref.load %arg0[%[[IDX]]] : memref<6xf32>
// LOOPS: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// LOOPS: %[[XP:.*]] = arith.select %[[OK]], %[[X]], %[[PAD]] : f32
// LOOPS: %[[W:.*]] = memref.load %arg1[%[[K]]] : memref<3xf32>
// LOOPS: arith.mulf %[[XP]], %[[W]] : f32

// The PTX selects between the cell read and the padding.
// PTX: .visible .entry conv_kernel(
// PTX: .maxntid 32, 1, 1
// PTX: selp.f32
// PTX: ret;

func.func @conv(%x: !ocannl_shape.tensor<"6", f32>, %w: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"6", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
