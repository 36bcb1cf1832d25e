// --version names LLVM, then the project.
// RUN: ocannl-opt --version | FileCheck %s
// CHECK: LLVM version 22
// CHECK: ocannl-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (OCANNL: the ocannl_shape and ocannl_assign dialects
