#!/usr/bin/env bash
# Runs the whole test suite: Rust unit tests and the lit + FileCheck suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# The lit suite runs the tools; cargo test builds only those its tests name.
cargo build --workspace --bins
cargo test --workspace "$@"
