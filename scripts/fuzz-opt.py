#!/usr/bin/env python3
"""Mutation fuzzing of ocannl-opt over the lit suite's inputs.

Each input file of test/ is split at `// -----` into modules; a mutant is a
module with a few random edits that keep it close to valid IR (numbers,
shape strings, einsum specs, op and accumulation names, element types,
affine maps and iteration spaces swapped for other values, lines dropped or
repeated, now and then a character changed). Every mutant goes through the
project's pipelines; a run is a crash when

- the tool dies of a signal (segfault, abort) or exceeds the time limit;
- it reports a panic or an "internal error";
- a pass leaves invalid IR (MLIR's verifier after a pass: an error with the
  note "see current operation"), or an upstream conversion cannot legalize
  what a project pass produced;
- it succeeds through `--ocannl-to-llvm` or `--ocannl-to-nvvm` but
  `ocannl_shape`/`ocannl_assign` types or ops are left in the output;
- it succeeds through a pipeline ending in `ocannl-lower-to-linalg` but
  anything of the project's (`ocannl`) is left in the output, or stock
  `mlir-opt` (without the plugin) does not parse and verify it.

Any other failure is an ordinary error (a diagnostic for a bad input) and
fine. Crashing mutants are written to the output directory with the
command and what was seen.

  scripts/fuzz-opt.py --count 2000 --seed 7          # a longer run
  scripts/fuzz-opt.py --count 40 --seed 1 --quiet    # the suite's short run

Exit status: 0 when nothing crashed, 1 otherwise.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PIPELINES = [
    ["--ocannl-infer-shapes"],
    ["--ocannl-infer-shapes", "--ocannl-lower-to-assign"],
    ["--ocannl-to-llvm"],
    ["--ocannl-lower-to-loops", "--canonicalize"],
    ["--ocannl-loops-to-llvm"],
    # The GPU target's loops and the pipeline to PTX.
    ["--pass-pipeline=builtin.module(ocannl-lower-to-loops{target=gpu},canonicalize)"],
    ["--ocannl-to-nvvm"],
    # Training: params as arguments, backprop, an SGD step, down to loops.
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step{momentum=0.9 weight-decay=0.01 nesterov=true},ocannl-lower-to-loops)"],
    # Adam's step (with clipping), optimized, down to loops.
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step{optimizer=adamw clip-norm=1},ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops)"],
    # The same as the CPU backend lowers it: each assignment a kernel as it is
    # lowered (repeats are calls), then the backend's outlining and pointers.
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step{optimizer=adamw clip-norm=1},ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{kernels=true},ocannl-outline-kernels,ocannl-kernel-bare-ptrs)"],
    # The kernels planned for other CPUs (AVX2, NEON), contractions left to
    # scalar loops reported, every kernel call timed.
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{kernels=true cpu=x86-64-v3 explain=true},ocannl-outline-kernels,ocannl-profile-kernels,ocannl-kernel-bare-ptrs)"],
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-virtualize,ocannl-lower-to-loops{cpu=neoverse-n1})"],
    # One-hot contractions as gathers and scatters, reported, in a train step.
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-one-hot-to-gather{explain=true},ocannl-lower-to-loops)"],
    # The optimizations, on their own and in the training pipeline.
    ["--ocannl-virtualize=explain=true", "--ocannl-lower-to-loops"],
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize{max-visits=4},ocannl-lower-to-loops)"],
    # The e-graph simplifier, on the input and on the lowered loops.
    ["--ocannl-simplify"],
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops,ocannl-simplify{fast-math=true remarks=true})"],
    # Linalg on tensors: from ocannl_shape, from assignments (contractions
    # kept generic), a train step, and on to LLVM with upstream passes.
    ["--ocannl-to-linalg"],
    ["--ocannl-lower-to-linalg=named-ops=false"],
    ["--pass-pipeline=builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step{optimizer=adam},ocannl-virtualize,ocannl-simplify,ocannl-lower-to-linalg)"],
    ["--pass-pipeline=builtin.module(ocannl-to-linalg,ocannl-linalg-to-llvm)"],
]
# The pipelines whose output is linalg on tensors: stock mlir-opt must read
# it, and nothing of the project's may be left.
LINALG_OUTPUT = [p for p in PIPELINES if p[0].endswith("-linalg") or p[0].endswith("ocannl-lower-to-linalg)")]
STOCK_MLIR_OPT = os.path.join(os.environ.get("MLIR_SYS_220_PREFIX", "/usr/lib/llvm-22"), "bin", "mlir-opt")
# Runs: each mutant is parsed first (no passes), then, if it parses, goes
# through every pipeline.

NUMBERS = ["0", "1", "2", "3", "4", "7", "-1", "16", "100", "4294967296",
           "9223372036854775807", "9223372036854775808", "18446744073709551616"]
SHAPE_PIECES = ["1", "2", "3", "4", "0", "...", "..v..", "n", "q=1", "rgb=3",
                "4294967296", "9223372036854775808", ",", "|", "->", "?", " "]
SPEC_PIECES = ["i", "j", "k", "o", "0", "1", "2", ",", ";", "|", "->", "=>",
               "...", "..v..", "_", "2*o+k", "o=+k", "o<+k", "2*o=+k", "o<+2*k",
               "3*o<+2*k", "2*i", "2*i+1", "i0", "b", " "]
OPS = ["identity", "relu", "satur01", "exp", "log", "exp2", "log2", "sin",
       "cos", "sqrt", "recip", "recip_sqrt", "neg", "tanh", "not", "add", "sub",
       "mul", "div", "pow", "relu_gate", "satur01_gate", "max", "min", "mod",
       "lt", "eq", "ne", "and", "or", "cmplt", "cmpeq", "cmpne", "where",
       "fma", "frob", ""]
ACCUMS = ["assign", "add", "sub", "mul", "div", "max", "min", "frob"]
ELTS = ["f32", "f64", "f16", "bf16", "i32"]
MEMORY = ["undecided", "virtual", "local", "on_device", "materialized", "x"]


def modules(path):
    """The modules of a lit input (split as --split-input-file does)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [m for m in re.split(r"^// -----\s*$", text, flags=re.M) if "func.func" in m]


def tokens(rng, pieces, n):
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, n)))


def mutate_once(rng, text):
    """One random edit of the module text."""
    # Mostly edits that keep the module parsing (its types consistent).
    kind = rng.choices(range(11), weights=[2, 5, 3, 3, 1, 1, 1, 2, 0.4, 0.4, 0.4])[0]
    if kind == 0:  # a number
        spots = list(re.finditer(r"(?<![\w%#.])-?\d+(?![\w.])", text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
    if kind == 1:  # a shape string: every use of it, or one
        spots = list(re.finditer(r'tensor<"([^"]*)"', text))
        if spots:
            old = rng.choice(spots).group(1)
            new = rng.choice(["?", tokens(rng, SHAPE_PIECES, 7)])
            if rng.random() < 0.7:
                return text.replace(f'"{old}"', f'"{new}"')
            m = rng.choice(spots)
            return text[:m.start(1)] + new + text[m.end(1):]
    if kind == 2:  # an einsum spec
        spots = list(re.finditer(r'spec = "([^"]*)"', text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start(1)] + tokens(rng, SPEC_PIECES, 9) + text[m.end(1):]
    if kind == 3:  # an op name
        spots = list(re.finditer(r'op = "([^"]*)"', text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start(1)] + rng.choice(OPS) + text[m.end(1):]
    if kind == 4:  # an accumulation or a memory mode
        spots = list(re.finditer(r'(accum|memory) = "([^"]*)"', text))
        if spots:
            m = rng.choice(spots)
            pool = ACCUMS if m.group(1) == "accum" else MEMORY
            return text[:m.start(2)] + rng.choice(pool) + text[m.end(2):]
    if kind == 5:  # an element type, everywhere or once
        spots = list(re.finditer(r"\b(f32|f64|f16|bf16)\b", text))
        if spots:
            m = rng.choice(spots)
            new = rng.choice(ELTS)
            if rng.random() < 0.7:
                return re.sub(rf"\b{m.group(1)}\b", new, text)
            return text[:m.start()] + new + text[m.end():]
    if kind == 6:  # an iteration space
        spots = list(re.finditer(r"array<i64: ([^>]*)>", text))
        if spots:
            m = rng.choice(spots)
            sizes = ", ".join(rng.choice(NUMBERS[:9]) for _ in range(rng.randint(1, 4)))
            return text[:m.start(1)] + sizes + text[m.end(1):]
    if kind == 7:  # an affine map's results
        spots = list(re.finditer(r"affine_map<\(([^)]*)\)(\[[^\]]*\])? -> \(([^)]*)\)>", text))
        if spots:
            m = rng.choice(spots)
            dims = [d.strip() for d in m.group(1).split(",") if d.strip()] or ["0"]
            exprs = [rng.choice(dims + ["0", "1", f"{rng.choice(dims)} + 1",
                                        f"{rng.choice(dims)} * 2", f"{rng.choice(dims)} - 1"])
                     for _ in range(rng.randint(0, 3))]
            return text[:m.start(3)] + ", ".join(exprs) + text[m.end(3):]
    lines = text.split("\n")
    body = [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith("//")]
    if kind == 8 and body:  # drop a line
        del lines[rng.choice(body)]
        return "\n".join(lines)
    if kind == 9 and body:  # repeat a line
        i = rng.choice(body)
        lines.insert(i, lines[i])
        return "\n".join(lines)
    # a character
    if text:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice("0129(),;<>\"%=-_ ") + text[i + 1:]
    return text


def mutant(rng, text):
    for _ in range(1 + int(rng.expovariate(1.0))):
        text = mutate_once(rng, text)
    return text


def crash_of(proc, pipeline, timed_out):
    """What makes a run a crash, or None."""
    if timed_out:
        return "timeout"
    if proc.returncode < 0:
        return f"signal {-proc.returncode}"
    err = proc.stderr
    if "panicked" in err or "RUST_BACKTRACE" in err:
        return "panic"
    if "internal error" in err:
        return "internal error"
    if "see current operation" in err:
        return "invalid IR after a pass"
    if "failed to legalize" in err:
        return "upstream conversion cannot legalize a project pass's output"
    if proc.returncode == 0 and pipeline in (["--ocannl-to-llvm"], ["--ocannl-to-nvvm"]) and re.search(
            r"ocannl_shape\.|ocannl_assign\.", proc.stdout):
        return f"ocannl types or ops left after {pipeline[0]}"
    if proc.returncode == 0 and pipeline in LINALG_OUTPUT:
        if "ocannl" in proc.stdout:
            return f"something of the project's left after {pipeline[0]}"
        stock = subprocess.run([STOCK_MLIR_OPT, "-o", os.devnull], input=proc.stdout,
                               capture_output=True, text=True, timeout=60)
        if stock.returncode != 0:
            return "stock mlir-opt rejects the linalg output: " + stock.stderr.strip().splitlines()[0][:200]
    if proc.returncode not in (0, 1):
        return f"exit code {proc.returncode}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool-dir", default=os.path.join(ROOT, "target", "debug"))
    ap.add_argument("--count", type=int, default=200, help="mutants to run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--out", default=None, help="where crashing mutants go")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    tool = os.path.join(args.tool_dir, "ocannl-opt")
    if not os.path.exists(tool):
        sys.exit(f"fuzz-opt: {tool} not found; build it or pass --tool-dir")
    inputs = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in sorted(files):
            if f.endswith(".mlir"):
                inputs.extend(modules(os.path.join(dirpath, f)))
    inputs.sort()
    rng = random.Random(args.seed)
    out = args.out or tempfile.mkdtemp(prefix="ocannl-fuzz-opt-")
    os.makedirs(out, exist_ok=True)
    runs = crashes = errors = 0
    kinds = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.count):
            text = mutant(rng, rng.choice(inputs))
            path = os.path.join(tmp, f"m{n}.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            # A module that does not parse and verify is an ordinary error;
            # the verifier's complaints about it are not the passes'.
            parsed = subprocess.run([tool, path], capture_output=True, text=True,
                                    timeout=args.timeout, errors="replace")
            runs += 1
            if parsed.returncode < 0 or "panicked" in parsed.stderr:
                pipelines = [[]]
            elif parsed.returncode != 0:
                errors += 1
                continue
            else:
                pipelines = PIPELINES
            for pipeline in pipelines:
                cmd = [tool, path, *pipeline]
                runs += 1
                try:
                    proc = subprocess.run(cmd, capture_output=True, text=True,
                                          timeout=args.timeout, errors="replace")
                    what = crash_of(proc, pipeline, False)
                except subprocess.TimeoutExpired:
                    proc, what = None, crash_of(None, pipeline, True)
                if what is None:
                    errors += proc.returncode != 0
                    continue
                crashes += 1
                kinds[what] = kinds.get(what, 0) + 1
                name = os.path.join(out, f"crash-{args.seed}-{n}.mlir")
                with open(name, "w", encoding="utf-8") as f:
                    f.write(f"// {what}: ocannl-opt {' '.join(pipeline)}\n")
                    if proc is not None:
                        for line in proc.stderr.splitlines()[:20]:
                            f.write(f"// | {line}\n")
                    f.write(text)
                if not args.quiet:
                    print(f"crash ({what}): {name}", file=sys.stderr)
    print(f"fuzz-opt: seed {args.seed}: {args.count} mutants of {len(inputs)} modules, "
          f"{runs} runs, {errors} rejected with a diagnostic, {crashes} crashes"
          + (f" {kinds}" if kinds else "") + (f" (in {out})" if crashes else ""))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
