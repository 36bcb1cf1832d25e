// A user's --irdl-file adds its dialects to the project's; the project's
// dialects load from memory, so no writable temporary directory is needed.
// RUN: env TMPDIR=%t.does-not-exist ocannl-opt %s --irdl-file=%S/Inputs/user_dialect.irdl.mlir --ocannl-infer-shapes | FileCheck %s
// RUN: env TMPDIR=%t.does-not-exist ocannl-opt %S/../Interop/Inputs/cse.mlir --cse | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: func.func @f
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "user_ext.sink"(%{{.*}}) : (!ocannl_shape.tensor<"4", f32>) -> ()
func.func @f(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"3", f32>) {
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"4", f32>
  "user_ext.sink"(%y) : (!ocannl_shape.tensor<"4", f32>) -> ()
  return
}

// UPSTREAM-LABEL: func.func @cse
