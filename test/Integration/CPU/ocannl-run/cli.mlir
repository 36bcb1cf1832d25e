// REQUIRES: ocannl-run
// Command-line errors are reported before anything runs.
// RUN: rm -rf %t && mkdir -p %t
// An optimization level beyond 3 is refused.
// RUN: not ocannl-run %s --entry f --arg range --opt-level 99 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not ocannl-run %s --entry f --arg range --opt-level 4 --interpret 2>&1 | FileCheck %s --check-prefix=OPT
// The output directory is created with its parents; one that cannot be
// created is an error.
// RUN: ocannl-run %s --entry f --arg range --out-dir %t/a/b/c --quiet
// RUN: ocannl-run %s --entry f --arg %t/a/b/c/result0.npy | FileCheck %s
// RUN: touch %t/file
// RUN: not ocannl-run %s --entry f --arg range --out-dir %t/file/out 2>&1 | FileCheck %s --check-prefix=DIR
// A .npy file must hold exactly the data its header describes.
// RUN: not ocannl-run %s --entry f --arg %S/Inputs/trailing.npy 2>&1 | FileCheck %s --check-prefix=TRAILING
// RUN: not ocannl-run %s --entry f --arg %S/Inputs/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: ocannl-run %s --entry f --arg %S/Inputs/ones4.npy | FileCheck %s --check-prefix=ONES
// Backends by name, and their own options.
// RUN: not ocannl-run %s --entry f --arg range --device nope 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not ocannl-run %s --entry f --arg range --backend-option chip=sm_80 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not ocannl-run %s --entry f --arg range --backend-option chip 2>&1 | FileCheck %s --check-prefix=KV
// RUN: ocannl-run %s --entry f --arg range --backend-option openmp=%libomp | FileCheck %s --check-prefix=RANGE
// The JIT's threads and SLP vectorizer.
// RUN: ocannl-run %s --entry f --arg range --backend-option threads=3 --backend-option slp=off | FileCheck %s --check-prefix=RANGE
// RUN: not ocannl-run %s --entry f --arg range --backend-option threads=0 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: env OCANNL_COMPILE_THREADS=many not ocannl-run %s --entry f --arg range 2>&1 | FileCheck %s --check-prefix=THREADS-ENV
// RUN: not ocannl-run %s --entry f --arg range --backend-option slp=maybe 2>&1 | FileCheck %s --check-prefix=SLP

// OPT: error: invalid value '{{99|4}}' for '--opt-level <OPT_LEVEL>': {{99|4}} is not in 0..=3
// range(4) + 1, read back, + 1.
// CHECK: [2, 3, 4, 5]
// DIR: --out-dir: cannot create {{.*}}file/out:
// TRAILING: trailing.npy has 23 bytes of data but its header (shape [4], dtype <f4) describes 16
// SHORT: short.npy has 12 bytes of data but its header (shape [4], dtype <f4) describes 16
// ONES: [2, 2, 2, 2]
// DEVICE: unknown backend 'nope' (the registered backends: cpu, cuda)
// OPTION: the cpu backend has no option 'chip' (its options: openmp, threads, slp, target-cpu, profile)
// THREADS: the option 'threads' must be a positive number of threads, not '0'
// THREADS-ENV: OCANNL_COMPILE_THREADS must be a positive number of threads, not 'many'
// SLP: the option 'slp' is on or off, not 'maybe'
// KV: invalid value 'chip' for '--backend-option <KEY=VALUE>': expected KEY=VALUE, found "chip"
// RANGE: [1, 2, 3, 4]
func.func @f(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32> {
  %one = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %one) {op = "add"} : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %y : !ocannl_shape.tensor<"4", f32>
}
