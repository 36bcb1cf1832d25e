// The named pipelines expand to the project's pipelines (built once, in
// ocannl_passes::registry) followed by each backend's own passes: the CPU
// outlines its loop nests as kernels, approximates f32 math functions by
// polynomials, then cleans up (canonicalize, cse) once per distinct kernel and passes kernels bare pointers, the GPU's are gpu.launch ops (outlined
// by upstream gpu-kernel-outlining).
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-llvm)' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-nvvm{chip=sm_80 ptx=78 opt-level=2})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVM

// LLVM: builtin.module(
// LLVM-NEXT: ocannl-infer-shapes{
// LLVM-NEXT: ocannl-lower-to-assign{params-as-arguments=false}
// LLVM-NEXT: ocannl-virtualize{
// LLVM-NEXT: ocannl-simplify{
// LLVM-NEXT: ocannl-one-hot-to-gather{explain=false}
// LLVM-NEXT: ocannl-lower-to-loops{cpu= explain=false kernels=true target=}
// LLVM-NEXT: ocannl-outline-kernels{dedup=true explain=false}
// LLVM-NEXT: ocannl-approximate-math{ops=exp,tanh,erf}
// LLVM-NEXT: func.func(
// LLVM-NEXT: canonicalize{
// LLVM-NEXT: cse
// LLVM-NEXT: ),
// LLVM-NEXT: ocannl-kernel-bare-ptrs,
// LLVM-NEXT: ocannl-check-lowered,
// LLVM-NEXT: convert-scf-to-openmp

// NVVM: builtin.module(
// NVVM-NEXT: ocannl-infer-shapes{
// NVVM-NEXT: ocannl-lower-to-assign{params-as-arguments=false}
// NVVM-NEXT: ocannl-virtualize{
// NVVM-NEXT: ocannl-simplify{
// NVVM-NEXT: ocannl-one-hot-to-gather{explain=false}
// NVVM-NEXT: ocannl-lower-to-loops{cpu= explain=false kernels=false target=gpu}
// NVVM-NEXT: func.func(
// NVVM-NEXT: canonicalize{
// NVVM-NEXT: cse
// NVVM-NEXT: ),
// NVVM-NEXT: ocannl-check-lowered,
// NVVM-NEXT: gpu-launch-sink-index-computations
// NVVM-NOT: ocannl-outline-kernels
// NVVM: nvvm-attach-target{O=2 chip=sm_80 {{.*}}features=+ptx78
module {}
