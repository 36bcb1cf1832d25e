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


# What `--isa avx2` sets for every program of a run: the project's kernels
# planned and compiled for x86-64-v3 (AVX2 + FMA), OpenBLAS's Haswell
# kernels, PyTorch's AVX2 code and XLA's AVX2 ceiling, so that an AVX-512
# machine measures what an AVX2 one runs.
ISA_ENV = {
    "avx2": {
        "OCANNL_TARGET_CPU": "x86-64-v3",
        "OPENBLAS_CORETYPE": "Haswell",
        "ATEN_CPU_CAPABILITY": "avx2",
        "XLA_FLAGS": "--xla_cpu_max_isa=AVX2",
    },
}


def restrict_isa():
    """Applies `--isa NAME` from the command line (before the peers are
    imported: they read these variables when they load) and returns the
    name, or None."""
    if "--isa" not in sys.argv:
        return None
    isa = sys.argv[sys.argv.index("--isa") + 1]
    if isa not in ISA_ENV:
        sys.exit(f"--isa takes one of {', '.join(ISA_ENV)}, not {isa!r}")
    for k, v in ISA_ENV[isa].items():
        if k == "XLA_FLAGS" and os.environ.get(k):
            v = os.environ[k] + " " + v
        os.environ[k] = v
    return isa


def cpu_banner():
    """The CPU model and its widest vector ISA, as every benchmark prints
    first (and the ISA asked for with `--isa`)."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith(("flags", "Features")) and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    if "avx512f" in flags:
        isa = "AVX-512"
    elif "avx2" in flags:
        isa = "AVX2"
    elif "asimd" in flags:
        isa = "NEON"
    else:
        isa = "SSE or other"
    asked = next((a for a in ISA_ENV if os.environ.get("OCANNL_TARGET_CPU") == ISA_ENV[a]["OCANNL_TARGET_CPU"]), None)
    line = f"CPU: {model}, {os.cpu_count()} cores, {isa}"
    if asked:
        line += f"; run as {asked.upper()} (" + ", ".join(f"{k}={v}" for k, v in ISA_ENV[asked].items()) + ")"
    return line
