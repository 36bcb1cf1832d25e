// RUN: ocannl-opt %s --ocannl-outline-kernels=explain=true --verify-diagnostics -o /dev/null
// RUN: ocannl-opt %s --ocannl-outline-kernels="explain=true dedup=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODEDUP

// With explain=true, each routine is reported at its op: how many kernels
// it calls, and how many distinct ones (kernels shared with another routine
// count in each). The kernels themselves are not reported.

// expected-remark @below {{@three: 3 kernels, 2 distinct}}
func.func @three(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %b[%i] : memref<8xf32>
  }
  return
}

// expected-remark @below {{@again: 1 kernel, 1 distinct}}
func.func @again(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// expected-remark @below {{@no_loops: 0 kernels, 0 distinct}}
func.func @no_loops(%a: memref<8xf32>) {
  return
}

// Without dedup, every kernel is distinct.
// NODEDUP: remark: @three: 3 kernels, 3 distinct
// NODEDUP: remark: @again: 1 kernel, 1 distinct
// NODEDUP: remark: @no_loops: 0 kernels, 0 distinct

// A declaration has no routine to report.
func.func private @declared(memref<8xf32>)
