// With kernels=true, each assignment's loops become a kernel as they are
// lowered (guard included), and an assignment equal to one lowered before up
// to its buffers is only another call of that kernel.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=cpu kernels=true})' | FileCheck %s
// What the kernels are does not depend on when they are outlined: the same
// module as lowering every nest, then outlining.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=cpu kernels=true},ocannl-outline-kernels)' > %t.kernels
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=cpu},ocannl-outline-kernels)' > %t.nests
// RUN: diff %t.kernels %t.nests
// The outlining pass's report counts the kernels a routine calls, outlined
// by the lowering or by the pass.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=cpu kernels=true},ocannl-outline-kernels{explain=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: remark: @two: 2 kernels, 1 distinct
// EXPLAIN: remark: @aliased: 3 kernels, 2 distinct

// Two relus on other buffers: one kernel, called twice; the routine keeps
// no loop and no guard.
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x8xf32>, %[[Z:[^:]*]]: memref<4x8xf32>)
// CHECK-NOT: scf.
// CHECK: call @[[RELU:__ocannl_kernel_[0-9a-f]{16}]](%[[X]], %[[Y:[^)]*]])
// CHECK-NOT: scf.
// CHECK: call @[[RELU]](%[[Z]], %[[W:[^)]*]])
// CHECK-NOT: scf.
// CHECK: return
func.func @two(%x: memref<4x8xf32>, %z: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%w, %z) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y, %w : memref<4x8xf32>, memref<4x8xf32>
}

// The same op on one buffer twice (`a += a * b`) is not the op on three
// buffers: another kernel, of two arguments. (A kernel takes its buffers in
// the order its loops first use them: the operands, then the result.)
// CHECK-LABEL: func.func @aliased(
// CHECK-SAME: %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>, %[[C:[^:]*]]: memref<4xf32>)
// CHECK: call @[[THREE:__ocannl_kernel_[0-9a-f]{16}]](%[[B]], %[[C]], %[[A]])
// CHECK: call @[[TWO:__ocannl_kernel_[0-9a-f]{16}]](%[[A]], %[[B]])
// CHECK: call @[[THREE]](%[[B]], %[[A]], %[[C]])
func.func @aliased(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  "ocannl_assign.accum_binop"(%a, %b, %c) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_binop"(%a, %a, %b) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_binop"(%c, %b, %a) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}

// Each kernel once, its guard inside: the status read in the kernel.
// CHECK-DAG: func.func private @[[RELU]](%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>) attributes {{{.*}}no_inline
// CHECK-DAG: func.func private @[[THREE]](%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-DAG: func.func private @[[TWO]](%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-NOT: func.func private @__ocannl_kernel
