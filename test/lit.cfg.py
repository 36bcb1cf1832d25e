# lit configuration of the OCANNL regression suite.
#
# Run with `cargo test` (see README.md), or directly:
#   lit -sv test/ --param tool_dir=target/debug
import os
import re
import shutil
import sys

import lit.formats

config.name = "OCANNL"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py", "extract_examples.py"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(config.test_source_root)
config.test_exec_root = lit_config.params.get(
    "exec_root", os.path.join(repo_root, "target", "lit")
)

llvm_prefix = os.environ.get("MLIR_SYS_220_PREFIX", "/usr/lib/llvm-22")
tool_dir = os.path.abspath(
    lit_config.params.get("tool_dir", os.path.join(repo_root, "target", "debug"))
)
if not os.path.exists(os.path.join(tool_dir, "ocannl-opt")):
    lit_config.fatal(f"ocannl-opt not found in {tool_dir}; build it or pass --param tool_dir=DIR")

if os.path.exists(os.path.join(tool_dir, "ocannl-run")):
    config.available_features.add("ocannl-run")
# The MLIR-free runtime of GPU artifacts.
if os.path.exists(os.path.join(tool_dir, "ocannl-gpu")):
    config.available_features.add("ocannl-gpu")

# The plugin of stock MLIR tools (`cargo build --workspace` builds it).
plugin = os.path.join(tool_dir, "libocannl_mlir_plugin.so")
if os.path.exists(plugin):
    config.available_features.add("plugin")
    config.substitutions.append(("%plugin", plugin))
else:
    lit_config.warning(f"{plugin} not found (build with `cargo build --workspace`): the plugin tests are unsupported")

path = [tool_dir, os.path.join(llvm_prefix, "bin"), config.environment.get("PATH", os.environ["PATH"])]
config.environment["PATH"] = os.pathsep.join(path)
for var in ["RUST_LOG", "TMPDIR", "HOME", "OCANNL_CACHE", "OCANNL_CACHE_DIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The compilation cache of the tests is their own (not the user's), unless
# the environment names one.
if "OCANNL_CACHE_DIR" not in os.environ:
    config.environment["OCANNL_CACHE_DIR"] = os.path.join(os.path.abspath(config.test_exec_root), "cache")

# Upstream lowering of the loops to LLVM, for stock `mlir-opt`: the text of
# the named pipeline `ocannl-loops-to-llvm`, asked of `ocannl-opt` (the one
# place it is written is the CPU backend).
import subprocess


def expanded_pipeline(name):
    out = subprocess.run(
        [os.path.join(tool_dir, "ocannl-opt"), f"--pass-pipeline=builtin.module({name})",
         "--dump-pass-pipeline", "-o", os.devnull],
        input="", capture_output=True, text=True,
    )
    lines = [l.strip() for l in (out.stdout + out.stderr).splitlines()]
    text = "".join(l for l in lines if l and not l.startswith("Pass Manager"))
    if out.returncode != 0 or not text.startswith("builtin.module("):
        lit_config.fatal(f"cannot read the pipeline {name} from ocannl-opt: {out.stderr}")
    return text


# Ahead-of-time builds: llc (llvm-22) and the system C compiler.
if os.path.exists(os.path.join(llvm_prefix, "bin", "llc")):
    config.available_features.add("llc")
cc = shutil.which(os.environ.get("CC", "cc"))
if cc:
    config.available_features.add("c-compiler")
    config.substitutions.append(("%cc", cc))
config.substitutions.append(("%llvm_lib", os.path.join(llvm_prefix, "lib")))

# Arm ahead of time: Debian's AArch64 cross compiler and qemu-user (the
# README's set-up installs both), and the pipeline from assignments to the
# LLVM dialect with the kernels planned for Neoverse N1 or for the host.
aarch64_cc = shutil.which("aarch64-linux-gnu-gcc")
qemu = shutil.which("qemu-aarch64")
if aarch64_cc and qemu:
    config.available_features.add("aarch64-cross")
    config.substitutions.append(("%aarch64_cc", aarch64_cc))
    config.substitutions.append(("%qemu_aarch64", f"{qemu} -L /usr/aarch64-linux-gnu"))


# (Less its first pass, `ocannl-check-lowered`, the project's own: stock
# `mlir-opt` runs the upstream conversions.)
config.substitutions.append(("%llvm_pipeline", expanded_pipeline("ocannl-loops-to-llvm")
                             .replace("ocannl-check-lowered,", "", 1)))
config.substitutions.append(("%linalg_llvm_pipeline", expanded_pipeline("ocannl-linalg-to-llvm")))
# (From assignments, each function with a C interface.)
_to_llvm = (expanded_pipeline("ocannl-to-llvm")
            .replace("builtin.module(", "builtin.module(func.func(llvm-request-c-wrappers),", 1)
            .replace("ocannl-infer-shapes{explain=false},", "", 1)
            .replace("ocannl-lower-to-assign{params-as-arguments=false},", "", 1))
if "ocannl-lower-to-loops{cpu=" not in _to_llvm:
    lit_config.fatal(f"unexpected ocannl-to-llvm pipeline: {_to_llvm}")
# (Sequential, for a program linked by a C compiler without an OpenMP
# runtime (the Arm cross toolchain has none): `convert-scf-to-cf` runs
# parallel loops one iteration after another.)
_sequential = re.sub(r"convert-scf-to-openmp(\{[^}]*\})?,", "", _to_llvm, count=1)
if _sequential == _to_llvm:
    lit_config.fatal(f"unexpected ocannl-to-llvm pipeline: {_to_llvm}")
config.substitutions.append(("%assign_to_llvm_neon", _sequential.replace("{cpu=", "{cpu=neoverse-n1", 1)))
config.substitutions.append(("%assign_to_llvm_host", _sequential))

# The GPU: a CUDA toolkit's libdevice (math functions in kernels) and ptxas
# (checks the PTX), from CUDA_ROOT (or CUDA_HOME, CUDA_PATH), the
# nvidia-cuda-nvcc-cu12 wheel scripts/bootstrap.sh unpacks under
# target/tools, or /usr/local/cuda; and an NVIDIA GPU with its driver.
cuda_roots = [os.environ.get(v) for v in ["CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"]]
cuda_roots += [os.path.join(repo_root, "target", "tools", "nvidia", "cuda_nvcc"), "/usr/local/cuda"]
cuda_roots = [r for r in cuda_roots if r]
for root in cuda_roots:
    if os.path.exists(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")):
        config.environment["CUDA_ROOT"] = root
        config.available_features.add("libdevice")
        break
ptxas = os.environ.get("PTXAS")
if not ptxas:
    for root in cuda_roots:
        candidate = os.path.join(root, "bin", "ptxas")
        if os.access(candidate, os.X_OK):
            ptxas = candidate
            break
if not ptxas:
    ptxas = shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
if os.path.exists(os.path.join(tool_dir, "ocannl-run")):
    probe = subprocess.run(
        [os.path.join(tool_dir, "ocannl-run"), "--device", "cuda", "--device-info", "-", "--entry", "none"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    if probe.returncode == 0:
        config.available_features.add("cuda")
# IREE (scripts/install-iree.sh): the Python of its environment, with
# iree-compile and iree.runtime, from OCANNL_IREE_PYTHON or target/iree-venv.
iree_python = os.environ.get("OCANNL_IREE_PYTHON", os.path.join(repo_root, "target", "iree-venv", "bin", "python3"))
iree_bin = os.path.dirname(iree_python)
if os.path.exists(iree_python) and os.path.exists(os.path.join(iree_bin, "iree-compile")):
    config.available_features.add("iree")
    config.substitutions.append(("%iree_python", iree_python))
    config.substitutions.append(("%iree_bin", iree_bin))
llvm_lib = os.path.join(llvm_prefix, "lib")
config.substitutions.append(("%mlir_runner_utils", os.path.join(llvm_lib, "libmlir_runner_utils.so")))
config.substitutions.append(("%libomp", os.path.join(llvm_lib, "libomp.so")))
config.substitutions.append(("%mlir_c_runner_utils", os.path.join(llvm_lib, "libmlir_c_runner_utils.so")))
import sys

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%repo", repo_root))
config.substitutions.append(("%tool_dir", tool_dir))
config.substitutions.append(("%shape_irdl", os.path.join(repo_root, "dialects", "shape", "ocannl_shape.irdl.mlir")))
config.substitutions.append(("%assign_irdl", os.path.join(repo_root, "dialects", "assign", "ocannl_assign.irdl.mlir")))
