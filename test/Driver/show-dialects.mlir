// RUN: ocannl-opt --show-dialects | FileCheck %s
// CHECK: Available Dialects:
// CHECK-SAME: linalg
// CHECK-SAME: ocannl_assign,ocannl_shape
