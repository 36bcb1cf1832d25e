// RUN: ocannl-opt %s --ocannl-lower-to-loops --canonicalize | FileCheck %s

// What can only fail at run time is checked by the compiled code: every
// allocation, and every index that comes from an index operand. The first
// failure is recorded in the status global (what failed, the check's
// number, the value, the bound) and the assignments after it are skipped;
// the module lists each check's message by number.
// CHECK: module attributes {ocannl.runtime_checks = ["{{.*}}checks.mlir:[[@LINE+21]]:8: error: cannot allocate the buffer of node 's'", "{{.*}}checks.mlir:[[@LINE+22]]:3: error: the slice index (argument #1 of @slice)"]}
// CHECK: memref.global @__ocannl_status : memref<4xi64> = dense<0>
// CHECK-LABEL: func.func @slice
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK-NEXT: %[[NULL:.*]] = arith.cmpi eq, %[[PTR]], %c0 : index
// CHECK: %[[FIRST:.*]] = arith.andi %[[NULL]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: memref.store %c1_i64, %{{.*}}[%c0] : memref<4xi64>
// CHECK: %[[LOW:.*]] = arith.cmpi slt, %arg1, %c0 : index
// CHECK-NEXT: %[[HIGH:.*]] = arith.cmpi sge, %arg1, %c7 : index
// CHECK-NEXT: %[[OUT:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i1
// CHECK: %[[FAIL:.*]] = arith.andi %[[OUT]], %{{.*}} : i1
// CHECK: scf.if %[[FAIL]] {
// CHECK: memref.store %c2_i64, %{{.*}}[%c0] : memref<4xi64>
// CHECK: %[[CODE:.*]] = memref.load %{{.*}}[%c0] : memref<4xi64>
// CHECK-NEXT: %[[CLEAR:.*]] = arith.cmpi eq, %[[CODE]], %c0_i64 : i64
// CHECK-NEXT: scf.if %[[CLEAR]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c2
// CHECK-NEXT: memref.load %arg0[%arg1, %[[J]]]
func.func @slice(%b: memref<7x2xf32>, %i: index) -> memref<2xf32> {
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%s, %b, %i) {accum = "assign", op = "identity", space = array<i64: 2>, indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>]} : (memref<2xf32>, memref<7x2xf32>, index) -> ()
  return %s : memref<2xf32>
}
