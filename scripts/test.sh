#!/usr/bin/env bash
# Runs the whole test suite: Rust unit tests and the lit + FileCheck suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo test --workspace "$@"
