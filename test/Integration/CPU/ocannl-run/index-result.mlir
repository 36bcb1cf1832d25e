// REQUIRES: ocannl-run
// A function returning one index (which the C interface returns by value)
// and one returning an index with a tensor.
// RUN: ocannl-run %s --entry g --arg 5 | FileCheck %s
// RUN: ocannl-run %s --entry h --arg 5 --arg range | FileCheck %s --check-prefix=BOTH
// CHECK: result0: index 6
// BOTH: result0: index 5
// BOTH: [0, 1, 2]
func.func @g(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %y = arith.addi %x, %c1 : index
  return %y : index
}
func.func @h(%x: index, %t: memref<3xf32>) -> (index, memref<3xf32>) {
  return %x, %t : index, memref<3xf32>
}
