// The examples of the dialect reference (docs/dialects.md) parse and verify,
// under ocannl-opt and under stock mlir-opt with the IRDL files, and lower.
// RUN: %python %S/extract_examples.py %repo/docs/dialects.md ocannl_shape > %t.shape.mlir
// RUN: %python %S/extract_examples.py %repo/docs/dialects.md ocannl_assign > %t.assign.mlir
// RUN: ocannl-opt %t.shape.mlir --split-input-file | FileCheck %s --check-prefix=SHAPE
// RUN: ocannl-opt %t.shape.mlir --split-input-file --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops -o /dev/null
// RUN: mlir-opt --irdl-file=%shape_irdl %t.shape.mlir --split-input-file -o /dev/null
// RUN: ocannl-opt %t.assign.mlir --split-input-file | FileCheck %s --check-prefix=ASSIGN
// RUN: ocannl-opt %t.assign.mlir --split-input-file --ocannl-lower-to-loops -o /dev/null
// RUN: mlir-opt --irdl-file=%assign_irdl %t.assign.mlir --split-input-file -o /dev/null

// One example per op (12 and 10 ops, split by 11 and 9 markers):
// SHAPE-COUNT-11: // -----
// SHAPE-NOT: // -----
// ASSIGN-COUNT-9: // -----
// ASSIGN-NOT: // -----
