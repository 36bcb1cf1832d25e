#!/usr/bin/env bash
# ocannl-opt on a bundled example: runs an MLP written
# in the ocannl_shape dialect through every pass of the project, followed by
# upstream canonicalization, and prints the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --quiet -p ocannl-opt
example="${1:-examples/mlp.mlir}"
pipeline="$(cat examples/pipeline.txt)"
echo "// ocannl-opt $example --pass-pipeline='$pipeline'" >&2
target/debug/ocannl-opt "$example" --pass-pipeline="$pipeline"
