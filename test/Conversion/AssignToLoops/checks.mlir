// RUN: ocannl-opt %s --ocannl-lower-to-loops --canonicalize | FileCheck %s

// What can only fail at run time is checked by the compiled code: every
// allocation, and every index that comes from an index operand. Each check
// calls the module's private @__ocannl_record_failure with whether it failed
// and the status words (what failed, the check's number, the value, the
// bound): straight-line code, no branch in the routine. An allocation's check
// is one call of the private @__ocannl_check_allocation (the address, the
// check's number, the bytes), which compares and records. The first failure is
// recorded in the status global and the assignments after it are skipped;
// the module lists each check's message by number.
// CHECK: module attributes {ocannl.runtime_checks = ["{{.*}}checks.mlir:[[@LINE+37]]:8: error: cannot allocate the buffer of node 's'", "{{.*}}checks.mlir:[[@LINE+38]]:3: error: the slice index (argument #1 of @slice)"]}
// CHECK: memref.global @__ocannl_status : memref<4xi64> = dense<0>
// CHECK-LABEL: func.func @slice
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK-NEXT: call @__ocannl_check_allocation(%[[PTR]], %c0_i64, %c8_i64) : (index, i64, i64) -> ()
// CHECK-NEXT: %[[LOW:.*]] = arith.cmpi slt, %arg1, %c0 : index
// CHECK-NEXT: %[[HIGH:.*]] = arith.cmpi sge, %arg1, %c7 : index
// CHECK-NEXT: %[[OUT:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %arg1 : index to i64
// CHECK-NEXT: %[[OUT8:.*]] = arith.extui %[[OUT]] : i1 to i8
// CHECK-NEXT: call @__ocannl_record_failure(%[[OUT8]], %c2_i64, %c1_i64, %[[I]], %c7_i64)
// CHECK-NEXT: %[[STATUS:.*]] = memref.get_global @__ocannl_status
// CHECK-NEXT: %[[CODE:.*]] = memref.load %[[STATUS]][%c0] : memref<4xi64>
// CHECK-NEXT: %[[CLEAR:.*]] = arith.cmpi eq, %[[CODE]], %c0_i64 : i64
// CHECK-NEXT: scf.if %[[CLEAR]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c2
// CHECK-NEXT: memref.load %arg0[%arg1, %[[J]]]
// The allocation's check: a null address is an allocation failure (code 1),
// of the check's number and bytes.
// CHECK-LABEL: func.func private @__ocannl_check_allocation(
// CHECK-SAME: %[[ADDR:[^:]*]]: index, %[[CHECK:[^:]*]]: i64, %[[BYTES:[^:]*]]: i64)
// CHECK: %[[ISNULL:.*]] = arith.cmpi eq, %[[ADDR]], %c0 : index
// CHECK-NEXT: %[[ISNULL8:.*]] = arith.extui %[[ISNULL]] : i1 to i8
// CHECK-NEXT: call @__ocannl_record_failure(%[[ISNULL8]], %c1_i64, %[[CHECK]], %[[BYTES]], %c0_i64)
// The recording: only when the check failed and none failed before.
// CHECK-LABEL: func.func private @__ocannl_record_failure(
// CHECK-SAME: %[[FAILED8:[^:]*]]: i8, %[[W0:[^:]*]]: i64, %[[W1:[^:]*]]: i64, %[[W2:[^:]*]]: i64, %[[W3:[^:]*]]: i64)
// CHECK: %[[FAILED:.*]] = arith.trunci %[[FAILED8]] : i8 to i1
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i64 : i64
// CHECK-NEXT: %[[RECORD:.*]] = arith.andi %[[FAILED]], %[[FIRST]] : i1
// CHECK-NEXT: scf.if %[[RECORD]] {
// CHECK: memref.store %[[W0]], %{{.*}}[%c0]
// CHECK-NEXT: memref.store %[[W1]], %{{.*}}[%c1]
// CHECK-NEXT: memref.store %[[W2]], %{{.*}}[%c2]
// CHECK-NEXT: memref.store %[[W3]], %{{.*}}[%c3]
func.func @slice(%b: memref<7x2xf32>, %i: index) -> memref<2xf32> {
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%s, %b, %i) {accum = "assign", op = "identity", space = array<i64: 2>, indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>]} : (memref<2xf32>, memref<7x2xf32>, index) -> ()
  return %s : memref<2xf32>
}
