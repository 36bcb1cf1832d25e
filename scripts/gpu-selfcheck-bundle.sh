#!/usr/bin/env bash
# Builds the GPU self-check bundle here (no GPU needed): a directory with
# the MLIR-free runtime `ocannl-gpu`, one GPU artifact per case and the
# outputs the CPU computes for it. Copy the directory to a machine with an
# NVIDIA GPU and its driver (nothing else needed there) and run
#   ./ocannl-gpu selfcheck .
# which prints one line per case (PASS with the largest relative error,
# FAIL, or SKIP without a GPU) and a summary; exit 0: every case passed,
# 1: a case failed, 2: cases were skipped.
#
# Usage: scripts/gpu-selfcheck-bundle.sh [DIR]   (default target/gpu-selfcheck)
# Environment:
#   CHIPS      the GPU architectures the PTX is generated for
#              (default "sm_70 sm_80 sm_90"; a GPU runs the newest one not
#              newer than itself)
#   PROFILE    the cargo profile of ocannl-gpu: release (default) or dev
#   TOOLS_PROFILE  the cargo profile of ocannl-run and the fashion_mnist
#              example, which write the artifacts and the expected outputs:
#              dev (default) or release
#   STEPS      train steps of the moons cases (default 20)
#   LENET      1 (default) to include LeNet-5's train step, 0 to leave it
#   CUDA_ROOT  a CUDA toolkit's directory with nvvm/libdevice (exp, tanh and
#              log in kernels need it); by default the one
#              scripts/bootstrap.sh unpacks under target/tools
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${1:-target/gpu-selfcheck}
chips=${CHIPS:-sm_70 sm_80 sm_90}
profile=${PROFILE:-release}
tools_profile=${TOOLS_PROFILE:-dev}
steps=${STEPS:-20}
lenet=${LENET:-1}

if [ -z "${CUDA_ROOT:-}" ]; then
  CUDA_ROOT=$repo/target/tools/nvidia/cuda_nvcc
fi
if [ ! -f "$CUDA_ROOT/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "gpu-selfcheck-bundle: no libdevice under $CUDA_ROOT (run scripts/bootstrap.sh, or set CUDA_ROOT to a CUDA toolkit)" >&2
  exit 1
fi
export CUDA_ROOT

echo "gpu-selfcheck-bundle: building the tools" >&2
cargo build -q --profile "$tools_profile" -p ocannl-run
cargo build -q --profile "$profile" -p ocannl-gpu-cli
if [ "$lenet" = 1 ]; then
  cargo build -q --profile "$tools_profile" -p ocannl --example fashion_mnist
fi
# The directory of a profile's builds.
profile_dir() {
  case $1 in
    dev) echo target/debug ;;
    *) echo "target/$1" ;;
  esac
}
bin_dir=$(profile_dir "$profile")
tools_dir=$repo/$(profile_dir "$tools_profile")
run=$tools_dir/ocannl-run
ptxas=${PTXAS:-$CUDA_ROOT/bin/ptxas}

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp "$bin_dir/ocannl-gpu" "$out/ocannl-gpu"
if command -v strip >/dev/null; then
  strip "$out/ocannl-gpu"
fi
chip_flags=()
for c in $chips; do
  chip_flags+=(--chip "$c")
done

# new_case NAME ENTRY: the case's directory with its case.txt started.
new_case() {
  mkdir -p "$out/$1/expected"
  printf 'entry %s\n' "$2" >"$out/$1/case.txt"
}

# op_case NAME FUNCTION ARG...: a function of scripts/selfcheck/cases.mlir,
# its expected results from the reference interpreter (f64, rounded to the
# results' f32).
op_case() {
  local name=$1 entry=$2
  shift 2
  echo "gpu-selfcheck-bundle: $name" >&2
  new_case "$name" "$entry"
  local args=()
  for a in "$@"; do
    printf 'arg %s\n' "$a" >>"$out/$name/case.txt"
    args+=(--arg "$a")
  done
  printf 'tolerance 1e-4\n' >>"$out/$name/case.txt"
  "$run" scripts/selfcheck/cases.mlir --entry "$entry" --device cuda \
    --emit-artifact "$out/$name/artifact.ocgpu" "${chip_flags[@]}"
  "$run" scripts/selfcheck/cases.mlir --entry "$entry" --interpret "${args[@]}" \
    --quiet --out-dir "$out/$name/expected"
}

op_case matmul matmul random:1 random:2
op_case batched-matmul batched_matmul random:3 random:4
op_case pointwise pointwise random:5 random:6 random:7
op_case reductions reductions random:8
op_case conv2d-padded conv2d random:9 random:10
op_case one-hot one_hot random:14 random:15

# train_case NAME MODULE STEPS TOLERANCE OPTIMIZER DATA... -- STATE...: the
# train step of MODULE's @loss run STEPS times from the params its
# @loss_init makes, after the data arguments, then the optimizer's state
# and the learning rate (STATE...). Expected: the last loss and every
# argument after the steps, from the CPU's compiled code.
train_case() {
  local name=$1 module=$2 n=$3 tolerance=$4 optimizer=$5
  shift 5
  echo "gpu-selfcheck-bundle: $name" >&2
  new_case "$name" loss_train_step
  local data=() state=() seen_sep=0
  for a in "$@"; do
    if [ "$a" = -- ]; then seen_sep=1; continue; fi
    if [ $seen_sep = 0 ]; then data+=("$a"); else state+=("$a"); fi
  done
  local train=(--train --optimizer "$optimizer")
  "$run" "$module" "${train[@]}" --entry loss_train_step --device cuda \
    --emit-artifact "$out/$name/artifact.ocgpu" "${chip_flags[@]}"
  # The params as the init makes them: its arguments after it ran.
  local count
  count=$("$out/ocannl-gpu" info "$out/$name/artifact.ocgpu" | grep -c ' param ' || true)
  local zeros=()
  for _ in $(seq "$count"); do zeros+=(--arg fill:0); done
  local init=$out/$name/init
  "$run" "$module" "${train[@]}" --entry loss_init "${zeros[@]}" --quiet --out-dir "$init" --out-args
  local args=()
  for a in "${data[@]}"; do args+=("$a"); done
  for k in $(seq 0 $((count - 1))); do
    mv "$init/arg$k.npy" "$out/$name/param$k.npy"
    args+=("param$k.npy")
  done
  rmdir "$init"
  for a in "${state[@]}"; do args+=("$a"); done
  local flags=()
  for a in "${args[@]}"; do
    printf 'arg %s\n' "$a" >>"$out/$name/case.txt"
    flags+=(--arg "$a")
  done
  printf 'repeat %s\ntolerance %s\n' "$n" "$tolerance" >>"$out/$name/case.txt"
  (cd "$out/$name" && "$run" "$repo/$module" "${train[@]}" --entry loss_train_step \
    "${flags[@]}" --repeat "$n" --quiet --out-dir expected --out-args >/dev/null)
}

# The moons MLP (examples/moons.mlir): SGD, and Adam with its moments and
# step count kept on the device.
train_case moons-sgd examples/moons.mlir "$steps" 1e-3 sgd random:11 random:12 -- fill:0.1
train_case moons-adam examples/moons.mlir "$steps" 1e-3 adam random:11 random:12 -- \
  fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0 fill:0.01

# An embedding and a cross-entropy: gathers, a scatter-add and a scatter
# from zero in the train step.
train_case embedding-sgd scripts/selfcheck/embedding.mlir 5 1e-3 sgd random:16 -- fill:0.1

if [ "$lenet" = 1 ]; then
  # LeNet-5 (the fashion_mnist example's model) on a batch of 8 random
  # images of the classes 0 to 7, with SGD.
  lenet_module=target/gpu-selfcheck-lenet.mlir
  "$tools_dir/examples/fashion_mnist" --print-module --batch 8 >"$lenet_module"
  train_case lenet-sgd "$lenet_module" 5 1e-3 sgd random:13 range -- fill:0.05
  rm -f "$lenet_module"
fi

# The PTX of every artifact, checked by ptxas for its chip when ptxas is
# here.
if [ -x "$ptxas" ]; then
  for a in "$out"/*/artifact.ocgpu; do
    for c in $chips; do
      "$out/ocannl-gpu" ptx "$a" --chip "$c" >"$out/check.ptx"
      "$ptxas" -arch="$c" "$out/check.ptx" -o /dev/null
    done
  done
  rm -f "$out/check.ptx"
  echo "gpu-selfcheck-bundle: ptxas accepts the PTX of every case for $chips" >&2
fi

cat >"$out/README.txt" <<EOF
OCANNL GPU self-check bundle (built $(date -u +%Y-%m-%d) by scripts/gpu-selfcheck-bundle.sh).
On a machine with an NVIDIA GPU and its driver:
  ./ocannl-gpu --device-info
  ./ocannl-gpu selfcheck .
One line per case (PASS with the largest relative error, FAIL, SKIP) and a
summary; exit 0: every case passed, 1: a case failed, 2: cases skipped.
Chips: $chips.
EOF

# Here (without a GPU) every case is read and checked, then skipped.
set +e
"$out/ocannl-gpu" selfcheck "$out"
status=$?
set -e
if [ $status = 1 ]; then
  echo "gpu-selfcheck-bundle: the bundle does not check out" >&2
  exit 1
fi
bytes=$(du -sb "$out" | cut -f1)
if [ "$bytes" -ge $((64 * 1024 * 1024)) ]; then
  echo "gpu-selfcheck-bundle: $out takes $bytes bytes, more than 64 MiB" >&2
  exit 1
fi
echo "gpu-selfcheck-bundle: $out ($((bytes / 1024)) KiB): copy it to a GPU machine and run ./ocannl-gpu selfcheck ." >&2
