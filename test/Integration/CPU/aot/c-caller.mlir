// REQUIRES: llc, c-compiler
// Ahead of time, down the stock toolchain (docs/aot.md): ocannl-opt lowers to
// the LLVM dialect with C wrappers requested by a flag (the source is not
// edited), mlir-translate gives LLVM IR, llc an object for the native CPU,
// and a C program calls _mlir_ciface_layer, linked with LLVM's OpenMP
// runtime (the parallel loops call __kmpc_*; GCC's libgomp lacks them).
// RUN: ocannl-opt %s --llvm-request-c-wrappers --ocannl-to-llvm | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: llc -O3 -mcpu=native -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: %cc -O2 %S/Inputs/layer_main.c %t.o -L%llvm_lib -lomp -Wl,-rpath,%llvm_lib -o %t.exe
// RUN: %t.exe | FileCheck %s
// RUN: not %cc %S/Inputs/layer_main.c %t.o -lgomp -o %t.gomp.exe 2>&1 | FileCheck %s --check-prefix=GOMP

// IR-DAG: define void @_mlir_ciface_layer(ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// IR-DAG: call {{.*}}@__kmpc_fork_call
// CHECK: result 256 x 256, max error 0
// GOMP: undefined reference to `__kmpc_fork_call'

// A layer of an MLP, relu(w * x), for a batch of 256 vectors of 128: large
// enough for its loops to run in parallel.
func.func @layer(%w: !ocannl_shape.tensor<"128->256", f32>, %x: !ocannl_shape.tensor<"256|128", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %h = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"128->256", f32>, !ocannl_shape.tensor<"256|128", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%h) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
