// Every pass option has a kind; a value not of its kind is an error at the
// op the pass runs on, in the same words for every pass.
// RUN: not ocannl-opt %s --ocannl-virtualize=max-visits=many 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not ocannl-opt %s --ocannl-simplify=time-limit-ms=-5 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not ocannl-opt %s --ocannl-train-step=beta2=0.9x 2>&1 | FileCheck %s --check-prefix=NUMBER
// RUN: ocannl-opt %s --ocannl-virtualize=max-visits=2 --ocannl-simplify=node-limit=100 | FileCheck %s --check-prefix=OK

// COUNT: pass-options.mlir:[[# @LINE + 4]]:1: error: option 'max-visits' must be a non-negative integer, not 'many'
// NEGATIVE: error: option 'time-limit-ms' must be a non-negative integer, not '-5'
// NUMBER: error: option 'beta2' must be a non-negative number, not '0.9x'
// OK: module attributes {ocannl.mark}
module attributes {ocannl.mark} {
}
