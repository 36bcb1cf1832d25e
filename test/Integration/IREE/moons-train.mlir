// REQUIRES: iree, ocannl-run
// The moons MLP's train step lowered to linalg, compiled by IREE for the
// CPU and run five steps in a row, the params and the optimizer's state
// each step's results threaded into the next call: the last loss, the
// params and the state agree with ocannl-run's JIT within 1e-5 relative.
// RUN: %iree_python %repo/scripts/iree-run.py %repo/examples/moons.mlir --train --entry loss --arg random:1 --arg random:2 --steps 5 --tool-dir %tool_dir | FileCheck %s --check-prefix=SGD
// RUN: %iree_python %repo/scripts/iree-run.py %repo/examples/moons.mlir --train --optimizer adamw --entry loss --arg random:1 --arg random:2 --steps 5 --tool-dir %tool_dir | FileCheck %s --check-prefix=ADAMW
// SGD: iree-run: @loss_train_step after 5 steps: 7 values agree with ocannl-run
// ADAMW: iree-run: @loss_train_step after 5 steps: 20 values agree with ocannl-run
