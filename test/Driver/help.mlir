// The project's passes are listed in --help, with their options.
// RUN: ocannl-opt --help | FileCheck %s
// CHECK: OVERVIEW: OCANNL optimizer driver
// CHECK: --ocannl-verify
// CHECK-SAME: Check the ocannl_shape and ocannl_assign ops
