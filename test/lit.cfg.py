# lit configuration of the OCANNL regression suite.
#
# Run with `cargo test` (see README.md), or directly:
#   lit -sv test/ --param tool_dir=target/debug
import os
import shutil

import lit.formats

config.name = "OCANNL"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(config.test_source_root)
config.test_exec_root = lit_config.params.get(
    "exec_root", os.path.join(repo_root, "target", "lit")
)

llvm_prefix = os.environ.get("MLIR_SYS_220_PREFIX", "/usr/lib/llvm-22")
tool_dir = lit_config.params.get(
    "tool_dir", os.path.join(repo_root, "target", "debug")
)
if not os.path.exists(os.path.join(tool_dir, "ocannl-opt")):
    lit_config.fatal(f"ocannl-opt not found in {tool_dir}; build it or pass --param tool_dir=DIR")

if os.path.exists(os.path.join(tool_dir, "ocannl-run")):
    config.available_features.add("ocannl-run")

path = [tool_dir, os.path.join(llvm_prefix, "bin"), config.environment.get("PATH", os.environ["PATH"])]
config.environment["PATH"] = os.pathsep.join(path)
for var in ["RUST_LOG", "TMPDIR", "HOME"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Upstream lowering of the loops to LLVM, and mlir-runner's support libraries.
config.substitutions.append((
    "%llvm_pipeline",
    "builtin.module(convert-scf-to-openmp,lower-affine,expand-strided-metadata,"
    "convert-vector-to-llvm,finalize-memref-to-llvm,convert-scf-to-cf,"
    "convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,"
    "convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,"
    "reconcile-unrealized-casts)",
))
llvm_lib = os.path.join(llvm_prefix, "lib")
config.substitutions.append(("%mlir_runner_utils", os.path.join(llvm_lib, "libmlir_runner_utils.so")))
config.substitutions.append(("%libomp", os.path.join(llvm_lib, "libomp.so")))
config.substitutions.append(("%mlir_c_runner_utils", os.path.join(llvm_lib, "libmlir_c_runner_utils.so")))
config.substitutions.append(("%shape_irdl", os.path.join(repo_root, "dialects", "shape", "ocannl_shape.irdl.mlir")))
config.substitutions.append(("%assign_irdl", os.path.join(repo_root, "dialects", "assign", "ocannl_assign.irdl.mlir")))
