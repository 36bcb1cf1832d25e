// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s
// RUN: not ocannl-opt %s --ocannl-lower-to-linalg --split-input-file 2>&1 | FileCheck %s --check-prefix=LINALG

// A scatter-add (an embedding's gradient): at each point the dynamic index
// is read from its operand; it is valid when in range (a NaN is not), a
// whole number (it converts back to itself) and below the bound as an
// integer (an index that is not is 0, so that no address leaves the
// buffer); only then is the row it names read and written. The loop over
// the batch stays sequential: two ids may name one row.
#ids = affine_map<(b, d)[s0] -> (b, 0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
// CHECK-LABEL: func.func @scatter
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[B:.*]] =
// CHECK: scf.for %[[D:.*]] =
// CHECK: %[[X:.*]] = memref.load %arg0[%[[B]], %{{.*}}] : memref<6x1xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[FIVE]] : f32
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[IN]], %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.fptosi %[[SAFE]] : f32 to i64
// CHECK-NEXT: %[[BACK:.*]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT: %[[WHOLE:.*]] = arith.cmpf oeq, %[[BACK]], %[[X]] : f32
// CHECK-NEXT: %[[OK1:.*]] = arith.andi %[[IN]], %[[WHOLE]] : i1
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[C5]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[OK1]], %[[BELOW]] : i1
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[SAFEI:.*]] = arith.select %[[OK]], %[[I]], %[[C0]] : index
// CHECK-NEXT: %[[ROW:.*]] = affine.apply #{{.*}}(%[[B]], %[[D]])[%[[SAFEI]]]
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: %[[G:.*]] = memref.load %arg1[%[[B]], %[[D]]] : memref<6x3xf32>
// CHECK-NEXT: %[[OLD:.*]] = memref.load %arg2[%[[ROW]], %[[D]]] : memref<5x3xf32>
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[G]]
// CHECK-NEXT: memref.store %[[NEW]], %arg2[%[[ROW]], %[[D]]] : memref<5x3xf32>
// LINALG: dynamic.mlir:[[@LINE+2]]:3: error: a dynamic index (a gather or scatter) has no form in linalg.generic
func.func @scatter(%ids: memref<6x1xf32>, %g: memref<6x3xf32>, %dt: memref<5x3xf32>) {
  "ocannl_assign.accum"(%dt, %ids, %g) ({
  ^bb0(%x: f32, %gv: f32):
    vector.yield %gv : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 5>, space = array<i64: 6, 3>, indexing_maps = [#row, #ids, #bd]} : (memref<5x3xf32>, memref<6x1xf32>, memref<6x3xf32>) -> ()
  return
}

// -----

// A gather's sum over its points (a cross-entropy's pick, one per row): a
// point whose index is not valid adds the neutral element; the result is
// written once per row, outside the reduction.
// CHECK-LABEL: func.func @pick
// CHECK: scf.for %[[R:.*]] =
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %arg1[%[[R]], %{{.*}}] : memref<4x7xf32>
// CHECK: %[[PICK:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[ACC]], %[[PICK]]
// CHECK: memref.store %[[SUM]], %arg2[%[[R]]] : memref<4xf32>
func.func @pick(%ids: memref<4x2xf32>, %logp: memref<4x7xf32>, %s: memref<4xf32>) {
  "ocannl_assign.accum"(%s, %ids, %logp) ({
  ^bb0(%x: f32, %l: f32):
    vector.yield %l : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 7>, space = array<i64: 4, 2>, indexing_maps = [affine_map<(r, k)[s0] -> (r)>, affine_map<(r, k)[s0] -> (r, k)>, affine_map<(r, k)[s0] -> (r, s0)>]} : (memref<4xf32>, memref<4x2xf32>, memref<4x7xf32>) -> ()
  return
}
