// RUN: ocannl-opt %s --split-input-file --ocannl-outline-kernels | FileCheck %s

// A kernel is named after the SHA-256 of its text (the function printed on
// its own under the name @__ocannl_kernel, without locations): the first 16
// hex digits. The name is the same in every run and every module (the CPU
// backend may cache compiled kernels by name): this kernel's name is
// written out here, and changes only if the kernel's text does.

// CHECK-LABEL: func.func @zero(
// CHECK: call @__ocannl_kernel_d3900c116fd1d800(
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800(%arg0: memref<8xf32>)
func.func @zero(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// The same nest in another routine, its constants made elsewhere and in
// another order, among other code: the same kernel, the same name.
// CHECK-LABEL: func.func @elsewhere(
// CHECK: call @__ocannl_kernel_d3900c116fd1d800(
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800(%arg0: memref<8xf32>)
func.func @elsewhere(%b: memref<8xf32>, %c: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  memref.store %zero, %c[%c0] : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %b[%i] : memref<8xf32>
  }
  return
}

// -----

// The name is taken by another symbol: the kernel's name is extended to 32
// hex digits of its hash.
// CHECK-LABEL: func.func @__ocannl_kernel_d3900c116fd1d800(
// CHECK-NEXT: return
// CHECK-LABEL: func.func @taken(
// CHECK: call @__ocannl_kernel_d3900c116fd1d800aaa52c7ab83be912(
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800aaa52c7ab83be912(%arg0: memref<8xf32>)
func.func @__ocannl_kernel_d3900c116fd1d800(%a: memref<8xf32>) {
  return
}
func.func @taken(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// -----

// A kernel of another text holds the name (as when two hashes begin alike):
// the two are not merged, the new one gets the longer name.
// CHECK-LABEL: func.func @collision(
// CHECK: call @__ocannl_kernel_d3900c116fd1d800aaa52c7ab83be912(
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800(
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800aaa52c7ab83be912(
// CHECK: arith.constant 0.000000e+00 : f32
func.func @collision(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}
func.func private @__ocannl_kernel_d3900c116fd1d800(%arg0: memref<8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 8 : i64, passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  scf.for %arg1 = %c0 to %c8 step %c1 {
    memref.store %cst, %arg0[%arg1] : memref<8xf32>
  }
  return
}

// -----

// A kernel of the same text is there already (from an earlier run): it is
// called, and not defined again.
// CHECK-LABEL: func.func @known(
// CHECK: call @__ocannl_kernel_d3900c116fd1d800(
// CHECK: func.func private @__ocannl_kernel_d3900c116fd1d800(
// CHECK-NOT: func.func
func.func @known(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}
func.func private @__ocannl_kernel_d3900c116fd1d800(%arg0: memref<8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 8 : i64, passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  scf.for %arg1 = %c0 to %c8 step %c1 {
    memref.store %cst, %arg0[%arg1] : memref<8xf32>
  }
  return
}
