// REQUIRES: ocannl-run
// Memory a run cannot have is an error, not a crash: a function whose
// buffers need more than the memory limit (by default the machine's
// physical memory) is refused before it runs; an allocation that fails
// while it runs stops it with the op that needed the buffer.
// RUN: not ocannl-run %s --entry big --memory-limit 1G 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not ocannl-run %s --entry huge --memory-limit none 2>&1 | FileCheck %s --check-prefix=MALLOC
// RUN: ocannl-run %s --entry small --memory-limit 1K | FileCheck %s --check-prefix=SMALL
// RUN: not ocannl-run %s --entry small --memory-limit 8 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: not ocannl-run %s --entry small --memory-limit 3X 2>&1 | FileCheck %s --check-prefix=SUFFIX
// A generated argument larger than the limit is refused before it is made.
// RUN: not ocannl-run %s --entry arg --arg range 2>&1 | FileCheck %s --check-prefix=ARG

// LIMIT: @big needs 4000000000004 bytes for its buffers at once, more than the memory limit of 1073741824 bytes
// MALLOC: memory.mlir:[[@LINE+12]]:8: error: cannot allocate the buffer of node 'w': the allocation of 4611686018427387904 bytes failed (out of memory)
// MALLOC-NOT: result0
// SMALL: result0: shape [1] dtype f32
// TIGHT: @small needs 16 bytes for its buffers at once, more than the memory limit of 8 bytes
// SUFFIX: error: invalid value '3X' for '--memory-limit <MEMORY_LIMIT>': unknown suffix 'X' (K, M, G or T)
// ARG: argument #0: 1000000000000000 values take 4000000000000000 bytes on the host, more than the memory limit
func.func @big() -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"1000000000000", f32>
  %s = "ocannl_shape.einsum"(%w) {spec = "i => 0"} : (!ocannl_shape.tensor<"1000000000000", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
func.func @huge() -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"1152921504606846976", f32>
  %s = "ocannl_shape.einsum"(%w) {spec = "i => 0"} : (!ocannl_shape.tensor<"1152921504606846976", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
func.func @small() -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3", f32>
  %s = "ocannl_shape.einsum"(%w) {spec = "i => 0"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
func.func @arg(%x: !ocannl_shape.tensor<"1000000000000000", f32>) -> !ocannl_shape.tensor<"1000000000000000", f32> {
  return %x : !ocannl_shape.tensor<"1000000000000000", f32>
}
