#!/usr/bin/env bash
# Installs what building and testing the project needs on Debian bookworm:
# LLVM/MLIR 22 (libraries, mlir-opt, lit and FileCheck), LLVM's OpenMP runtime
# (parallel loops) and a C++ compiler; the datasets that tests and examples
# read (Fashion-MNIST under /usr/share/datasets/fashion-mnist, the word list
# /usr/share/dict/words); and NVIDIA's ptxas and libdevice from the
# nvidia-cuda-nvcc-cu12 wheel (PyPI), unpacked under target/tools, for the
# GPU target's tests (checking the PTX; math functions in kernels); and
# OpenMPI (data-parallel training: mpirun and the library the `mpi` crate
# binds, through libclang); an AArch64 cross C toolchain and qemu-user (the
# kernels compiled ahead of time for Arm and run under qemu-aarch64).
# Does nothing when everything is already installed.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools libpolly-22-dev libomp-22-dev
  libclang1-22 libclang-common-22-dev libzstd-dev zlib1g-dev g++ python3 python3-pip
  dataset-fashion-mnist wamerican openmpi-bin libopenmpi-dev
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "bootstrap: cargo not found; install the Rust toolchain (https://rustup.rs)" >&2
  exit 1
fi

# ptxas and libdevice (no GPU needed): the wheel is downloaded, not installed.
nvcc_version="12.9.86"
tools="$(cd "$(dirname "$0")/.." && pwd)/target/tools"
if [ ! -x "$tools/nvidia/cuda_nvcc/bin/ptxas" ] || [ ! -f "$tools/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "bootstrap: fetching nvidia-cuda-nvcc-cu12 $nvcc_version (ptxas, libdevice) into $tools" >&2
  mkdir -p "$tools/wheel"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tools/wheel" "nvidia-cuda-nvcc-cu12==$nvcc_version"
  python3 -m zipfile -e "$tools"/wheel/nvidia_cuda_nvcc_cu12-"$nvcc_version"-*.whl "$tools"
  chmod +x "$tools/nvidia/cuda_nvcc/bin/ptxas"
  rm -rf "$tools/wheel"
fi
