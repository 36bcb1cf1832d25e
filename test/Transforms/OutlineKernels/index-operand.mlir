// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels)' | FileCheck %s

// A batch slice reads at an index the routine is given: the index is an
// argument of the kernel (where the buffers' order of first use puts it),
// while its run-time check stays in the routine, before the call.

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:[^:]*]]: memref<3x2xf32>, %[[I:[^:]*]]: index) -> memref<2xf32>
// CHECK: call @[[NEG:__ocannl_kernel_[0-9a-f]+]](%[[X]], %[[N:.*]]) : (memref<3x2xf32>, memref<3x2xf32>) -> ()
// CHECK: %[[S:.*]] = memref.alloc() : memref<2xf32>
// The index check, in the routine.
// CHECK: %[[LOW:.*]] = arith.cmpi slt, %[[I]],
// CHECK: %[[HIGH:.*]] = arith.cmpi sge, %[[I]],
// CHECK: %[[OUT:.*]] = arith.ori %[[LOW]], %[[HIGH]]
// CHECK: %[[OUT8:.*]] = arith.extui %[[OUT]] : i1 to i8
// CHECK: call @__ocannl_record_failure(%[[OUT8]],
// CHECK: call @[[SLICE:__ocannl_kernel_[0-9a-f]+]](%[[N]], %[[I]], %[[S]]) : (memref<3x2xf32>, index, memref<2xf32>) -> ()
// CHECK-NOT: scf.
// CHECK: return %[[S]]

// CHECK: func.func private @[[NEG]](
// The guard reads the status in the kernel, after the index check recorded
// its failure.
// CHECK: func.func private @[[SLICE]](%arg0: memref<3x2xf32>, %arg1: index, %arg2: memref<2xf32>)
// CHECK-SAME: ocannl.kernel_work = 2 : i64
// CHECK: memref.get_global @__ocannl_status
// CHECK: %[[C:.*]] = arith.cmpi eq
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%arg1, %[[J]]] : memref<3x2xf32>
// CHECK-NEXT: memref.store %[[V]], %arg2[%[[J]]] : memref<2xf32>
func.func @f(%x: !ocannl_shape.tensor<"3|2", f32>, %i: index) -> !ocannl_shape.tensor<"?", f32> {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.batch_slice"(%n, %i) : (!ocannl_shape.tensor<"?", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
