// The GPU's code holds no run-time checks: its host code is the runtime's
// steps (allocations, launches, frees), and the GPU runtime checks each
// allocation itself. No status global, no check list, no scf.if around the
// launches; the CPU's code for the same input has them all.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=gpu},canonicalize)' | FileCheck %s
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=gpu},ocannl-loops-to-nvvm)' | FileCheck %s --check-prefix=HOST
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=cpu},canonicalize)' | FileCheck %s --check-prefix=CPU

// CHECK-NOT: ocannl.runtime_checks
// CHECK-NOT: __ocannl_status
// CHECK-LABEL: func.func @slice
// CHECK: memref.alloc() : memref<2xf32>
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK-NOT: scf.if
// CHECK: gpu.launch
// CHECK: memref.load %arg0[%arg1, %{{.*}}] : memref<7x2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: scf.if
// CHECK: return

// HOST-NOT: __ocannl_status
// HOST-LABEL: func.func @slice
// HOST: memref.alloc() : memref<2xf32>
// HOST-NOT: scf.if
// HOST: gpu.launch_func
// HOST-NEXT: return

// CPU: module attributes {ocannl.runtime_checks = [
// CPU: memref.global @__ocannl_status
// CPU-LABEL: func.func @slice
// CPU: memref.extract_aligned_pointer_as_index
// CPU: scf.if
func.func @slice(%b: memref<7x2xf32>, %i: index) -> memref<2xf32> {
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%s, %b, %i) {accum = "assign", op = "identity", space = array<i64: 2>, indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>]} : (memref<2xf32>, memref<7x2xf32>, index) -> ()
  return %s : memref<2xf32>
}
