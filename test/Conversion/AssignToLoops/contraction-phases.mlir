// A strided convolution's input gradient, dx[b, 2*o + k - 2, c] +=
// dy[b, o, f] * w[k, c, f] (stride 2, 5 taps, padding 2), scatters; the
// kernel computes it in two phases, one per residue of the result's rows:
// the even rows from taps 0, 2, 4 and the odd rows from taps 1, 3, each a
// contraction that gathers (dy read at q + 1 - t, then at q - t) with no
// point more than the original space has.

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v3 | FileCheck %s

// Both phases are in one outlined kernel, marked with the multiply-adds
// whose result rows lie inside dx: 32 x 32 x 16 x (16 x 5 - 3).
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{cpu=x86-64-v3 kernels=true explain=true})' 2>&1 | FileCheck %s --check-prefix=MADDS --implicit-check-not=remark
// MADDS: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 1261568 : i64

// CHECK-LABEL: func.func @strided
// dx starts at 0: each phase writes half of it.
// CHECK: scf.if
// Phase 0: dy copied with a row of padding on each side (32 x 18 x 32),
// w's three taps packed in one block.
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<18432xf32>
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c3{{.*}} step %c3
// CHECK: vector.store
// Phase 1: one row of padding after (32 x 17 x 32), two taps.
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<17408xf32>
// CHECK: scf.for %[[K1:.*]] = %{{.*}} to %c2{{.*}} step %c2
// CHECK: vector.store
// CHECK: return

func.func @strided(%dy: memref<32x16x32xf32>, %w: memref<5x16x32xf32>) -> memref<32x32x16xf32> {
  %dx = "ocannl_assign.node"() {name = "dx", kind = "value", memory = "materialized", shape = "32,32,16"} : () -> memref<32x32x16xf32>
  "ocannl_assign.accum_binop"(%dx, %dy, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 32, 16, 32, 16, 5>, indexing_maps = [affine_map<(b, o, f, c, k) -> (b, o * 2 + k - 2, c)>, affine_map<(b, o, f, c, k) -> (b, o, f)>, affine_map<(b, o, f, c, k) -> (k, c, f)>]} : (memref<32x32x16xf32>, memref<32x16x32xf32>, memref<5x16x32xf32>) -> ()
  return %dx : memref<32x32x16xf32>
}
