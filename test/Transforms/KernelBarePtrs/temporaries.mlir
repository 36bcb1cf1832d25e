// RUN: ocannl-opt %s --ocannl-kernel-bare-ptrs | FileCheck %s

// A buffer of the host code that only kernels read, checked for null and
// freed, is a bare pointer from malloc: no descriptor is built for it. A
// buffer the routine returns keeps its descriptor. When its check is the
// run-time checks' call of @__ocannl_check_allocation, the allocation and
// the check are one call of @__ocannl_allocate (malloc, then the check).

// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-LABEL: func.func @routine(
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(24 : i64) : i64
// CHECK-NEXT: %[[T:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[A:.*]] = llvm.ptrtoint %[[T]] : !llvm.ptr to i64
// CHECK-NEXT: %[[AI:.*]] = arith.index_cast %[[A]] : i64 to index
// CHECK-NEXT: arith.cmpi eq, %[[AI]], %{{.*}} : index
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: call @k(%[[T]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @free(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: return %[[R]] : memref<2x3xf32>
// CHECK-NOT: memref.dealloc
func.func @routine() -> memref<2x3xf32> {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<2x3xf32>
  %p = memref.extract_aligned_pointer_as_index %t : memref<2x3xf32> -> index
  %null = arith.cmpi eq, %p, %c0 : index
  %r = memref.alloc() : memref<2x3xf32>
  call @k(%t, %r) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  memref.dealloc %t : memref<2x3xf32>
  return %r : memref<2x3xf32>
}

func.func private @k(%a: memref<2x3xf32>, %b: memref<2x3xf32>) attributes {ocannl.kernel_kind = "elementwise"} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<2x3xf32>
  memref.store %v, %b[%c0, %c0] : memref<2x3xf32>
  return
}

// CHECK-LABEL: func.func @checked(
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[P:.*]] = call @__ocannl_allocate(%c24_i64, %c3_i64) : (i64, i64) -> !llvm.ptr
// CHECK-NOT: @__ocannl_check_allocation
// CHECK: call @k(%[[P]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT: llvm.call @free(%[[P]]) : (!llvm.ptr) -> ()
func.func @checked() -> memref<2x3xf32> {
  %c3_i64 = arith.constant 3 : i64
  %c24_i64 = arith.constant 24 : i64
  %t = memref.alloc() : memref<2x3xf32>
  %p = memref.extract_aligned_pointer_as_index %t : memref<2x3xf32> -> index
  call @__ocannl_check_allocation(%p, %c3_i64, %c24_i64) : (index, i64, i64) -> ()
  %r = memref.alloc() : memref<2x3xf32>
  call @k(%t, %r) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  memref.dealloc %t : memref<2x3xf32>
  return %r : memref<2x3xf32>
}

func.func private @__ocannl_check_allocation(%a: index, %check: i64, %bytes: i64) {
  return
}

// The allocating function: malloc, then the check of the address.
// CHECK-LABEL: func.func private @__ocannl_allocate(
// CHECK-SAME: %[[BYTES:[^:]*]]: i64, %[[CHECK:[^:]*]]: i64) -> !llvm.ptr attributes {llvm.linkage = #llvm.linkage<internal>
// CHECK-NEXT: %[[M:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// CHECK-NEXT: %[[I:.*]] = llvm.ptrtoint %[[M]] : !llvm.ptr to i64
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT: call @__ocannl_check_allocation(%[[X]], %[[CHECK]], %[[BYTES]])
// CHECK-NEXT: return %[[M]] : !llvm.ptr
