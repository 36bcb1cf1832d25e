#!/usr/bin/env bash
# Installs IREE's compiler and runtime (the iree-base-compiler and
# iree-base-runtime 3.13 wheels from PyPI, about 600 MB) with numpy into the
# virtual environment target/iree-venv, for the IREE tests and
# benches/vs_iree.py. Does nothing when they are there already.
#   scripts/install-iree.sh            # then: target/iree-venv/bin/iree-compile --version
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/iree-venv
if [ -x "$venv/bin/iree-compile" ] && "$venv/bin/python3" -c "import iree.runtime, numpy" 2>/dev/null; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet 'iree-base-compiler==3.13.*' 'iree-base-runtime==3.13.*' numpy
"$venv/bin/iree-compile" --version | head -1
