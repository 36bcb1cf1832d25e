#!/usr/bin/env bash
# The project's main job: the two-moons demo. A 2-16-16-1 MLP written with
# the ocannl crate's tensor expressions is compiled through the whole
# pipeline (shape inference, assignments, backprop, SGD, loops, LLVM) and
# trained on the CPU; then the decision boundary is plotted in the terminal
# and the training accuracy printed (the demo fails below 0.95).
# Arguments go to the demo (e.g. --epochs 20, --hidden 64).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --quiet --release -p ocannl --example moons
exec target/release/examples/moons "$@"
