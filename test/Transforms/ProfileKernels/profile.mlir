// RUN: ocannl-opt %s --ocannl-profile-kernels | FileCheck %s

// Each call of a kernel from host code is timed into its row of
// @__ocannl_profile: the clock read before it, one call and the elapsed
// nanoseconds added after it. Rows come in order of first call; the
// module lists them with the multiply-adds (0 for a kernel without), the
// bytes of the buffers per call and where the kernel was first called
// (a file's line, or the name of a `loc("NAME")`), `+N` for the N other
// places that call it.
// CHECK: module attributes {ocannl.profile = ["__ocannl_kernel_0123456789abcdef contraction 4096 512 f.mlir:3:4 +1", "__ocannl_kernel_fedcba9876543210 elementwise 0 256 relu"]}
// CHECK-LABEL: func.func @f
// CHECK: %[[T0:.*]] = call @__ocannl_now() : () -> i64
// CHECK-NEXT: call @__ocannl_kernel_0123456789abcdef
// CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT: call @__ocannl_profile_add(%[[R0]], %[[T0]])
// CHECK: %[[T1:.*]] = call @__ocannl_now() : () -> i64
// CHECK-NEXT: call @__ocannl_kernel_fedcba9876543210
// CHECK-NEXT: %[[R1:.*]] = arith.constant 1 : index
// CHECK-NEXT: call @__ocannl_profile_add(%[[R1]], %[[T1]])
// CHECK: call @__ocannl_kernel_0123456789abcdef
// CHECK-NEXT: %[[R2:.*]] = arith.constant 0 : index
// CHECK-NEXT: call @__ocannl_profile_add(%[[R2]],
// CHECK: memref.global @__ocannl_profile : memref<2x2xi64> = dense<0>
// CHECK: func.func private @__ocannl_now() -> i64
// CHECK: llvm.call @clock_gettime
// CHECK: func.func private @__ocannl_profile_add(%{{.*}}: index, %{{.*}}: i64)

func.func private @__ocannl_kernel_0123456789abcdef(%a: memref<64xf32>, %b: memref<64xf32>) attributes {no_inline, ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 4096 : i64, ocannl.kernel_work = 64 : i64} {
  return
}
func.func private @__ocannl_kernel_fedcba9876543210(%a: memref<64xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 64 : i64} {
  return
}
func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {
  func.call @__ocannl_kernel_0123456789abcdef(%a, %b) : (memref<64xf32>, memref<64xf32>) -> () loc("f.mlir":3:4)
  func.call @__ocannl_kernel_fedcba9876543210(%a) : (memref<64xf32>) -> () loc("relu")
  func.call @__ocannl_kernel_0123456789abcdef(%b, %a) : (memref<64xf32>, memref<64xf32>) -> () loc("mm")
  func.call @__ocannl_kernel_fedcba9876543210(%b) : (memref<64xf32>) -> () loc("relu")
  return
}
