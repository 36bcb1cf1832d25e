// REQUIRES: llc, c-compiler, aarch64-cross
// Arm, checked on any host: the kernels planned for Neoverse N1
// (`cpu=neoverse-n1`: NEON tiles) compiled ahead of time by LLVM's own
// tools, linked by Debian's cross toolchain and run under qemu-aarch64,
// give the results of the same module planned for and run on the host:
// a matmul, a padded convolution, and a train step of LeNet-5's layers
// (two 5x5 convolutions with relu and 2x2 max-pooling, three dense layers;
// a squared loss) from params its init routine makes, three SGD steps.
// (Its speed can only be measured on Arm hardware.)
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step)" -o %t.assign.mlir
// RUN: %python %S/Inputs/arm_main.py %t.assign.mlir > %t.main.c
// RUN: ocannl-opt %t.assign.mlir --pass-pipeline="%assign_to_llvm_neon" | mlir-translate --mlir-to-llvmir -o %t.arm.ll
// RUN: FileCheck %s --check-prefix=IR < %t.arm.ll
// RUN: llc -O2 -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1 -filetype=obj -relocation-model=pic %t.arm.ll -o %t.arm.o
// RUN: %aarch64_cc -O1 %t.main.c %t.arm.o -lm -o %t.arm.exe
// RUN: %qemu_aarch64 %t.arm.exe > %t.arm.txt
// RUN: ocannl-opt %t.assign.mlir --pass-pipeline="%assign_to_llvm_host" | mlir-translate --mlir-to-llvmir -o %t.host.ll
// RUN: llc -O2 -mcpu=native -filetype=obj -relocation-model=pic %t.host.ll -o %t.host.o
// RUN: %cc -O1 %t.main.c %t.host.o -lm -o %t.host.exe
// RUN: %t.host.exe > %t.host.txt
// RUN: %python %S/Inputs/compare.py %t.host.txt %t.arm.txt 1e-3 | FileCheck %s
// The NEON kernels (multiply-adds on 4 f32 lanes), sequential (no OpenMP runtime
// on the cross side: both pipelines run parallel loops in turn).
// IR: @llvm.fmuladd.v4f32(<4 x float>
// IR-NOT: __kmpc
// mm: 32 x 40; conv: 4 x 16 x 16 x 8; three losses; the params.
// CHECK: {{[0-9]+}} values agree
// RUN: FileCheck %s --check-prefix=LOSS < %t.arm.txt
// LOSS-COUNT-3: lenet_train_step loss

func.func @mm(%a: !ocannl_shape.tensor<"32->48", f32>, %b: !ocannl_shape.tensor<"48->40", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%b, %a) : (!ocannl_shape.tensor<"48->40", f32>, !ocannl_shape.tensor<"32->48", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

func.func @conv(%x: !ocannl_shape.tensor<"4|16,16,3", f32>, %w: !ocannl_shape.tensor<"3,3,3->8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "...|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc"} : (!ocannl_shape.tensor<"4|16,16,3", f32>, !ocannl_shape.tensor<"3,3,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

func.func @lenet(%x: !ocannl_shape.tensor<"8|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %k1 = "ocannl_shape.param"() {name = "conv1.kernel"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %b1 = "ocannl_shape.param"() {name = "conv1.bias"} : () -> !ocannl_shape.tensor<"6", f32>
  %k2 = "ocannl_shape.param"() {name = "conv2.kernel"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %b2 = "ocannl_shape.param"() {name = "conv2.bias"} : () -> !ocannl_shape.tensor<"16", f32>
  %w3 = "ocannl_shape.param"() {name = "fc1.w"} : () -> !ocannl_shape.tensor<"5,5,16->120", f32>
  %b3 = "ocannl_shape.param"() {name = "fc1.b"} : () -> !ocannl_shape.tensor<"120", f32>
  %w4 = "ocannl_shape.param"() {name = "fc2.w"} : () -> !ocannl_shape.tensor<"120->84", f32>
  %b4 = "ocannl_shape.param"() {name = "fc2.b"} : () -> !ocannl_shape.tensor<"84", f32>
  %w5 = "ocannl_shape.param"() {name = "logits.w"} : () -> !ocannl_shape.tensor<"84->10", f32>
  %b5 = "ocannl_shape.param"() {name = "logits.b"} : () -> !ocannl_shape.tensor<"10", f32>
  %window = "ocannl_shape.constant"() {value = 0.0} : () -> !ocannl_shape.tensor<"2,2", f32>
  %c1 = "ocannl_shape.einsum"(%x, %k1) {spec = "...|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc"} : (!ocannl_shape.tensor<"8|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s1 = "ocannl_shape.pointwise_binary"(%c1, %b1) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r1 = "ocannl_shape.pointwise_unary"(%s1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p1 = "ocannl_shape.einsum"(%r1, %window) {spec = "...|2*oh<+wh, 2*ow<+ww, c; wh, ww => ...|oh, ow, c", accum = "max", op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"2,2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %c2 = "ocannl_shape.einsum"(%p1, %k2) {spec = "...|1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s2 = "ocannl_shape.pointwise_binary"(%c2, %b2) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r2 = "ocannl_shape.pointwise_unary"(%s2) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p2 = "ocannl_shape.einsum"(%r2, %window) {spec = "...|2*oh<+wh, 2*ow<+ww, c; wh, ww => ...|oh, ow, c", accum = "max", op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"2,2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m3 = "ocannl_shape.compose"(%w3, %p2) : (!ocannl_shape.tensor<"5,5,16->120", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s3 = "ocannl_shape.pointwise_binary"(%m3, %b3) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"120", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r3 = "ocannl_shape.pointwise_unary"(%s3) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m4 = "ocannl_shape.compose"(%w4, %r3) : (!ocannl_shape.tensor<"120->84", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s4 = "ocannl_shape.pointwise_binary"(%m4, %b4) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"84", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r4 = "ocannl_shape.pointwise_unary"(%s4) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m5 = "ocannl_shape.compose"(%w5, %r4) : (!ocannl_shape.tensor<"84->10", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %o = "ocannl_shape.pointwise_binary"(%m5, %b5) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %sq = "ocannl_shape.pointwise_binary"(%o, %o) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%sq) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
