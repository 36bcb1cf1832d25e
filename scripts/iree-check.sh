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
