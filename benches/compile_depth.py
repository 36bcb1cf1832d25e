#!/usr/bin/env python3
"""Compile time against depth, side by side with JAX (CPU): the character
transformer's train step (`nn::decoder_only`, AdamW, as in
`benches/vs_jax_models.py`) at several depths.

For each depth, in one invocation:
  - ocannl cold: `cargo run --release -p ocannl --example names` with an
    empty compilation cache (`OCANNL_CACHE_DIR` a new directory): the
    compile time of the train step (the project's passes, then the
    backend), and the time per step;
  - ocannl warm: the same command again in a new process, the cache now
    filled;
  - ocannl-run cold and warm: the same model's module (`names
    --print-module`) compiled by `ocannl-run --train --optimizer adamw
    --entry loss_train_step --compile-only` with an empty cache, then again
    in a new process (the whole time the tool reports, `compile: X ms`:
    the context, the passes and the backend; the same compile path as the
    Trainer's);
  - JAX: `jax.jit` of the same model and step, lowered and compiled (JAX's
    own persistent cache is not used), and its time per step.
JAX is installed with pip into target/bench-venv.

Usage: python3 benches/compile_depth.py [--depths 1,2,4,8,24] [--steps 30]
"""
import os
import re
import sys
import tempfile

import benchvenv
import vs_jax_models as models


def ours(layers, steps, cache_dir, data_dir):
    env = dict(os.environ, OCANNL_CACHE_DIR=cache_dir)
    env.pop("OCANNL_CACHE", None)
    import subprocess
    out = subprocess.run(
        [os.path.join(models.EXAMPLES, "names"), "--steps", str(steps), "--every", str(steps),
         "--batch", str(models.TRANSFORMER_BATCH), "--layers", str(layers), "--samples", "0",
         "--save-data", data_dir],
        capture_output=True, text=True, cwd=models.ROOT, env=env)
    if out.returncode != 0:
        sys.exit(f"names failed:\n{out.stdout}\n{out.stderr}")
    m = re.search(r"compiled the train step in ([0-9.]+) s \(passes ([0-9.]+) s, backend ([0-9.]+) s",
                  out.stdout)
    _, step_ms = models.steps_line(out.stdout)
    return {"compile_s": float(m.group(1)), "passes_s": float(m.group(2)),
            "backend_s": float(m.group(3)), "step_ms": step_ms}


def tool(layers, cache_dir, module_dir):
    """`ocannl-run --train` on the names model: (cold s, warm s)."""
    import subprocess
    module = os.path.join(module_dir, f"names{layers}.mlir")
    with open(module, "w") as f:
        f.write(subprocess.run(
            [os.path.join(models.EXAMPLES, "names"), "--layers", str(layers), "--print-module"],
            capture_output=True, text=True, check=True, cwd=models.ROOT).stdout)
    env = dict(os.environ, OCANNL_CACHE_DIR=cache_dir)
    env.pop("OCANNL_CACHE", None)
    times = []
    for _ in range(2):
        out = subprocess.run(
            [os.path.join(os.path.dirname(models.EXAMPLES), "ocannl-run"), module, "--train",
             "--optimizer", "adamw", "--optimizer-option", "weight-decay=0.01",
             "--entry", "loss_train_step", "--compile-only", "--time-phases"],
            capture_output=True, text=True, cwd=models.ROOT, env=env)
        if out.returncode != 0:
            sys.exit(f"ocannl-run failed:\n{out.stdout}\n{out.stderr}")
        times.append(float(re.search(r"^compile: ([0-9.]+) ms", out.stdout, re.M).group(1)) / 1e3)
    return times


def main():
    benchvenv.ensure("jax", ["jax[cpu]", "numpy"])
    models.build()
    if not models.TOOL_DIR:
        import subprocess
        subprocess.check_call(["cargo", "build", "--quiet", "--release", "-p", "ocannl-run"],
                              cwd=models.ROOT)
    import jax
    args = sys.argv[1:]
    depths = [int(d) for d in (args[args.index("--depths") + 1] if "--depths" in args
                               else "1,2,4,8,24").split(",")]
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 30
    print(f"jax {jax.__version__} ({jax.devices()[0].platform}), {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; transformer train step (AdamW), "
          f"dim 64, 4 heads, batch {models.TRANSFORMER_BATCH}, {steps} steps timed")
    print(f"{'blocks':>6} | {'ocannl cold s':>13} {'(passes':>8} {'backend)':>9} {'warm s':>7} "
          f"{'ms/step':>8} | {'run cold s':>10} {'warm s':>7} | {'jax compile s':>13} {'ms/step':>8} | {'cold/jax':>8} {'step/jax':>8}")
    for layers in depths:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as data, \
                tempfile.TemporaryDirectory() as run_cache:
            cold = ours(layers, steps, cache, data)
            warm = ours(layers, steps, cache, data)
            run_cold, run_warm = tool(layers, run_cache, data)
            theirs = models.transformer_jax(layers, 4, 64, data)
        print(f"{layers:6} | {cold['compile_s']:13.2f} {cold['passes_s']:8.2f} "
              f"{cold['backend_s']:9.2f} {warm['compile_s']:7.3f} {cold['step_ms']:8.2f} | "
              f"{run_cold:10.2f} {run_warm:7.3f} | "
              f"{theirs['compile_s']:13.2f} {theirs['step_ms']:8.2f} | "
              f"{cold['compile_s'] / theirs['compile_s']:8.2f} "
              f"{cold['step_ms'] / theirs['step_ms']:8.2f}", flush=True)


if __name__ == "__main__":
    main()
