#!/usr/bin/env bash
# Installs what building and testing the project needs on Debian bookworm:
# LLVM/MLIR 22 (libraries, mlir-opt, lit and FileCheck), LLVM's OpenMP runtime
# (parallel loops) and a C++ compiler.
# Does nothing when everything is already installed.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools libpolly-22-dev libomp-22-dev
  libclang1-22 libclang-common-22-dev libzstd-dev zlib1g-dev g++ python3
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
