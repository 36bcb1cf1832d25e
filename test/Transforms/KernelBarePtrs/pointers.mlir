// RUN: ocannl-opt %s --ocannl-kernel-bare-ptrs | FileCheck %s
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-kernel-bare-ptrs,ocannl-loops-to-llvm)' | FileCheck %s --check-prefix=LLVM

// A kernel takes each statically shaped buffer as a bare pointer and
// rebuilds its descriptor (the pointer twice, offset 0, sizes and row-major
// strides); other arguments (an index, a dynamically shaped buffer) are
// passed as before. A call passes each buffer's aligned pointer, read once
// per buffer where the buffer is defined.

// CHECK-LABEL: func.func @routine(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x3xf32>, %[[D:[^:]*]]: memref<?xf32>, %[[I:[^:]*]]: index)
// CHECK-NEXT: %[[XD:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<2x3xf32> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT: %[[XP:.*]] = llvm.extractvalue %[[XD]][1]
// CHECK: call @k(%[[XP]], %[[D]], %[[I]]) : (!llvm.ptr, memref<?xf32>, index) -> ()
// CHECK-NEXT: call @k(%[[XP]], %[[D]], %[[I]]) : (!llvm.ptr, memref<?xf32>, index) -> ()

// CHECK-LABEL: func.func private @k(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr, %[[DD:[^:]*]]: memref<?xf32>, %[[II:[^:]*]]: index)
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[U:.*]] = llvm.mlir.poison
// CHECK-NEXT: %[[D0:.*]] = llvm.insertvalue %[[P]], %[[U]][0]
// CHECK-NEXT: %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][1]
// CHECK-NEXT: %[[D2:.*]] = llvm.insertvalue %[[ZERO]], %[[D1]][2]
// CHECK-NEXT: %[[D3:.*]] = llvm.insertvalue %[[TWO]], %[[D2]][3, 0]
// CHECK-NEXT: %[[D4:.*]] = llvm.insertvalue %{{.*}}, %[[D3]][4, 0]
// CHECK-NEXT: %[[D5:.*]] = llvm.insertvalue %{{.*}}, %[[D4]][3, 1]
// CHECK-NEXT: %[[D6:.*]] = llvm.insertvalue %{{.*}}, %[[D5]][4, 1]
// CHECK-NEXT: %[[M:.*]] = builtin.unrealized_conversion_cast %[[D6]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x3xf32>
// CHECK: memref.load %[[M]][%[[II]], %[[II]]] : memref<2x3xf32>
// CHECK: memref.store %{{.*}}, %[[DD]][%[[II]]] : memref<?xf32>

// The casts fold away in the conversion to the LLVM dialect (the call passes one
// pointer, the kernel's loads index it directly).
// LLVM-LABEL: llvm.func @routine(
// LLVM: llvm.call @k(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64) -> ()
// LLVM-LABEL: llvm.func @k(
// LLVM-SAME: %arg0: !llvm.ptr,
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.return
func.func @routine(%x: memref<2x3xf32>, %d: memref<?xf32>, %i: index) {
  call @k(%x, %d, %i) : (memref<2x3xf32>, memref<?xf32>, index) -> ()
  call @k(%x, %d, %i) : (memref<2x3xf32>, memref<?xf32>, index) -> ()
  return
}

func.func private @k(%x: memref<2x3xf32>, %d: memref<?xf32>, %i: index) attributes {ocannl.kernel_kind = "elementwise"} {
  %v = memref.load %x[%i, %i] : memref<2x3xf32>
  memref.store %v, %d[%i] : memref<?xf32>
  return
}
