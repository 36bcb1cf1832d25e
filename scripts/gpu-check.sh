#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and its driver: runs the GPU tests (the lit
# suite, whose GPU tests need the feature `cuda`), the differential check of
# GPU results against the CPU backend, the moons demo trained on the GPU, and
# benchmarks of a 4096 x 4096 matmul
# and of the moons demo's train step on the GPU (with the CPU for reference).
# Without a GPU it says so and exits with 1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# The tools and the plugin of stock MLIR tools (the lit suite uses both).
cargo build --release --workspace
run=target/release/ocannl-run
if ! device=$("$run" - --entry none --device cuda --device-info); then
  echo "gpu-check: no GPU to check (see the line above)" >&2
  exit 1
fi
echo "gpu-check: $device"
# libdevice (math functions in kernels): the machine's CUDA toolkit, else the
# one scripts/bootstrap.sh unpacked.
if [ -z "${CUDA_ROOT:-}" ] && [ ! -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ]; then
  export CUDA_ROOT="$PWD/target/tools/nvidia/cuda_nvcc"
fi

echo "== lit (GPU tests included)"
"${MLIR_SYS_220_PREFIX:-/usr/lib/llvm-22}/bin/lit" -s test --param tool_dir=target/release \
  --param exec_root=target/release/lit
echo "== differential: GPU against CPU"
cargo test --release -p ocannl-run --test differential -- --include-ignored gpu cuda

echo "== the self-check bundle run by ocannl-gpu (no MLIR)"
scripts/gpu-selfcheck-bundle.sh target/gpu-selfcheck
target/gpu-selfcheck/ocannl-gpu selfcheck target/gpu-selfcheck
echo "== NCCL across the GPUs (data parallelism's all-reduce; skipped without NCCL)"
target/gpu-selfcheck/ocannl-gpu nccl-check || [ $? = 2 ]

echo "== the moons demo trained on the GPU (fails below 0.95 accuracy)"
cargo build --release -p ocannl --example moons
target/release/examples/moons --no-plot --device cuda
target/release/examples/moons --no-plot --device cuda --optimizer adamw

echo "== benchmarks"
bench=target/release/bench
mkdir -p "$bench"
cat >"$bench/matmul4096.mlir" <<'MLIR'
func.func @mm(%a: !ocannl_shape.tensor<"4096->4096", f32>, %b: !ocannl_shape.tensor<"4096->4096", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"4096->4096", f32>, !ocannl_shape.tensor<"4096->4096", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
MLIR
# "runs: N, median X ms, min Y ms" -> the median in ms.
median() { sed -n 's/^runs: .*median \([0-9.]*\) ms.*/\1/p'; }
for device in cuda cpu; do
  repeat=20
  [ "$device" = cpu ] && repeat=3
  ms=$("$run" "$bench/matmul4096.mlir" --entry mm --arg random:1 --arg random:2 --quiet \
    --repeat "$repeat" --device "$device" | median)
  awk -v ms="$ms" -v d="$device" 'BEGIN { printf "matmul 4096 (%s): %.3f ms, %.1f GFLOP/s\n", d, ms, 2 * 4096^3 / (ms * 1e6) }'
done
args=()
for i in $(seq 1 9); do args+=(--arg "random:$i"); done
for device in cuda cpu; do
  ms=$("$run" examples/moons.mlir --entry loss_train_step --train "${args[@]}" --quiet \
    --repeat 200 --device "$device" | median)
  echo "moons train step ($device): $ms ms"
done
