// REQUIRES: ocannl-run
// Random scalar float programs run as written and after ocannl-simplify:
// without fast-math the results agree bit for bit (scripts/simplify-diff.py;
// run it with a larger count for longer).
// RUN: %python %repo/scripts/simplify-diff.py --tool-dir %tool_dir --count 12 --seed 1 --out %t | FileCheck %s

// CHECK: simplify-diff: seed 1: 12 programs, {{[1-9][0-9]*}} simplified without fast-math, 0 failures
