#!/usr/bin/env python3
"""Runs an ocannl_shape program through IREE and checks it against
ocannl-run: the program is lowered to linalg on tensors by ocannl-opt
(`ocannl-to-linalg`, or the training pipeline then `ocannl-lower-to-linalg`
with --train), compiled by `iree-compile` for the CPU (`llvm-cpu`) and run
with IREE's Python runtime; ocannl-run's JIT runs the same entry on the same
arguments, and every result (with --train: every param and optimizer state
after the steps, and the last loss) must agree within --rtol.

Runs under the Python of the IREE environment (scripts/install-iree.sh:
target/iree-venv), which has `iree.runtime`, `iree-compile` and numpy.

  target/iree-venv/bin/python scripts/iree-run.py examples/mlp.mlir --entry f --arg random:1
  target/iree-venv/bin/python scripts/iree-run.py examples/moons.mlir --train --entry loss \\
      --arg random:1 --arg random:2 --steps 5
  ... --time: also report compile times and the time per call of both

Arguments (`--arg`, one per data argument, in order): `random:SEED`
(uniform in [-1, 1), numpy's generator), `range`, an integer (an `index`
argument), or a `.npy` file. With --train the params start from a seeded
draw, the optimizer state at 0, the learning rate is --lr.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The state arguments of a train step, as ocannl-train-step marks them.
STATE = ("param", "momentum", "adam_m", "adam_v", "step")
IREE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    # IREE computes f64 in f32 unless told not to.
    "--iree-input-demote-f64-to-f32=false",
]


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"iree-run: {what} failed ({' '.join(cmd)}):\n{p.stderr}{p.stdout}")
    return p.stdout


def tool(args, name):
    return os.path.join(args.tool_dir, name)


def iree_compile():
    here = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    return here if os.path.exists(here) else "iree-compile"


def pipeline(args):
    """The ocannl-opt pipeline to linalg (None: the named ocannl-to-linalg)."""
    if not args.train:
        return None
    step = f"ocannl-train-step{{optimizer={args.optimizer}}}"
    return (
        "builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},"
        f"ocannl-autodiff{{functions={args.entry}}},{step},ocannl-virtualize,ocannl-simplify,"
        "ocannl-lower-to-linalg,func.func(canonicalize,cse))"
    )


def signature(text, func):
    """The arguments of `func` in printed IR: (type, attribute kind or None)."""
    m = re.search(r"func\.func @" + re.escape(func) + r"\((.*?)\)\s*(?:->|attributes|\{)", text)
    if not m:
        sys.exit(f"iree-run: no function @{func}")
    out = []
    for a in re.finditer(r"%arg\d+: ([a-z]+<[^>]*>|index)( \{ocannl\.(\w+) = [^}]*\})?", m.group(1)):
        out.append((a.group(1), a.group(3)))
    return out


def dims(ty):
    m = re.match(r"(?:memref|tensor)<((?:\d+x)*)f(32|64)>", ty)
    if not m:
        return None, None
    d = [int(x) for x in m.group(1).split("x") if x]
    return d, np.float32 if m.group(2) == "32" else np.float64


def make_arg(spec, ty, path):
    """Writes the value of one data argument to `path` (None for an index)."""
    if ty == "index":
        return int(spec)
    shape, dt = dims(ty)
    if spec.endswith(".npy"):
        v = np.load(spec).astype(dt)
    elif spec == "range":
        v = np.arange(int(np.prod(shape)), dtype=dt).reshape(shape)
    elif spec.startswith("random:"):
        rng = np.random.default_rng(int(spec.split(":", 1)[1]))
        v = rng.uniform(-1.0, 1.0, size=shape).astype(dt)
    else:
        sys.exit(f"iree-run: bad argument {spec!r}")
    np.save(path, v)
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("module")
    ap.add_argument("--entry", required=True)
    ap.add_argument("--arg", action="append", default=[])
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--optimizer", default="sgd")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--tool-dir", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--keep", help="write the intermediate files to this directory")
    ap.add_argument("--time", action="store_true", help="report compile times and time per call")
    ap.add_argument("--repeat", type=int, default=20, help="calls timed with --time")
    args = ap.parse_args()
    import iree.runtime as rt

    work = args.keep or tempfile.mkdtemp(prefix="ocannl-iree-")
    os.makedirs(work, exist_ok=True)
    entry = f"{args.entry}_train_step" if args.train else args.entry
    pipe = pipeline(args)
    opt = [tool(args, "ocannl-opt"), args.module]
    linalg = os.path.join(work, "linalg.mlir")
    t0 = time.perf_counter()
    if pipe:
        run(opt + [f"--pass-pipeline={pipe}", "-o", linalg], "ocannl-opt")
        # The arguments' roles, from the routine before the conversion.
        before = pipe.replace("ocannl-lower-to-linalg,func.func(canonicalize,cse)", "ocannl-verify")
        sig = signature(run(opt + [f"--pass-pipeline={before}"], "ocannl-opt"), entry)
    else:
        run(opt + ["--ocannl-to-linalg", "-o", linalg], "ocannl-opt")
        sig = [(t, None) for t, _ in signature(open(linalg).read(), entry)]
    t1 = time.perf_counter()
    vmfb = os.path.join(work, "module.vmfb")
    run([iree_compile(), *IREE_FLAGS, linalg, "-o", vmfb], "iree-compile")
    t2 = time.perf_counter()

    # The arguments.
    values, files = [], []
    data = iter(args.arg)
    rng = np.random.default_rng(1234)
    for k, (ty, kind) in enumerate(sig):
        path = os.path.join(work, f"in{k}.npy")
        if kind is None:
            spec = next(data, None)
            if spec is None:
                sys.exit(f"iree-run: @{entry} takes more arguments than given (argument #{k}: {ty})")
            v = make_arg(spec, ty, path)
        else:
            shape, dt = dims(ty)
            if kind == "param":
                v = (rng.uniform(-0.5, 0.5, size=shape)).astype(dt)
            elif kind == "learning_rate":
                v = np.full(shape, args.lr, dtype=dt)
            else:
                v = np.zeros(shape, dtype=dt)
            np.save(path, v)
        values.append(v)
        files.append(str(v) if isinstance(v, int) else path)

    # ocannl-run's JIT.
    ref = os.path.join(work, "ocannl")
    cmd = [tool(args, "ocannl-run"), args.module, "--entry", entry, "--quiet", "--out-dir", ref]
    cmd += [f"--arg={f}" for f in files]
    if args.train:
        cmd += ["--train", "--optimizer", args.optimizer, "--repeat", str(args.steps), "--out-args"]
    run(cmd, "ocannl-run")
    ref_results = []
    while os.path.exists(os.path.join(ref, f"result{len(ref_results)}.npy")):
        ref_results.append(np.load(os.path.join(ref, f"result{len(ref_results)}.npy")))

    # IREE.
    module = rt.load_vm_flatbuffer_file(vmfb, driver="local-task")
    fn = module[entry]
    state = [k for k, (_, kind) in enumerate(sig) if kind in STATE]
    current = list(values)
    t3 = time.perf_counter()
    for _ in range(args.steps if args.train else 1):
        outs = fn(*current)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        outs = [np.asarray(o) for o in outs]
        n = len(outs) - len(state) if args.train else len(outs)
        if args.train:
            if n < 0:
                sys.exit(f"iree-run: @{entry} returns {len(outs)} values for {len(state)} state arguments")
            for k, v in zip(state, outs[n:]):
                current[k] = v
    t4 = time.perf_counter()

    checks = [(f"result{k}", outs[k], ref_results[k]) for k in range(min(len(ref_results), n))]
    if len(ref_results) != n:
        sys.exit(f"iree-run: IREE returned {n} results, ocannl-run {len(ref_results)}")
    if args.train:
        for k in state:
            checks.append((f"arg{k} ({sig[k][1]})", current[k], np.load(os.path.join(ref, f"arg{k}.npy"))))
    for name, got, want in checks:
        got = np.asarray(got, dtype=np.float64).reshape(np.shape(want))
        want = np.asarray(want, dtype=np.float64)
        # NaNs agree with NaNs, infinities with themselves.
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        with np.errstate(invalid="ignore"):
            err = np.where(same, 0.0, np.abs(got - want))
        err = np.nan_to_num(err, nan=np.inf)
        bound = args.atol + args.rtol * np.nan_to_num(np.abs(want), nan=0.0, posinf=0.0)
        if not np.all(err <= bound):
            i = int(np.argmax(err - bound))
            sys.exit(
                f"iree-run: {name} differs at cell {i}: IREE {got.flat[i]!r}, ocannl-run {want.flat[i]!r}"
            )
    steps = f" after {args.steps} steps" if args.train else ""
    print(f"iree-run: @{entry}{steps}: {len(checks)} values agree with ocannl-run")
    if args.time:
        reps = args.repeat
        s = time.perf_counter()
        for _ in range(reps):
            fn(*values)
        per_call = (time.perf_counter() - s) / reps
        print(f"iree-run: to linalg {1e3 * (t1 - t0):.1f} ms, iree-compile {1e3 * (t2 - t1):.1f} ms, "
              f"first run(s) {1e3 * (t4 - t3):.1f} ms, per call {1e6 * per_call:.1f} us")


if __name__ == "__main__":
    main()
