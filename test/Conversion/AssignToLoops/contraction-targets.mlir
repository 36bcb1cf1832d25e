// The contraction kernel's register tile follows the CPU it is planned for
// (`cpu=NAME`, LLVM's name): accumulators, a row of b and the broadcast of
// a within the vector registers.

// AVX-512 (32 registers of 16 f32): 12 rows of 2 vectors.
// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v4 | FileCheck %s --check-prefix=AVX512
// AVX512: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)

// AVX2 (16 registers of 8 f32): 6 rows of 2 vectors, as BLIS's 6x16.
// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v3 | FileCheck %s --check-prefix=AVX2
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)

// NEON (32 registers of 4 f32): 6 rows of 4 vectors.
// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=neoverse-n1 | FileCheck %s --check-prefix=NEON
// NEON: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)

// A CPU LLVM does not know is an error at the module.
// RUN: not ocannl-opt %s --ocannl-lower-to-loops=cpu=pentium-9000 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: LLVM knows no CPU named 'pentium-9000'

// A target that plans for no CPU refuses one.
// RUN: not ocannl-opt %s --ocannl-lower-to-loops="target=sequential cpu=x86-64-v3" 2>&1 | FileCheck %s --check-prefix=SEQUENTIAL
// SEQUENTIAL: error: the loop target 'sequential' plans for no CPU, not 'x86-64-v3'

func.func @mm(%a: memref<96x256xf32>, %b: memref<256x512xf32>) -> memref<96x512xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "96,512"} : () -> memref<96x512xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 96, 512, 256>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<96x512xf32>, memref<96x256xf32>, memref<256x512xf32>) -> ()
  return %c : memref<96x512xf32>
}
