// REQUIRES: iree, ocannl-run
// Programs lowered to linalg (named matmuls, padded convolutions and
// pooling, a checked slice at a run-time index), compiled by IREE for the
// CPU and run by its runtime: the same values as ocannl-run's JIT. An index
// outside the sliced axis stops the IREE call with the check's message.
// RUN: %iree_python %repo/scripts/iree-run.py %repo/examples/mlp.mlir --entry mlp --arg random:1 --tool-dir %tool_dir | FileCheck %s --check-prefix=MLP
// RUN: %iree_python %repo/scripts/iree-run.py %S/../CPU/linalg/conv.mlir --entry f --tool-dir %tool_dir | FileCheck %s --check-prefix=CONV
// RUN: %iree_python %repo/scripts/iree-run.py %S/../CPU/linalg/slice.mlir --entry f --arg range --arg 1 --tool-dir %tool_dir | FileCheck %s --check-prefix=SLICE
// RUN: ocannl-opt %S/../CPU/linalg/slice.mlir --ocannl-to-linalg -o %t.mlir
// RUN: %iree_bin/iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host %t.mlir -o %t.vmfb
// RUN: not %iree_bin/iree-run-module --module=%t.vmfb --device=local-sync --function=f --input="3x2xf32=0 1 2 3 4 5" --input=3 2>&1 | FileCheck %s --check-prefix=BAD
// MLP: iree-run: @mlp: 1 values agree with ocannl-run
// CONV: iree-run: @f: 1 values agree with ocannl-run
// SLICE: iree-run: @f: 1 values agree with ocannl-run
// BAD: FAILED_PRECONDITION; {{.*}}slice.mlir:{{[0-9]+}}:8: error: the slice index (argument #1 of @f) is outside the axis of 3 cell(s) (valid indices: 0 to 2)
