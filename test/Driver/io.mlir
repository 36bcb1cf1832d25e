// Input from stdin with `-`, output to a file with `-o`, and locations
// printed with --mlir-print-debuginfo.
// RUN: cat %s | ocannl-opt - -o %t
// RUN: FileCheck %s < %t
// RUN: ocannl-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: ocannl-opt %s --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME

// CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3", f32>
// LOC: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3", f32> loc(#[[L:.*]])
// LOC: #[[L]] = loc("{{.*}}io.mlir":[[@LINE+4]]:8)
// TIME: Execution time report
// TIME: Parser
func.func @f() {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3", f32>
  return
}
