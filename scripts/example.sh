#!/usr/bin/env bash
# The project's main job: LeNet-5 on Fashion-MNIST. The model is written
# with the ocannl crate's layers (ocannl::nn::lenet, cross-entropy) and
# compiled through the whole pipeline (shape inference, assignments,
# backprop, SGD, loops, LLVM); it trains on Debian's dataset-fashion-mnist
# (which bootstrap.sh installs) with a progress bar, prints the test
# accuracy after each epoch and the loss curve, saves the params as one
# safetensors file, and fails below 89% test accuracy.
# Arguments go to the example (e.g. --epochs 2, --batch 128, --device cuda).
# The two-moons demo is the quick one:
#   cargo run --release -p ocannl --example moons
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --quiet --release -p ocannl --example fashion_mnist
exec target/release/examples/fashion_mnist "$@"
