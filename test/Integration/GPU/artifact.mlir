// REQUIRES: ocannl-run, ocannl-gpu
// An artifact written without a GPU holds the schedule that
// --print-schedule prints, for each chip asked for; ocannl-gpu (no MLIR)
// reads it back.
// RUN: ocannl-run %s --entry layer --device cuda --emit-artifact %t.layer.ocgpu --chip sm_80 --chip sm_90
// RUN: ocannl-gpu schedule %t.layer.ocgpu --entry layer > %t.layer.aot
// RUN: ocannl-run %s --entry layer --device cuda --print-schedule > %t.layer.jit
// RUN: diff %t.layer.aot %t.layer.jit
// RUN: ocannl-gpu info %t.layer.ocgpu | FileCheck %s --check-prefix=INFO

// A train step: params and the learning rate marked, the same schedule.
// RUN: ocannl-run %S/../../../examples/moons.mlir --train --optimizer adam --entry loss_train_step --device cuda --emit-artifact %t.moons.ocgpu --chip sm_86
// RUN: ocannl-gpu schedule %t.moons.ocgpu --entry loss_train_step > %t.moons.aot
// RUN: ocannl-run %S/../../../examples/moons.mlir --train --optimizer adam --entry loss_train_step --device cuda --print-schedule > %t.moons.jit
// RUN: diff %t.moons.aot %t.moons.jit
// RUN: ocannl-gpu info %t.moons.ocgpu | FileCheck %s --check-prefix=MOONS

// Errors: a chip that is not one, a backend without artifacts, several
// chips without an artifact, a directory that does not exist (nothing is
// left behind).
// RUN: not ocannl-run %s --entry layer --device cuda --emit-artifact %t.bad --chip gfx90a 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not ocannl-run %s --entry layer --emit-artifact %t.cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not ocannl-run %s --entry layer --device cuda --print-schedule --chip sm_80 --chip sm_90 2>&1 | FileCheck %s --check-prefix=CHIPS
// RUN: not ocannl-run %s --entry layer --device cuda --emit-artifact %t.none/a.ocgpu 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: not ls %t.bad %t.cpu

// INFO: producer: ocannl-mlir
// INFO-NEXT: chip sm_80 (PTX ISA 8.0): 1 module(s)
// INFO-NEXT: chip sm_90 (PTX ISA 8.0): 1 module(s)
// INFO-NEXT: constants: 1 (16 bytes)
// INFO-NEXT: function @layer: 4 launches
// INFO-NEXT:   arg0: f32x8x3 data
// INFO-NEXT:   result0: f32x8x4

// MOONS: chip sm_86 (PTX ISA 8.0)
// MOONS: function @loss_train_step:
// MOONS-NEXT: arg0: f32x10x2 data
// MOONS-NEXT: arg1: f32x10x1 data
// MOONS-NEXT: arg2: f32x1 param b3
// MOONS:      arg7: f32x16x2 param w1
// MOONS-NEXT: arg8: f32x1 state:adam_m adam_m:b3
// MOONS:      arg14: f32x1 state:adam_v adam_v:b3
// MOONS:      arg20: f32 state:step step
// MOONS-NEXT: arg21: f32 learning_rate
// MOONS-NEXT: result0: f32x1

// CHIP: the chip "gfx90a" is not a GPU architecture's name (sm_80, sm_90, ...)
// CPU: the cpu backend writes no artifacts
// CHIPS: several --chip are for --emit-artifact
// DIR: cannot write {{.*}}a.ocgpu

func.func @layer(%x: !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->4", f32>
  %hv = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->4", f32>, !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_binary"(%m, %hv) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
