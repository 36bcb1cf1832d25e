#!/usr/bin/env python3
"""Our JIT beside IREE compiling our linalg (CPU), in one run.

For each case (the moons MLP's train step, the moons MLP's forward pass on
its 2592-point grid, and examples/mlp.mlir's forward pass), the same module
and the same arguments:
  - ours: `ocannl-run` (the loops, the CPU's kernels, LLVM's JIT), the
    compilation cache off; compile time = every phase it reports (the
    passes, LLVM), time per call = the median of --repeat runs;
  - IREE: `ocannl-opt --ocannl-to-linalg` (or the training pipeline ending
    in `ocannl-lower-to-linalg`) then `iree-compile` for `llvm-cpu` on the
    host CPU; compile time = both, time per call = `iree-benchmark-module`
    (`local-task`), which calls the compiled function without Python.
Both results are first checked to agree (scripts/iree-run.py, 1e-5
relative). IREE is installed by scripts/install-iree.sh (target/iree-venv).

Usage: python3 benches/vs_iree.py [--tool-dir target/release] [--repeat N]
(the tools of a release build by default, else of the debug build: the
passes' part of our compile time is several times longer in a debug build).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "iree-venv", "bin")

CASES = [
    # (name, module, entry, train, data arguments)
    ("moons train step (W=16, B=10)", "examples/moons.mlir", "loss", True, ["random:1", "random:2"]),
    ("moons forward (2592 points)", "examples/moons.mlir", "forward", False, ["random:3"]),
    ("mlp forward (32x10)", "examples/mlp.mlir", "mlp", False, ["random:4"]),
]


def sh(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"vs_iree: {' '.join(cmd)} failed:\n{p.stderr}{p.stdout}")
    return p.stdout + p.stderr


def inputs(work):
    k, out = 0, []
    while os.path.exists(os.path.join(work, f"in{k}.npy")):
        out.append(os.path.join(work, f"in{k}.npy"))
        k += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.path.join(ROOT, "target", "release")
    if not os.path.exists(os.path.join(default, "ocannl-run")):
        default = os.path.join(ROOT, "target", "debug")
    ap.add_argument("--tool-dir", default=default)
    ap.add_argument("--repeat", type=int, default=2000)
    args = ap.parse_args()
    if not os.path.exists(os.path.join(VENV, "iree-compile")):
        sys.exit("vs_iree: IREE is not installed: run scripts/install-iree.sh")
    print(f"tools: {args.tool_dir}")
    print(f"{'case':34} {'ours: compile':>14} {'per call':>10} {'IREE: compile':>14} {'per call':>10}")
    for name, module, entry, train, data in CASES:
        work = tempfile.mkdtemp(prefix="ocannl-vs-iree-")
        cmd = [os.path.join(VENV, "python3"), os.path.join(ROOT, "scripts", "iree-run.py"),
               os.path.join(ROOT, module), "--entry", entry, "--tool-dir", args.tool_dir,
               "--keep", work, "--time"]
        cmd += [f"--arg={a}" for a in data]
        if train:
            cmd.append("--train")
        out = sh(cmd)
        to_linalg = float(re.search(r"to linalg ([0-9.]+) ms", out).group(1))
        iree_compile = float(re.search(r"iree-compile ([0-9.]+) ms", out).group(1))
        fn = f"{entry}_train_step" if train else entry
        bench = sh([os.path.join(VENV, "iree-benchmark-module"), f"--module={work}/module.vmfb",
                    "--device=local-task", f"--function={fn}"] + [f"--input=@{p}" for p in inputs(work)])
        m = re.search(r"real_time\s+([0-9.]+) (ms|us|ns)", bench)
        scale = {"ms": 1e3, "us": 1.0, "ns": 1e-3}[m.group(2)]
        iree_us = float(m.group(1)) * scale
        # Ours, on the same arguments, the compilation cache off.
        run = [os.path.join(args.tool_dir, "ocannl-run"), os.path.join(ROOT, module), "--entry", fn,
               "--repeat", str(args.repeat), "--time-phases", "--quiet"]
        run += [f"--arg={p}" for p in inputs(work)]
        if train:
            run.append("--train")
        env = dict(os.environ, OCANNL_CACHE="0")
        ours = sh(run, env)
        phases = sum(float(x) for x in re.findall(r"^phase [^:]+: ([0-9.]+) ms", ours, re.M))
        per_call = float(re.search(r"median ([0-9.]+) ms", ours).group(1)) * 1e3
        print(f"{name:34} {phases:11.1f} ms {per_call:7.1f} us {to_linalg + iree_compile:11.1f} ms "
              f"{iree_us:7.1f} us")


if __name__ == "__main__":
    main()
