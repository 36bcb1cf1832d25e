// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adam})" | FileCheck %s --check-prefix=ADAM
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adam weight-decay=0.5})" | FileCheck %s --check-prefix=L2
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{optimizer=adamw beta1=0.5 beta2=0.75 eps=0.25 clip-norm=2})" | FileCheck %s --check-prefix=ADAMW
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-autodiff,ocannl-train-step{momentum=0.9 clip-norm=1})" | FileCheck %s --check-prefix=SGD

// Two params: the state arguments come kind after kind (every param's m,
// then every param's v), then the step count, then the learning rate.
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @f(%x: memref<3xf32>, %w: memref<3xf32> {ocannl.param = "w"}, %b: memref<f32> {ocannl.param = "b"}) -> memref<f32> {
  %l = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "loss", shape = ""} : () -> memref<f32>
  "ocannl_assign.accum_binop"(%l, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3>, indexing_maps = [#none, #id, #id]} : (memref<f32>, memref<3xf32>, memref<3xf32>) -> ()
  "ocannl_assign.accum_unop"(%l, %b) {accum = "add", op = "identity", space = array<i64>, indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>]} : (memref<f32>, memref<f32>) -> ()
  return %l : memref<f32>
}

// Adam: t += 1; the step size lr / (1 - beta1^t) and sqrt(1 - beta2^t);
// per param m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2 and
// p -= step_size * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
// ADAM-LABEL: func.func @f_train_step(
// ADAM-SAME: %{{.*}}: memref<3xf32>, %[[W:[^:]*]]: memref<3xf32> {ocannl.param = "w"}, %[[B:[^:]*]]: memref<f32> {ocannl.param = "b"},
// ADAM-SAME: %[[MW:[^:]*]]: memref<3xf32> {ocannl.adam_m = "w"}, %[[MB:[^:]*]]: memref<f32> {ocannl.adam_m = "b"},
// ADAM-SAME: %[[VW:[^:]*]]: memref<3xf32> {ocannl.adam_v = "w"}, %[[VB:[^:]*]]: memref<f32> {ocannl.adam_v = "b"},
// ADAM-SAME: %[[T:[^:]*]]: memref<f32> {ocannl.step = ""}, %[[LR:[^:]*]]: memref<f32> {ocannl.learning_rate = ""}) -> memref<f32>
// ADAM: %[[GW:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "w.grad"
// ADAM-NOT: clip
// ADAM: "ocannl_assign.accum"(%[[T]]) ({
// ADAM-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// ADAM-NEXT: vector.yield %[[ONE]] : f32
// ADAM-NEXT: }) {accum = "add", indexing_maps = [#{{.*}}], space = array<i64>}
// ADAM: %[[SS:.*]] = "ocannl_assign.node"() {{{.*}}name = "adam_step_size"
// ADAM-NEXT: "ocannl_assign.accum"(%[[SS]], %[[LR]], %[[T]]) ({
// ADAM: arith.constant 0.899999976 : f32
// ADAM-NEXT: math.powf
// ADAM-NEXT: arith.subf
// ADAM-NEXT: arith.divf
// ADAM: %[[BC2:.*]] = "ocannl_assign.node"() {{{.*}}name = "adam_bias2_sqrt"
// ADAM-NEXT: "ocannl_assign.accum"(%[[BC2]], %[[T]]) ({
// ADAM: arith.constant 9.990000e-01 : f32
// ADAM-NEXT: math.powf
// ADAM-NEXT: arith.subf
// ADAM-NEXT: math.sqrt
// ADAM-NOT: adamw_decay
// ADAM: "ocannl_assign.accum"(%[[MW]], %[[MW]], %[[GW]]) ({
// ADAM: }) {accum = "assign"
// ADAM-NEXT: "ocannl_assign.accum"(%[[VW]], %[[VW]], %[[GW]]) ({
// ADAM: }) {accum = "assign"
// ADAM-NEXT: "ocannl_assign.accum"(%[[W]], %[[SS]], %[[MW]], %[[VW]], %[[BC2]]) ({
// ADAM: arith.constant 9.99999993E-9 : f32
// ADAM: }) {accum = "sub"
// ADAM: "ocannl_assign.accum"(%[[MB]], %[[MB]], %{{.*}}) ({
// ADAM: "ocannl_assign.accum"(%[[VB]], %[[VB]], %{{.*}}) ({
// ADAM: "ocannl_assign.accum"(%[[B]], %[[SS]], %[[MB]], %[[VB]], %[[BC2]]) ({
// ADAM: }) {accum = "sub"
// ADAM-NEXT: return

// Adam's weight decay is an L2 term, g += wd * p, before the moments.
// L2-LABEL: func.func @f_train_step(
// L2-SAME: %[[W:[^:]*]]: memref<3xf32> {ocannl.param = "w"}
// L2: %[[GW:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "w.grad"
// L2-NOT: adamw_decay
// L2: "ocannl_assign.accum"(%[[GW]], %[[W]]) ({
// L2-NEXT: ^bb0(%[[P:.*]]: f32):
// L2-NEXT: %[[WD:.*]] = arith.constant 5.000000e-01 : f32
// L2-NEXT: arith.mulf %[[WD]], %[[P]] : f32
// L2: }) {accum = "add"
// L2-NEXT: "ocannl_assign.accum"(%{{.*}}, %{{.*}}, %[[GW]]) ({

// AdamW with clipping: the gradients scaled by min(1, c / (norm + 1e-6))
// first, then the decoupled decay p *= 1 - lr * wd (wd 0.01, AdamW's
// default) before the moments; the options' betas and eps.
// ADAMW-LABEL: func.func @f_train_step(
// ADAMW-SAME: %[[W:[^:]*]]: memref<3xf32> {ocannl.param = "w"}
// ADAMW-SAME: {ocannl.step = ""}, %[[LR:[^:]*]]: memref<f32> {ocannl.learning_rate = ""})
// ADAMW: %[[GW:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "w.grad"
// ADAMW: %[[GB:.*]] = "ocannl_assign.node"() {kind = "grad", {{.*}}name = "b.grad"
// ADAMW: %[[SQ:.*]] = "ocannl_assign.node"() {{{.*}}name = "clip_sum_sq"
// ADAMW-NEXT: "ocannl_assign.fill"(%[[SQ]]) {value = 0.000000e+00 : f32}
// ADAMW-NEXT: "ocannl_assign.accum_binop"(%[[SQ]], %[[GW]], %[[GW]]) {accum = "add", {{.*}}op = "mul"
// ADAMW-NEXT: "ocannl_assign.accum_binop"(%[[SQ]], %[[GB]], %[[GB]]) {accum = "add", {{.*}}op = "mul"
// ADAMW-NEXT: %[[SCALE:.*]] = "ocannl_assign.node"() {{{.*}}name = "clip_scale"
// ADAMW-NEXT: "ocannl_assign.accum"(%[[SCALE]], %[[SQ]]) ({
// ADAMW: math.sqrt
// ADAMW: arith.constant 9.99999997E-7 : f32
// ADAMW: arith.minimumf
// ADAMW: "ocannl_assign.accum_unop"(%[[GW]], %[[SCALE]]) {accum = "mul", {{.*}}op = "identity"
// ADAMW-NEXT: "ocannl_assign.accum_unop"(%[[GB]], %[[SCALE]]) {accum = "mul", {{.*}}op = "identity"
// ADAMW: arith.constant 5.000000e-01 : f32
// ADAMW-NEXT: math.powf
// ADAMW: arith.constant 7.500000e-01 : f32
// ADAMW-NEXT: math.powf
// ADAMW: %[[DECAY:.*]] = "ocannl_assign.node"() {{{.*}}name = "adamw_decay"
// ADAMW-NEXT: "ocannl_assign.accum"(%[[DECAY]], %[[LR]]) ({
// ADAMW: arith.constant 0.00999999977 : f32
// ADAMW: "ocannl_assign.accum_unop"(%[[W]], %[[DECAY]]) {accum = "mul", {{.*}}op = "identity"
// ADAMW-NEXT: "ocannl_assign.accum"(%{{.*}}, %{{.*}}, %[[GW]]) ({
// ADAMW: arith.constant 2.500000e-01 : f32
// ADAMW: }) {accum = "sub"

// SGD with momentum and clipping: the clipping first, then OCANNL's SGD.
// SGD-LABEL: func.func @f_train_step(
// SGD-SAME: {ocannl.momentum = "w"}, %{{.*}}: memref<f32> {ocannl.momentum = "b"}, %{{.*}}: memref<f32> {ocannl.learning_rate = ""})
// SGD-NOT: ocannl.step
// SGD: name = "clip_scale"
// SGD: "ocannl_assign.accum_unop"(%{{.*}}) {accum = "mul", {{.*}}op = "identity"
// SGD: "ocannl_assign.accum_ternop"({{.*}}) {accum = "assign", {{.*}}op = "fma"
