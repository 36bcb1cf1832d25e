// A short fixed-seed run of the mutation fuzzer over the lit inputs
// (scripts/fuzz-opt.py; docs/testing.md says how to run it for long): no mutant
// crashes ocannl-opt (no signal, panic, internal error, invalid IR after a
// project pass, or ocannl types left after --ocannl-to-llvm).
// RUN: %python %repo/scripts/fuzz-opt.py --tool-dir %tool_dir --count 40 --seed 1 --quiet --out %t | FileCheck %s

// CHECK: fuzz-opt: seed 1: 40 mutants of {{[0-9]+}} modules, {{[0-9]+}} runs, {{[0-9]+}} rejected with a diagnostic, 0 crashes
