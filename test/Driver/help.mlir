// The project's dialects and passes are listed in --help, the passes with
// their options.
// RUN: ocannl-opt --help | FileCheck %s
// CHECK: OVERVIEW: OCANNL optimizer driver
// CHECK: Available Dialects: {{.*}}linalg, {{.*}}ocannl_assign, ocannl_shape,
// CHECK: --ocannl-infer-shapes
// CHECK-SAME: Infer the shapes of ocannl_shape tensors
// CHECK-NEXT: --explain
// CHECK-SAME: Report, as remarks, the assumptions made while closing shapes
// CHECK: --ocannl-verify
// CHECK-SAME: Check every ocannl_shape and ocannl_assign op
