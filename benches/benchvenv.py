"""The benchmarks' Python environment: a virtual environment under
target/bench-venv with the peers (numpy, jax) installed by pip, created on
first use; a benchmark re-runs itself inside it."""
import importlib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "bench-venv")


def ensure(module, packages):
    """Returns when `module` imports; else installs `packages` into the venv
    (created if missing) and re-runs this script there."""
    try:
        importlib.import_module(module)
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python3")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([py, "-m", "pip", "install", "--quiet", *packages])
    os.execv(py, [py] + sys.argv)
