#!/usr/bin/env python3
"""Data-parallel training speed on this machine: examples/s with 1 and 2
ranks, and the time each step spends in the gradients' all-reduce.

Trains LeNet-5 on Fashion-MNIST (`api/examples/fashion_mnist.rs`, release
build) for one epoch over the first 12,800 training images with a global
batch of 64, four ways, in one run:
  - one process, the fused train step, the CPU's threads (OpenMP's default);
  - one process, the fused train step, one thread;
  - `mpirun -n 1 ... --data-parallel`: the split step (gradients, an
    all-reduce, the update), one thread;
  - `mpirun -n 2 ... --data-parallel --batch 32`: two ranks of one thread,
    each on its 32 images of every batch of 64, the gradients all-reduced
    through MPI.
The same for the two-moons MLP (global batch 20; a model so small that the
step's fixed costs dominate). Then what the measured message size projects
for more ranks: a ring all-reduce sends and receives 2(N-1)/N times the
message per rank per step, plus 2(N-1) latencies.

Usage: python3 benches/data_parallel.py [--items N] [--epochs E]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "target", "release", "examples")


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def run(cmd, env):
    full = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **env)
    out = subprocess.run(cmd, env=full, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    return out.stdout


def mpirun(n, cmd):
    return ["mpirun", "--bind-to", "none", "-x", "OMP_NUM_THREADS", "-n", str(n)] + cmd


def measure(label, cmd, env, examples_re, reduce_re):
    out = run(cmd, env)
    m = re.search(examples_re, out)
    if not m:
        sys.exit(f"no speed in:\n{out}")
    rate = float(m.group(1))
    r = re.search(reduce_re, out)
    reduce = (int(r.group(1)), int(r.group(2)), float(r.group(3))) if r else None
    return label, rate, reduce


def table(name, rows, unit):
    print(f"\n{name}")
    print(f"| run | examples/s | all-reduce per step | message |")
    print(f"|---|---|---|---|")
    for label, rate, reduce in rows:
        if reduce:
            calls, size, t = reduce
            print(f"| {label} | {rate:,.0f} | {t:.3f} {unit} | {size:,} bytes |")
        else:
            print(f"| {label} | {rate:,.0f} | - | - |")


def main():
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "ocannl", "--example", "fashion_mnist", "--example", "moons"],
        cwd=ROOT,
        check=True,
    )
    items, epochs = arg("--items", 12800), arg("--epochs", 1)
    threads = str(os.cpu_count())
    fashion = [
        os.path.join(EXAMPLES, "fashion_mnist"),
        "--epochs", str(epochs), "--train-items", str(items), "--test-items", "100",
        "--min-accuracy", "0", "--save", os.path.join(ROOT, "target", "bench-dp.safetensors"),
    ]
    rate = r"([0-9.]+) examples/s, the evaluations"
    reduce = r"(\d+) all-reduces of (\d+) bytes, ([0-9.]+) ms each"
    rows = [
        measure(f"1 process, fused step, {threads} threads", fashion + ["--batch", "64"],
                {"OMP_NUM_THREADS": threads}, rate, reduce),
        measure("1 process, fused step, 1 thread", fashion + ["--batch", "64"],
                {"OMP_NUM_THREADS": "1"}, rate, reduce),
        measure("1 rank (split step), 1 thread", mpirun(1, fashion + ["--batch", "64", "--data-parallel"]),
                {"OMP_NUM_THREADS": "1"}, rate, reduce),
        measure("2 ranks x 32, 1 thread each", mpirun(2, fashion + ["--batch", "32", "--data-parallel"]),
                {"OMP_NUM_THREADS": "1"}, rate, reduce),
    ]
    table(f"LeNet-5 on Fashion-MNIST, global batch 64, {items} images x {epochs} epoch(s)", rows, "ms")
    moons = [os.path.join(EXAMPLES, "moons"), "--no-plot", "--no-accuracy-check", "--epochs", "20"]
    mrate = r"([0-9.]+) examples/s\)"
    mreduce = r"(\d+) all-reduces of (\d+) bytes, ([0-9.]+) us each"
    mrows = [
        measure("1 process, fused step", moons + ["--batch", "20"], {"OMP_NUM_THREADS": "1"}, mrate, mreduce),
        measure("1 rank (split step)", mpirun(1, moons + ["--batch", "20", "--data-parallel"]),
                {"OMP_NUM_THREADS": "1"}, mrate, mreduce),
        measure("2 ranks x 10", mpirun(2, moons + ["--batch", "10", "--data-parallel"]),
                {"OMP_NUM_THREADS": "1"}, mrate, mreduce),
    ]
    table("two-moons MLP 2-16-16-1, global batch 20, 20 epochs", mrows, "us")

    # Projection from LeNet's measured message and step.
    _, rate2, (calls, size, t2) = rows[3]
    _, rate1, _ = rows[2]
    step = 64 / rate1 * 1e3  # ms per global batch of 64 on one rank
    print(f"\nprojection for LeNet-5 (message {size:,} bytes per step; one rank's step on 64 images {step:.2f} ms;")
    print("each rank's compute shrinks as 1/N at a fixed global batch, the all-reduce does not):")
    print("| ranks | link | all-reduce per step (model) | share of the step |")
    print("|---|---|---|---|")
    for n in (2, 4, 8, 16):
        for link, gbps, alpha_us in (("shared memory (measured at N=2)", None, None),
                                      ("10 Gb/s Ethernet", 1.25e9, 20.0),
                                      ("100 Gb/s InfiniBand", 12.5e9, 2.0)):
            if gbps is None:
                if n != 2:
                    continue
                ms = t2
            else:
                ms = (2 * (n - 1) / n * size / gbps + 2 * (n - 1) * alpha_us * 1e-6) * 1e3
            compute = step / n
            print(f"| {n} | {link} | {ms:.3f} ms | {100 * ms / (ms + compute):.0f}% |")


if __name__ == "__main__":
    main()
