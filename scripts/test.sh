#!/usr/bin/env bash
# Runs the whole test suite: Rust unit tests and the lit + FileCheck suite,
# the latter against debug and release builds of the tools.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# No two modules of a crate import each other, directly or through others;
# no unsafe block wraps a closure.
python3 scripts/structure.py
# The lit suite runs the tools and the plugin of stock MLIR tools; cargo
# test builds only the tools its tests name.
cargo build --workspace
# Lints, the workspace's included: every unsafe block and unsafe fn says
# why it is sound (Cargo.toml's [workspace.lints]).
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets -- -D warnings
else
  echo "test.sh: cargo clippy is not installed (rustup component add clippy); lints not checked" >&2
fi
cargo test --workspace "$@"
# Optimized builds can expose undefined behaviour the debug build hides.
cargo build --release --workspace
# The main job end to end: trains the moons demo to at least 0.95 accuracy.
cargo build --release -p ocannl --example moons
target/release/examples/moons --no-plot --save target/moons-model
# A saved model evaluated again without training: the params round-trip.
target/release/examples/moons --no-plot --load target/moons-model --epochs 0
# Trained with AdamW (a warmup and cosine schedule).
target/release/examples/moons --no-plot --optimizer adamw
# The main job, short: LeNet-5 on a fifth of Fashion-MNIST for one epoch
# (the full run, scripts/example.sh, reaches 89%), its checkpoint reloaded.
cargo build --release -p ocannl --example fashion_mnist
target/release/examples/fashion_mnist --epochs 1 --train-items 12800 --min-accuracy 0.78 \
  --save target/fashion-mnist-short.safetensors
target/release/examples/fashion_mnist --epochs 0 --load target/fashion-mnist-short.safetensors \
  --min-accuracy 0.78
# The GPU self-check bundle: artifacts written without a GPU, their PTX
# checked by ptxas, read back by the MLIR-free ocannl-gpu (each case
# skipped here without a GPU).
scripts/gpu-selfcheck-bundle.sh target/gpu-selfcheck
# The character transformer, short: one layer, 300 AdamW steps.
cargo build --release -p ocannl --example names
target/release/examples/names --layers 1 --steps 300 --every 300 --samples 3 --max-test-loss 2.6
# The GPT example, short, on Debian's word list: one layer, 400 steps, its
# checkpoint written; then greedy generation with key/value caches checked
# equal to recomputing the context.
cargo build --release -p ocannl --example gpt
target/release/examples/gpt --text /usr/share/dict/words --layers 1 --dim 64 --block 32 --batch 8 \
  --steps 400 --eval-every 400 --eval-batches 4 --warmup 20 --log-every 0 --max-val-loss 2.9 \
  --checkpoint target/gpt-short.safetensors --sample 31 --prompt a --compare-recompute
# IREE 3.13 from PyPI into target/iree-venv (a 600 MB download the first
# time; OCANNL_IREE=0 skips it): the differential programs through linalg
# and IREE against the JIT, and the lit tests that need IREE (which report
# themselves unsupported where it is not installed).
if [ "${OCANNL_IREE:-1}" = 1 ]; then
  scripts/iree-check.sh
fi
"${MLIR_SYS_220_PREFIX:-/usr/lib/llvm-22}/bin/lit" -s test --param tool_dir=target/release --param exec_root=target/release/lit
