// REQUIRES: llc
// The contraction kernel planned for a CPU (`cpu=NAME`) and compiled for
// it by LLVM's own tools, on whatever host: its register tile stays in the
// vector registers (no vector register is spilled or reloaded anywhere:
// only general-purpose and callee-saved registers are saved), and its
// multiply-adds use the CPU's widest vectors.

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v3 --ocannl-loops-to-llvm | mlir-translate --mlir-to-llvmir -o %t.avx2.ll
// RUN: llc -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64-v3 %t.avx2.ll -o %t.avx2.s
// RUN: FileCheck %s --check-prefix=AVX2 < %t.avx2.s
// RUN: FileCheck %s --check-prefix=X86-SPILL < %t.avx2.s
// AVX2-COUNT-12: vfmadd231ps {{.*}}%ymm{{[0-9]+}}, %ymm{{[0-9]+}}
// AVX2-NOT: zmm

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=skylake-avx512 --ocannl-loops-to-llvm | mlir-translate --mlir-to-llvmir -o %t.avx512.ll
// RUN: llc -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 %t.avx512.ll -o %t.avx512.s
// RUN: FileCheck %s --check-prefix=AVX512 < %t.avx512.s
// RUN: FileCheck %s --check-prefix=X86-SPILL < %t.avx512.s
// AVX512-COUNT-24: vfmadd231ps {{.*}}%zmm{{[0-9]+}}, %zmm{{[0-9]+}}

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=neoverse-n1 --ocannl-loops-to-llvm | mlir-translate --mlir-to-llvmir -o %t.neon.ll
// RUN: llc -O2 -mtriple=aarch64-unknown-linux-gnu -mcpu=neoverse-n1 %t.neon.ll -o %t.neon.s
// RUN: FileCheck %s --check-prefix=NEON < %t.neon.s
// RUN: FileCheck %s --check-prefix=NEON-SPILL < %t.neon.s
// NEON-COUNT-24: fmla v{{[0-9]+}}.4s

// X86-SPILL-NOT: {{[xyz]mm[0-9]+.*(Spill|Reload)}}
// NEON-SPILL-NOT: {{ q[0-9]+,.*(Spill|Reload)}}

func.func @mm(%a: memref<96x256xf32>, %b: memref<256x512xf32>) -> memref<96x512xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "96,512"} : () -> memref<96x512xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 96, 512, 256>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<96x512xf32>, memref<96x256xf32>, memref<256x512xf32>) -> ()
  return %c : memref<96x512xf32>
}
