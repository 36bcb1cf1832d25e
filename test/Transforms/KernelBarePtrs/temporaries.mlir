// RUN: ocannl-opt %s --ocannl-kernel-bare-ptrs | FileCheck %s

// A buffer of the host code that only kernels read, checked for null and
// freed, is a bare pointer from malloc: no descriptor is built for it. A
// buffer the routine returns keeps its descriptor.

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
