#!/usr/bin/env python3
"""Training speed side by side with JAX (CPU): the two-moons MLP.

In one invocation, for each size (the demo's: width 16, batch 10; and a
larger one: width 256, batch 1024), trains the same model (2-W-W-1 MLP with
relu, hinge loss averaged over the batch, SGD with weight decay 1e-4 and a
linearly decaying learning rate from 0.1) on the same data (written by the
demo with --save-data) with the same schedule (shuffled batches per epoch):
  - here: `cargo run --release -p ocannl --example moons` (the train step is
    compiled once, at LLVM -O3, and called for every batch);
  - JAX: `jax.jit` of the whole train step (forward, gradients, update).
Prints the time per train step, the total training time and the compile
time of the train step of both. JAX is installed with pip into a local
virtual environment, target/bench-venv.

Usage: python3 benches/vs_jax.py [--quick]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

import benchvenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# OCANNL_TOOL_DIR runs another build's demo (e.g. to compare two commits).
TOOL_DIR = os.environ.get("OCANNL_TOOL_DIR")
DEMO = os.path.join(TOOL_DIR or os.path.join(ROOT, "target", "release"), "examples", "moons")

SIZES = [
    # (name, hidden, batch, samples, epochs)
    ("demo (W=16, B=10)", 16, 10, 1000, 40),
    ("large (W=256, B=1024)", 256, 1024, 8192, 10),
]


def ensure_jax():
    """Re-runs this script inside the benchmarks' venv, which has jax."""
    benchvenv.ensure("jax", ["jax[cpu]", "numpy"])


def build():
    if TOOL_DIR:
        return
    subprocess.check_call(
        ["cargo", "build", "--quiet", "--release", "-p", "ocannl", "--example", "moons"], cwd=ROOT
    )


def ours(hidden, batch, samples, epochs, data_dir):
    out = subprocess.run(
        [DEMO, "--hidden", str(hidden), "--batch", str(batch), "--samples", str(samples),
         "--epochs", str(epochs), "--no-plot", "--no-accuracy-check", "--save-data", data_dir],
        capture_output=True, text=True, check=True,
        # A cold compile, as JAX's (its persistent cache is not used).
        env=dict(os.environ, OCANNL_CACHE="0"),
    ).stdout
    compile_ms = float(re.search(r"compiled the train step in ([0-9.]+) ms", out).group(1))
    m = re.search(r"trained (\d+) steps in ([0-9.]+) s \(([0-9.]+) us per step", out)
    loss = float(re.findall(r"loss ([0-9.]+)", out)[-1])
    return {"compile_ms": compile_ms, "steps": int(m.group(1)), "total_s": float(m.group(2)),
            "step_us": float(m.group(3)), "loss": loss}


def jax_run(hidden, batch, samples, epochs, data_dir):
    import jax
    import jax.numpy as jnp
    import numpy as np

    points = np.load(os.path.join(data_dir, "points.npy"))
    labels = np.load(os.path.join(data_dir, "labels.npy"))
    n = points.shape[0]
    rng = np.random.default_rng(5)
    key = jax.random.PRNGKey(0)
    ks = jax.random.split(key, 6)
    u = lambda k, shape: jax.random.uniform(k, shape, jnp.float32, -0.25, 0.25)
    params = {
        "w1": u(ks[0], (2, hidden)), "b1": u(ks[1], (hidden,)),
        "w2": u(ks[2], (hidden, hidden)), "b2": u(ks[3], (hidden,)),
        "w3": u(ks[4], (hidden, 1)), "b3": u(ks[5], (1,)),
    }

    def mlp(p, x):
        h1 = jax.nn.relu(x @ p["w1"] + p["b1"])
        h2 = jax.nn.relu(h1 @ p["w2"] + p["b2"])
        return h2 @ p["w3"] + p["b3"]

    def loss_fn(p, x, y):
        return jnp.sum(jax.nn.relu(1.0 - y * mlp(p, x))) / batch

    def step(p, x, y, lr):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        p = jax.tree_util.tree_map(lambda w, gw: w - lr * (gw + 1e-4 * w), p, g)
        return p, loss

    jstep = jax.jit(step)
    x0, y0 = points[:batch], labels[:batch]
    t = time.perf_counter()
    compiled = jstep.lower(params, x0, y0, jnp.float32(0.1)).compile()
    compile_ms = (time.perf_counter() - t) * 1e3
    steps_per_epoch = n // batch
    steps = epochs * steps_per_epoch
    t = time.perf_counter()
    last = 0.0
    for epoch in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for b in range(steps_per_epoch):
            s = epoch * steps_per_epoch + b
            lr = np.float32(0.1 * (steps - s) / steps)
            idx = order[b * batch:(b + 1) * batch]
            params, loss = compiled(params, points[idx], labels[idx], lr)
            total += loss
        last = float(total) / steps_per_epoch
    jax.block_until_ready(params)
    total_s = time.perf_counter() - t
    return {"compile_ms": compile_ms, "steps": steps, "total_s": total_s,
            "step_us": total_s * 1e6 / steps, "loss": last}


def main():
    ensure_jax()
    build()
    import jax
    quick = "--quick" in sys.argv
    print(f"jax {jax.__version__} ({jax.devices()[0].platform}), {os.cpu_count()} cores")
    print(f"{'size':24} {'':6} {'us/step':>10} {'train s':>9} {'compile ms':>11} {'last loss':>10}")
    for name, hidden, batch, samples, epochs in SIZES:
        if quick:
            epochs = max(1, epochs // 4)
        with tempfile.TemporaryDirectory() as d:
            a = ours(hidden, batch, samples, epochs, d)
            b = jax_run(hidden, batch, samples, epochs, d)
        for who, r in (("ocannl", a), ("jax", b)):
            print(f"{name:24} {who:6} {r['step_us']:10.1f} {r['total_s']:9.3f} {r['compile_ms']:11.1f} {r['loss']:10.4f}")
        print(f"{'':24} {'ratio':6} {a['step_us'] / b['step_us']:10.2f} {a['total_s'] / b['total_s']:9.2f} "
              f"{a['compile_ms'] / b['compile_ms']:11.2f}   (ocannl / jax; below 1: faster)")


if __name__ == "__main__":
    main()
