#!/usr/bin/env python3
"""Side-by-side speed of the project's generated code and numpy (OpenBLAS).

Runs, in one invocation, f32 matmuls (square, small and odd sizes: 64, 84,
100, 120, 256, 257, 512, 1000, 1024, 2048) and an MLP
forward pass (batch 1024, widths 256-256-256) through `ocannl-run` (release
build, JIT at O3, median of repeated runs; the best of three rounds that
alternate with numpy's, as the machine's speed drifts) and through numpy (installed with
pip into a local virtual environment, target/bench-venv), and prints GFLOP/s
and the ratio to numpy, plus the JIT compile time of the MLP.

Usage: python3 benches/vs_numpy.py [--quick] [--isa avx2]

`--isa avx2` restricts both sides to AVX2 (benchvenv.ISA_ENV) on a machine
that has more.
"""
import os
import re
import subprocess
import sys
import tempfile

import benchvenv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# OCANNL_TOOL_DIR runs another build's tools (e.g. to compare two commits).
TOOL_DIR = os.environ.get("OCANNL_TOOL_DIR")
RUN = os.path.join(TOOL_DIR or os.path.join(ROOT, "target", "release"), "ocannl-run")


def ensure_numpy():
    """Re-runs this script inside the benchmarks' venv, which has numpy."""
    benchvenv.ensure("numpy", ["numpy"])


def build():
    if TOOL_DIR:
        return
    subprocess.check_call(["cargo", "build", "--quiet", "--release", "-p", "ocannl-run"], cwd=ROOT)


def tensor(shape):
    return f'!ocannl_shape.tensor<"{shape}", f32>'


def matmul_module(n):
    t = tensor(f"{n}->{n}")
    return f"""func.func @mm(%a: {t}, %b: {t}) -> {tensor("?")} {{
  %c = "ocannl_shape.compose"(%a, %b) : ({t}, {t}) -> {tensor("?")}
  return %c : {tensor("?")}
}}
"""


def mlp_module(batch, widths):
    x = tensor(f"{batch}|{widths[0]}")
    args = [f"%x: {x}"]
    body = []
    prev, prev_t = "%x", x
    for i in range(1, len(widths)):
        w = tensor(f"{widths[i-1]}->{widths[i]}")
        b = tensor(f"{widths[i]}")
        args += [f"%w{i}: {w}", f"%b{i}: {b}"]
        q = tensor("?")
        body.append(f'  %m{i} = "ocannl_shape.compose"(%w{i}, {prev}) : ({w}, {prev_t}) -> {q}')
        body.append(f'  %s{i} = "ocannl_shape.pointwise_binary"(%m{i}, %b{i}) {{op = "add"}} : ({q}, {b}) -> {q}')
        if i < len(widths) - 1:
            body.append(f'  %h{i} = "ocannl_shape.pointwise_unary"(%s{i}) {{op = "relu"}} : ({q}) -> {q}')
            prev = f"%h{i}"
        else:
            prev = f"%s{i}"
        prev_t = q
    return (f"func.func @mlp({', '.join(args)}) -> {tensor('?')} {{\n" + "\n".join(body)
            + f"\n  return {prev} : {tensor('?')}\n}}\n")


def run_ocannl(text, entry, nargs, repeat):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    cmd = [RUN, path, "--entry", entry, "--quiet", "--repeat", str(repeat), "--time-phases"]
    for i in range(nargs):
        cmd += ["--arg", f"random:{i + 1}"]
    # Compile times are cold ones: no compilation cache.
    out = subprocess.check_output(cmd, text=True, env=dict(os.environ, OCANNL_CACHE="0"))
    os.unlink(path)
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    phases = {m.group(1): float(m.group(2)) for m in re.finditer(r"phase (\S+): ([0-9.]+) ms", out)}
    return median / 1e3, phases


def time_numpy(fn, repeat):
    import time
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    benchvenv.restrict_isa()
    ensure_numpy()
    import numpy as np
    build()
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(0)
    rows = []
    # Real layers are small and odd-sized (LeNet's 400-120-84-10 at batch
    # 64, attention's 16x64) beside the large square ones.
    sizes = [64, 100, 257, 1024] if quick else [64, 84, 100, 120, 256, 257, 512, 1000, 1024, 2048]
    # A shared machine's speed drifts within seconds: both sides run in
    # alternating rounds, and each keeps its best round's median.
    rounds = 2 if quick else 3
    for n in sizes:
        flops = 2.0 * n ** 3
        # Small products take microseconds: many runs for a stable median.
        rep = 3 if n >= 2048 else 7 if n >= 512 else 501
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(run_ocannl(matmul_module(n), "mm", 2, rep)[0])
            theirs.append(time_numpy(lambda: a @ b, rep))
        rows.append((f"matmul {n}", flops / min(ours) / 1e9, flops / min(theirs) / 1e9))
    batch, widths = 1024, [256, 256, 256]
    flops = sum(2.0 * batch * widths[i - 1] * widths[i] for i in range(1, len(widths)))
    x = rng.random((batch, widths[0]), dtype=np.float32)
    ws = [rng.random((widths[i], widths[i - 1]), dtype=np.float32) for i in range(1, len(widths))]
    bs = [rng.random(widths[i], dtype=np.float32) for i in range(1, len(widths))]

    def mlp():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w.T + b
            if i < len(ws) - 1:
                h = np.maximum(h, 0)
        return h

    ours, theirs, phases = [], [], {}
    for _ in range(rounds):
        t, phases = run_ocannl(mlp_module(batch, widths), "mlp", 1 + 2 * (len(widths) - 1), 7)
        ours.append(t)
        theirs.append(time_numpy(mlp, 7))
    rows.append(("MLP 1024x256-256-256", flops / min(ours) / 1e9, flops / min(theirs) / 1e9))
    print(benchvenv.cpu_banner())
    print(f"numpy {np.__version__}, {os.cpu_count()} cores")
    print(f"{'workload':<24}{'ocannl GFLOP/s':>16}{'numpy GFLOP/s':>16}{'ratio':>8}")
    for name, o, t in rows:
        print(f"{name:<24}{o:>16.2f}{t:>16.2f}{o / t:>8.2f}")
    compile_ms = sum(v for k, v in phases.items() if k != "parse")
    print(f"MLP forward compile time: {compile_ms:.1f} ms "
          f"({', '.join(f'{k} {v:.1f}' for k, v in phases.items())})")


if __name__ == "__main__":
    main()
