// The project's passes are listed in --help, with their options.
// RUN: ocannl-opt --help | FileCheck %s
// CHECK: OVERVIEW: OCANNL optimizer driver
// CHECK: --ocannl-infer-shapes
// CHECK-SAME: Infer the shapes of ocannl_shape tensors
// CHECK-NEXT: --explain
// CHECK-SAME: Report, as remarks, the assumptions made while closing shapes
// CHECK: --ocannl-verify
// CHECK-SAME: Check the ocannl_shape and ocannl_assign ops
