#!/usr/bin/env python3
"""Side-by-side speed of the project's convolutions and XLA's (JAX, CPU).

Runs, in one invocation, LeNet's two convolutions (batch 64, f32, NHWC):
  - conv1: 28x28x1 images to 6 channels, 5x5 kernel, same padding;
  - conv2: 14x14x6 to 16 channels, 5x5 kernel, valid;
each forward (the convolution alone) and with its full gradient (the loss
`sum(conv(x, w) * g)` and its gradients with respect to both the input and
the kernel: the forward convolution and the two gradient contractions).
Our side is a generated `ocannl_shape` module run by `ocannl-run` (release
build, JIT at O3, median of repeated runs; the gradient through `--train`'s
`@f_grad`, with the input and the kernel as params); XLA's side is
`jax.lax.conv_general_dilated` jitted (the gradient through
`jax.value_and_grad`, which also computes the loss), median of repeated
runs. Prints GFLOP/s (counting 2 * output cells * kernel cells per
convolution, three of them for the gradient) and the ratio.

Then train steps (forward, backprop and an SGD update, the optimizations
on) of a LeNet-like pair of convolutions (5x5 to 6 channels, relu, 5x5 to
16, loss = sum; batch 64 of 28x28 images) in every form a model writes:
the batch in the batch row (`b|...`) or as an output axis, padded or
valid, stride 1 or 2; ours through `ocannl-run --train --entry
f_train_step`, JAX's the same step jitted (`jax.grad`, `p - lr * g`).
Prints milliseconds per step and the ratio.

Usage: python3 benches/vs_jax_conv.py [--quick] [--isa avx2]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

import benchvenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# OCANNL_TOOL_DIR runs another build's tools (e.g. to compare two commits).
TOOL_DIR = os.environ.get("OCANNL_TOOL_DIR")
RUN = os.path.join(TOOL_DIR or os.path.join(ROOT, "target", "release"), "ocannl-run")

# (name, batch, height/width, in channels, out channels, kernel, padding)
CONVS = [
    ("conv1 28x28x1->6 same", 64, 28, 1, 6, 5, True),
    ("conv2 14x14x6->16 valid", 64, 14, 6, 16, 5, False),
]


def ensure_jax():
    """Re-runs this script inside the benchmarks' venv, which has jax."""
    benchvenv.ensure("jax", ["jax[cpu]", "numpy"])


def build():
    if TOOL_DIR:
        return
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "-p", "ocannl-run"], cwd=ROOT)


def tensor(shape):
    return f'!ocannl_shape.tensor<"{shape}", f32>'


def geometry(size, kernel, padding):
    out = size if padding else size - kernel + 1
    return out, ("=+" if padding else "<+")


def spec(kernel, padding):
    _, pad = geometry(0, kernel, padding)
    return f"b, 1*oh{pad}kh, 1*ow{pad}kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"


def forward_module(batch, size, cin, cout, kernel, padding):
    """`y = conv(x, w)` with the image and the kernel as arguments."""
    tx = tensor(f"{batch},{size},{size},{cin}")
    tw = tensor(f"{kernel},{kernel},{cin}->{cout}")
    q = tensor("?")
    return f"""func.func @f(%x: {tx}, %w: {tw}) -> {q} {{
  %y = "ocannl_shape.einsum"(%x, %w) {{spec = "{spec(kernel, padding)}"}} : ({tx}, {tw}) -> {q}
  return %y : {q}
}}
"""


def gradient_module(batch, size, cin, cout, kernel, padding):
    """The loss `sum(conv(x, w) * g)` with the image and the kernel as
    params; `--train` adds `@f_grad` (the loss and both gradients)."""
    out, _ = geometry(size, kernel, padding)
    tx = tensor(f"{batch},{size},{size},{cin}")
    tw = tensor(f"{kernel},{kernel},{cin}->{cout}")
    tg = tensor(f"{batch},{out},{out},{cout}")
    q = tensor("?")
    return f"""func.func @f(%g: {tg}) -> {q} {{
  %x = "ocannl_shape.param"() {{name = "x"}} : () -> {tx}
  %w = "ocannl_shape.param"() {{name = "w"}} : () -> {tw}
  %y = "ocannl_shape.einsum"(%x, %w) {{spec = "{spec(kernel, padding)}"}} : ({tx}, {tw}) -> {q}
  %p = "ocannl_shape.pointwise_binary"(%y, %g) {{op = "mul"}} : ({q}, {tg}) -> {q}
  %l = "ocannl_shape.einsum"(%p) {{spec = "... => 0"}} : ({q}) -> {q}
  return %l : {q}
}}
"""


def pair_module(batch_row, padded, stride):
    """The conv pair's loss, the image as data and both kernels as params."""
    pad = "=+" if padded else "<+"
    b = "b|" if batch_row else "b, "
    spec = f"{b}{stride}*oh{pad}kh, {stride}*ow{pad}kw, ic; kh, kw, ic -> oc => {b}oh, ow, oc"
    tx = tensor("64|28,28,1" if batch_row else "64,28,28,1")
    t1, t2, q = tensor("5,5,1->6"), tensor("5,5,6->16"), tensor("?")
    return f"""func.func @f(%x: {tx}) -> {q} {{
  %w1 = "ocannl_shape.param"() {{name = "w1"}} : () -> {t1}
  %w2 = "ocannl_shape.param"() {{name = "w2"}} : () -> {t2}
  %y1 = "ocannl_shape.einsum"(%x, %w1) {{spec = "{spec}"}} : ({tx}, {t1}) -> {q}
  %h = "ocannl_shape.pointwise_unary"(%y1) {{op = "relu"}} : ({q}) -> {q}
  %y2 = "ocannl_shape.einsum"(%h, %w2) {{spec = "{spec}"}} : ({q}, {t2}) -> {q}
  %l = "ocannl_shape.einsum"(%y2) {{spec = "... => 0"}} : ({q}) -> {q}
  return %l : {q}
}}
"""


def run_ocannl(text, entry, nargs, repeat, train=False):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    cmd = [RUN, path, "--entry", entry, "--quiet", "--repeat", str(repeat)]
    if train:
        cmd.append("--train")
    for i in range(nargs):
        cmd += ["--arg", f"random:{i + 1}"]
    if entry.endswith("_train_step"):
        cmd += ["--arg", "fill:0.0001"]
    out = subprocess.check_output(cmd, text=True)
    os.unlink(path)
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)) / 1e3


def time_jax(fn, args, repeat):
    import jax
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    benchvenv.restrict_isa()
    ensure_jax()
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    build()
    repeat = 11 if "--quick" in sys.argv else 51
    rng = np.random.default_rng(0)
    rows = []
    for name, batch, size, cin, cout, kernel, padding in CONVS:
        out, _ = geometry(size, kernel, padding)
        flops = 2.0 * batch * out * out * cout * kernel * kernel * cin
        x = jnp.asarray(rng.random((batch, size, size, cin), dtype=np.float32))
        w = jnp.asarray(rng.random((kernel, kernel, cin, cout), dtype=np.float32))
        g = jnp.asarray(rng.random((batch, out, out, cout), dtype=np.float32))

        def conv(x, w, padding=padding):
            return lax.conv_general_dilated(
                x, w, (1, 1), "SAME" if padding else "VALID",
                dimension_numbers=("NHWC", "HWIO", "NHWC"))

        fwd = jax.jit(conv)
        grad = jax.jit(jax.value_and_grad(lambda x, w, g: jnp.sum(conv(x, w) * g), argnums=(0, 1)))
        ours = run_ocannl(forward_module(batch, size, cin, cout, kernel, padding), "f", 2, repeat)
        theirs = time_jax(fwd, (x, w), repeat)
        rows.append((f"{name} forward", flops / ours / 1e9, flops / theirs / 1e9))
        ours = run_ocannl(gradient_module(batch, size, cin, cout, kernel, padding), "f_grad", 3,
                          repeat, train=True)
        theirs = time_jax(grad, (x, w, g), repeat)
        rows.append((f"{name} gradient", 3 * flops / ours / 1e9, 3 * flops / theirs / 1e9))
    steps = []
    x = jnp.asarray(rng.random((64, 28, 28, 1), dtype=np.float32))
    w1 = jnp.asarray(rng.random((5, 5, 1, 6), dtype=np.float32) * 0.1)
    w2 = jnp.asarray(rng.random((5, 5, 6, 16), dtype=np.float32) * 0.1)
    for padded in (False, True):
        for stride in (1, 2):
            def loss(ws, x, padded=padded, stride=stride):
                c = lambda x, w: lax.conv_general_dilated(
                    x, w, (stride, stride), "SAME" if padded else "VALID",
                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
                return jnp.sum(c(jax.nn.relu(c(x, ws[0])), ws[1]))

            step = jax.jit(lambda ws, x: jax.tree_util.tree_map(
                lambda w, g: w - 1e-4 * g, ws, jax.grad(loss)(ws, x)))
            theirs = time_jax(step, ((w1, w2), x), repeat)
            # XLA's worker threads keep spinning for a while after a run
            # and take a core from the next process: let them settle.
            time.sleep(1.0)
            for batch_row in (True, False):
                ours = run_ocannl(pair_module(batch_row, padded, stride), "f_train_step", 3, repeat,
                                  train=True)
                form = (f"{'batch row' if batch_row else 'batch axis'}, "
                        f"{'padded' if padded else 'valid'}, stride {stride}")
                steps.append((form, ours * 1e3, theirs * 1e3))
    print(benchvenv.cpu_banner())
    print(f"jax {jax.__version__} ({jax.devices()[0].platform}), {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'workload':<36}{'ocannl GFLOP/s':>16}{'XLA GFLOP/s':>14}{'ratio':>8}")
    for name, o, t in rows:
        print(f"{name:<36}{o:>16.2f}{t:>14.2f}{o / t:>8.2f}")
    print(f"\nconv pair train step (SGD), batch 64   {'ocannl ms':>10}{'JAX ms':>10}{'ratio':>8}")
    for form, o, t in steps:
        print(f"  {form:<36}{o:>10.2f}{t:>10.2f}{o / t:>8.2f}")
    print("  (ratio: ocannl / JAX; below 1: faster)")


if __name__ == "__main__":
    main()
