// Each chunk is its own module; output chunks are separated again.
// RUN: ocannl-opt %s --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}
