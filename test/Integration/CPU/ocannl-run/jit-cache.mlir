// REQUIRES: ocannl-run
// A second run loads the whole executable from the compilation cache (it
// compiles nothing); the CPU's JIT also keeps each part's object there, so
// that another level compiles only what it changes; no cache compiles
// everything.
// RUN: rm -rf %t
// RUN: env OCANNL_CACHE_DIR=%t ocannl-run %s --entry f --arg range --time-phases | FileCheck %s --check-prefixes=COLD,FIRST
// RUN: env OCANNL_CACHE_DIR=%t ocannl-run %s --entry f --arg range --time-phases | FileCheck %s --check-prefix=WARM
// RUN: env OCANNL_CACHE_DIR=%t ocannl-run %s --entry f --arg range --time-phases --repeat 300000 --quiet | FileCheck %s --check-prefix=LEVEL
// RUN: env OCANNL_CACHE=0 ocannl-run %s --entry f --arg range --time-phases | FileCheck %s --check-prefixes=COLD,NONE
// RUN: env OCANNL_CACHE_DIR=%t OCANNL_COMPILE_THREADS=1 ocannl-run %s --entry f --arg range --time-phases | FileCheck %s --check-prefix=WARM

// COLD: [4, 6, 8, 10]
// FIRST: cache: miss
// NONE: cache: uncached
// COLD: phase translate:
// COLD: phase codegen:
// COLD: phase link:
// The routine, its one kernel (the two pointwise ops inlined into one
// loop nest) and the status global both read, in a part of its own.
// COLD: count parts: 3
// COLD-NEXT: count parts-compiled: 3
// COLD-NEXT: count parts-cached: 0
// COLD-NEXT: count kernels: 1
// Many runs announced (`--repeat`): the work of the run asks for -O1, so the
// element-wise kernel is compiled again; the routine and the shared part
// (the host code's -O0 either way) come from the cache.
// LEVEL: cache: miss
// LEVEL: count parts: 3
// LEVEL-NEXT: count parts-compiled: 1
// LEVEL-NEXT: count parts-cached: 2
// WARM: [4, 6, 8, 10]
// WARM: cache: hit
// WARM: count parts: 3
// WARM-NEXT: count parts-compiled: 0
// WARM-NEXT: count parts-cached: 3
func.func @f(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32> {
  %two = "ocannl_shape.constant"() {value = 2.0 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %two) {op = "add"} : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"4", f32>
  %z = "ocannl_shape.pointwise_binary"(%y, %two) {op = "mul"} : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %z : !ocannl_shape.tensor<"4", f32>
}
