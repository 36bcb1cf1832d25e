#!/usr/bin/env python3
"""Before and after the assignment optimizations, side by side in one run.

For each workload, `ocannl-run` (release build, JIT at O3) compiles and runs
the entry twice: with `--no-optimize` (every tensor node gets a buffer) and
with the default pipeline (`ocannl-virtualize`, then `ocannl-simplify` when
the pipeline has it). It reports, from `--stats` and `--time-phases`:
buffers (`memref.alloc`) and loop nests of the lowered entry, the most bytes
its buffers take at once, the median run time, the whole compile time, and
the time of each optimization pass.

Workloads: the MLP forward pass (batch 1024, widths 256-256-256), train
steps of the two-moons MLP (`examples/moons.mlir`: hidden 16, batch 10, as
the demo; and hidden 256, batch 1024), and, as the largest program, a train
step of the transformer-like graph of `benches/pass_timing.py` (4 blocks:
about 100 tensor ops before backprop, 1,500 assignments after; 24 blocks
take minutes in LLVM at O3). The optimization passes' share of the whole
compile time is printed for each.

Usage: python3 benches/optimize.py [--quick]
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import pass_timing  # noqa: E402  (the transformer-like graph)
import vs_numpy  # noqa: E402  (the MLP module and the tool's path)

RUN = vs_numpy.RUN


def moons(hidden, batch):
    """The @loss function of examples/moons.mlir at other sizes."""
    text = open(os.path.join(ROOT, "examples", "moons.mlir")).read()
    text = text[: text.index("func.func @forward")]
    text = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    return (text.replace('"10|2"', f'"{batch}|2"').replace('"10|1"', f'"{batch}|1"')
            .replace('->16"', f'->{hidden}"'))


def npy_scalar(path, x):
    """A 0-d f32 .npy file (the learning rate), without numpy."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"
    header += " " * (63 - len(header) % 64) + "\n"
    import struct
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<f", x))


def run(text, entry, args, repeat, flags):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.mlir")
        with open(path, "w") as f:
            f.write(text)
        cmd = [RUN, path, "--entry", entry, "--quiet", "--repeat", str(repeat),
               "--time-phases", "--stats"] + flags
        for a in args:
            if a == "lr":
                a = os.path.join(d, "lr.npy")
                npy_scalar(a, 0.01)
            cmd += ["--arg", a]
        # Compile times are cold ones: no compilation cache.
        p = subprocess.run(cmd, text=True, capture_output=True,
                           env=dict(os.environ, OCANNL_CACHE="0"))
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    out = p.stdout + p.stderr
    stats = re.search(r"stats: (\d+) buffers, (\d+) loop nests, (\d+) peak buffer bytes", out)
    phases = {m.group(1): float(m.group(2)) for m in re.finditer(r"phase (\S+): ([0-9.]+) ms", out)}
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    return {
        "buffers": int(stats.group(1)),
        "nests": int(stats.group(2)),
        "peak": int(stats.group(3)),
        "run_us": median * 1e3,
        "compile_ms": sum(v for k, v in phases.items() if k != "parse"),
        "virtualize_ms": phases.get("ocannl-virtualize", 0.0),
        "simplify_ms": phases.get("ocannl-simplify", 0.0),
    }


def main():
    quick = "--quick" in sys.argv
    vs_numpy.build()
    reps = 5 if quick else 21
    workloads = [
        ("MLP forward B=1024 256-256-256", vs_numpy.mlp_module(1024, [256, 256, 256]), "mlp",
         [f"random:{i + 1}" for i in range(5)], [], reps),
        ("moons train step W=16 B=10", moons(16, 10), "loss_train_step",
         [f"random:{i + 1}" for i in range(8)] + ["lr"], ["--train"], 20 * reps),
        ("moons train step W=256 B=1024", moons(256, 1024), "loss_train_step",
         [f"random:{i + 1}" for i in range(8)] + ["lr"], ["--train"], reps),
    ]
    f, out = pass_timing.transformer(4)
    tr = f.text(out)
    n_params = tr.count('"ocannl_shape.param"')
    workloads.append(("transformer train step 4 blocks", tr, "transformer_train_step",
                      [f"random:{i + 1}" for i in range(1 + n_params)] + ["lr"], ["--train"],
                      3 if quick else 5))
    print(f"{'workload':32} {'pipeline':10} {'buffers':>7} {'nests':>6} {'peak KiB':>9} "
          f"{'run us':>10} {'compile ms':>10} {'virt ms':>8} {'simp ms':>8}")
    for name, text, entry, args, flags, repeat in workloads:
        for label, extra in [("plain", ["--no-optimize"]), ("optimized", [])]:
            r = run(text, entry, args, repeat, flags + extra)
            print(f"{name:32} {label:10} {r['buffers']:>7} {r['nests']:>6} "
                  f"{r['peak'] / 1024:>9.1f} {r['run_us']:>10.1f} {r['compile_ms']:>10.1f} "
                  f"{r['virtualize_ms']:>8.2f} {r['simplify_ms']:>8.2f}")
            if label == "optimized":
                share = (r["virtualize_ms"] + r["simplify_ms"]) / r["compile_ms"]
                print(f"{'':32} {'':10} optimization passes: {100 * share:.2f}% of the compile time")


if __name__ == "__main__":
    main()
